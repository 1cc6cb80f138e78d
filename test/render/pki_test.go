package render

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"
)

// TestFixturePKI checks the committed fixtures form a chain root → intermediate → leaf and
// each key matches its certificate, so rendered Secrets hold real, usable certificates.
func TestFixturePKI(t *testing.T) {
	p, err := FixturePKI()
	if err != nil {
		t.Fatal(err)
	}
	for name, kp := range map[string]KeyPair{"root-ca": p.RootCA, "intermediate-ca": p.IntermediateCA, "leaf": p.Leaf} {
		if _, err := tls.X509KeyPair(kp.Cert, kp.Key); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	pool := func(pem []byte) *x509.CertPool {
		cp := x509.NewCertPool()
		if !cp.AppendCertsFromPEM(pem) {
			t.Fatal("cannot parse fixture PEM")
		}
		return cp
	}
	leaf, err := tls.X509KeyPair(p.Leaf.Cert, p.Leaf.Key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(leaf.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	// Verify at a fixed time inside the fixtures' validity, so the test never expires.
	if _, err := cert.Verify(x509.VerifyOptions{
		Roots:         pool(p.RootCA.Cert),
		Intermediates: pool(p.IntermediateCA.Cert),
		CurrentTime:   time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	}); err != nil {
		t.Errorf("leaf does not chain to the root through the intermediate: %v", err)
	}
}
