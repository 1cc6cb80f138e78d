package kcpstandin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
)

// backendPKI is what every backend of one stand-in shares: its own throwaway CA (nothing
// outside the stand-in trusts it), a serving certificate for 127.0.0.1, the admin client
// certificate the front and the test helpers use, and a service account key pair (which
// kube-apiserver requires).
type backendPKI struct {
	dir                                   string
	caPEM, adminCert, adminKey            []byte
	caFile, serverCertFile, serverKeyFile string
	saKeyFile, saPubFile                  string
}

func writeBackendPKI(dir string) (backendPKI, error) {
	p := backendPKI{
		dir:            dir,
		caFile:         filepath.Join(dir, "ca.crt"),
		serverCertFile: filepath.Join(dir, "apiserver.crt"),
		serverKeyFile:  filepath.Join(dir, "apiserver.key"),
		saKeyFile:      filepath.Join(dir, "sa.key"),
		saPubFile:      filepath.Join(dir, "sa.pub"),
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, err
	}
	ca, err := certs.NewCA("kcp-standin-backend-ca")
	if err != nil {
		return p, err
	}
	p.caPEM = ca.PEM
	server, err := ca.Issue(certs.Leaf{CommonName: "kcp-standin-backend", Usage: x509.ExtKeyUsageServerAuth, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		return p, err
	}
	admin, err := ca.Issue(certs.Leaf{CommonName: "kcp-standin-front", Organization: []string{"system:masters"}, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		return p, err
	}
	p.adminCert, p.adminKey = admin.CertPEM, admin.KeyPEM
	sa, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, err
	}
	saDER, err := x509.MarshalPKCS8PrivateKey(sa)
	if err != nil {
		return p, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return p, err
	}
	for f, b := range map[string][]byte{
		p.caFile: ca.PEM, p.serverCertFile: server.CertPEM, p.serverKeyFile: server.KeyPEM,
		p.saKeyFile: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: saDER}),
		p.saPubFile: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}),
	} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			return p, err
		}
	}
	return p, nil
}

// restConfig is an admin configuration for the backend at server.
func (p backendPKI) restConfig(server string) *rest.Config {
	return &rest.Config{
		Host: server,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: p.caPEM, CertData: p.adminCert, KeyData: p.adminKey,
		},
		// Never a proxy: the backends are on the network namespace's loopback.
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
		QPS:   50, Burst: 100,
	}
}

// transport is the front's admin transport to the backends.
func (p backendPKI) transport() (http.RoundTripper, error) {
	return rest.TransportFor(p.restConfig("https://127.0.0.1"))
}
