package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
)

// pki holds the paths of the files writePKI writes, and the CA for more client certificates.
type pki struct {
	CA *certs.CA

	CACert, ServerCert, ServerKey, AdminCert, AdminKey, SAKey, SAPub string
}

// writePKI writes a throwaway CA, a kube-apiserver serving certificate for 127.0.0.1, an
// admin client certificate in group system:masters, and a service account signing key pair
// into dir. ECDSA P-256 keys: fast to generate and accepted everywhere kube-apiserver wants a
// key.
func writePKI(dir string) (pki, error) {
	p := pki{
		CACert:     filepath.Join(dir, "ca.crt"),
		ServerCert: filepath.Join(dir, "apiserver.crt"),
		ServerKey:  filepath.Join(dir, "apiserver.key"),
		AdminCert:  filepath.Join(dir, "admin.crt"),
		AdminKey:   filepath.Join(dir, "admin.key"),
		SAKey:      filepath.Join(dir, "sa.key"),
		SAPub:      filepath.Join(dir, "sa.pub"),
	}
	ca, err := certs.NewCA("e2e-ca")
	if err != nil {
		return p, err
	}
	p.CA = ca
	if err := os.WriteFile(p.CACert, ca.PEM, 0o600); err != nil {
		return p, err
	}
	server, err := ca.Issue(certs.Leaf{
		CommonName: "kube-apiserver",
		Usage:      x509.ExtKeyUsageServerAuth,
		IPs:        []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 0, 0, 1)},
		DNSNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	})
	if err != nil {
		return p, err
	}
	if err := writePair(server, p.ServerCert, p.ServerKey); err != nil {
		return p, err
	}
	admin, err := ca.Issue(certs.Leaf{CommonName: "admin", Organization: []string{"system:masters"}, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		return p, err
	}
	if err := writePair(admin, p.AdminCert, p.AdminKey); err != nil {
		return p, err
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, err
	}
	saDER, err := x509.MarshalPKCS8PrivateKey(saKey)
	if err != nil {
		return p, err
	}
	if err := writePEM(p.SAKey, "PRIVATE KEY", saDER); err != nil {
		return p, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return p, err
	}
	return p, writePEM(p.SAPub, "PUBLIC KEY", pubDER)
}

func writePair(kp certs.KeyPair, certPath, keyPath string) error {
	if err := os.WriteFile(certPath, kp.CertPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(keyPath, kp.KeyPEM, 0o600)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
