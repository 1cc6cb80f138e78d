package kubeconfig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"sync"
	"testing"
	"time"
)

// keyPair is a certificate with its key, as cert-manager keeps it in a Secret.
type keyPair struct {
	cert *x509.Certificate
	key  crypto.Signer
	// chain is the PEM of cert followed by its issuers up to, not including, the root: what
	// cert-manager's CA issuer writes to tls.crt.
	chain []byte
	// root is the PEM of the root CA: what cert-manager writes to ca.crt.
	root []byte
}

var serial int64

// issue signs tpl with parent's key, or self-signs it when parent is nil, the way
// cert-manager's CA issuer (or a self-signed ClusterIssuer for the root) does. ECDSA keeps
// the tests fast.
func issue(t testing.TB, tpl *x509.Certificate, parent *keyPair) *keyPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tpl.SerialNumber = big.NewInt(serial)
	tpl.NotBefore = time.Now().Add(-time.Hour)
	if tpl.NotAfter.IsZero() {
		tpl.NotAfter = time.Now().Add(24 * time.Hour)
	}
	tpl.BasicConstraintsValid = true
	signer, signerCert := crypto.Signer(key), tpl
	if parent != nil {
		signer, signerCert = parent.key, parent.cert
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, signerCert, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	kp := &keyPair{cert: cert, key: key, chain: pemCert(der)}
	if parent == nil {
		kp.root = kp.chain
		return kp
	}
	kp.root = parent.root
	if parent.cert.Subject.String() != parent.cert.Issuer.String() {
		// cert-manager appends the issuing CA's chain, not the self-signed root.
		kp.chain = append(kp.chain, parent.chain...)
	}
	return kp
}

// ca issues a CA certificate named cn.
func ca(t testing.TB, cn string, parent *keyPair) *keyPair {
	return issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: cn}, IsCA: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, parent)
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func (kp *keyPair) keyPEM(t testing.TB) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(kp.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// fixture CAs for tests that only need valid PEM: a root CA, and server CA signed by it.
var (
	fixtureOnce                   sync.Once
	fixtureRoot, fixtureServerCA  *keyPair
	fixtureBundleCA, fixtureOther *keyPair
)

func fixtures(t testing.TB) {
	fixtureOnce.Do(func() {
		fixtureRoot = ca(t, "root-ca", nil)
		fixtureServerCA = ca(t, "root-server-ca", fixtureRoot)
		fixtureBundleCA = ca(t, "corporate-ca", nil)
		fixtureOther = ca(t, "other-ca", nil)
	})
}
