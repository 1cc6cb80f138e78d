// Command pkigen writes the fixture PKI the render harness puts into the Secrets of
// simulated cert-manager Certificates: a self-signed root CA, an intermediate CA signed by
// it, and a leaf signed by the intermediate. Run it through `go generate ./test/render`.
//
// Keys are random, so every run writes different files, and the golden files that embed
// certificate data (merged CA bundles, config hashes) change too: regenerate only on purpose.
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Fixed validity, so simulated Certificate statuses never depend on the clock.
var (
	notBefore = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter  = time.Date(2034, 1, 1, 0, 0, 0, 0, time.UTC)
)

type pair struct {
	cert *x509.Certificate
	key  *rsa.PrivateKey
}

func main() {
	out := flag.String("out", "testdata/pki", "directory to write <name>.crt and <name>.key into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "pkigen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	root, err := issue("root-ca", 1, true, nil)
	if err != nil {
		return err
	}
	intermediate, err := issue("intermediate-ca", 2, true, root)
	if err != nil {
		return err
	}
	leaf, err := issue("leaf", 3, false, intermediate)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, p := range map[string]*pair{"root-ca": root, "intermediate-ca": intermediate, "leaf": leaf} {
		if err := write(filepath.Join(out, name), p); err != nil {
			return err
		}
	}
	return nil
}

// issue creates a certificate for cn signed by parent, or self-signed when parent is nil.
func issue(cn string, serial int64, isCA bool, parent *pair) (*pair, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	tpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: "kcp-render-fixture-" + cn},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		BasicConstraintsValid: true,
		IsCA:                  isCA,
	}
	if isCA {
		tpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	} else {
		tpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
		tpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		tpl.DNSNames = []string{"kcp-render-fixture.example.com"}
	}
	signer, signerKey := tpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &pair{cert: cert, key: key}, nil
}

func write(base string, p *pair) error {
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.cert.Raw})
	key := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(p.key)})
	if err := os.WriteFile(base+".crt", crt, 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".key", key, 0o644)
}
