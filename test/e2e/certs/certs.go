// Package certs issues the throwaway certificates of an end-to-end control plane: a CA, and
// leaf certificates signed by it or by a CA read from PEM (Crossplane's root CA, to serve a
// function the way Crossplane's package runtime would).
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"time"
)

// validity of every certificate: long enough for any test run or demo, short enough that a
// leaked file is soon worthless. Backdated an hour against clock skew.
const validity = 7 * 24 * time.Hour

// CA is a certificate authority that can sign leaves.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	// PEM is Cert, PEM encoded.
	PEM []byte
	// KeyPEM is Key, PEM encoded (PKCS#8), for a CA handed to cert-manager as a key pair.
	KeyPEM []byte
}

// Leaf describes a certificate to issue.
type Leaf struct {
	CommonName   string
	Organization []string
	Usage        x509.ExtKeyUsage
	IPs          []net.IP
	DNSNames     []string
}

// KeyPair is an issued certificate and its private key, PEM encoded.
type KeyPair struct {
	CertPEM, KeyPEM []byte
}

// NewCA returns a self-signed ECDSA P-256 CA.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now().Add(-time.Hour)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now,
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, PEM: encode("CERTIFICATE", der), KeyPEM: encode("PRIVATE KEY", kder)}, nil
}

// LoadCA reads a CA from a PEM certificate and key (PKCS#1, PKCS#8 or SEC 1), such as the
// tls.crt and tls.key of Crossplane's crossplane-root-ca Secret.
func LoadCA(certPEM, keyPEM []byte) (*CA, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, errors.New("the certificate is not a CA")
	}
	key, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New("the private key cannot sign")
	}
	return &CA{Cert: cert, Key: key, PEM: certPEM, KeyPEM: keyPEM}, nil
}

// Issue signs a new ECDSA P-256 leaf certificate.
func (ca *CA) Issue(l Leaf) (KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, err
	}
	now := time.Now().Add(-time.Hour)
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: l.CommonName, Organization: l.Organization},
		NotBefore:    now,
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{l.Usage},
		IPAddresses:  l.IPs,
		DNSNames:     l.DNSNames,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return KeyPair{}, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, err
	}
	return KeyPair{CertPEM: encode("CERTIFICATE", der), KeyPEM: encode("PRIVATE KEY", kder)}, nil
}

// serial is a random 128-bit serial number, so that certificates of different runs never
// share one.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux.
	}
	return n
}

func encode(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
