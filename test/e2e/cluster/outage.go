package cluster

import (
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
)

// apiOutage is a kube-apiserver kept down by StopAPIServer until StartAPIServer.
type apiOutage struct {
	resume chan struct{}
	// done receives the error of starting the process again.
	done chan error
}

// StopAPIServer kills the cluster's kube-apiserver (SIGKILL, as a crashed or unreachable
// control plane) and keeps it down until StartAPIServer. etcd keeps running, so nothing
// stored is lost. Exited does not report the stopped process meanwhile.
func (c *Cluster) StopAPIServer() error {
	api := c.Process("kube-apiserver")
	if api == nil {
		return errors.New("no kube-apiserver runs")
	}
	c.logMu.Lock()
	if c.outage != nil {
		c.logMu.Unlock()
		return errors.New("kube-apiserver is stopped already")
	}
	o := &apiOutage{resume: make(chan struct{}), done: make(chan error, 1)}
	c.outage = o
	c.logMu.Unlock()
	stopped := make(chan struct{})
	go func() {
		o.done <- api.Outage(func() {
			close(stopped)
			<-o.resume
		})
	}()
	<-stopped
	return nil
}

// StartAPIServer starts the kube-apiserver StopAPIServer stopped, with the same command line
// (same address, same etcd, same certificates), and waits until /readyz answers ok.
func (c *Cluster) StartAPIServer(timeout time.Duration) error {
	c.logMu.Lock()
	o := c.outage
	c.outage = nil
	c.logMu.Unlock()
	if o == nil {
		return errors.New("kube-apiserver was not stopped")
	}
	close(o.resume)
	if err := <-o.done; err != nil {
		return fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	return c.waitReady(timeout)
}

// EmbeddedKubeconfig returns a kubeconfig for the cluster's URL with a new client certificate
// of the cluster's CA for user name in groups, everything embedded (no file paths): what a
// platform stores in a Secret for a controller elsewhere (provider-kubernetes) to use.
func (c *Cluster) EmbeddedKubeconfig(name string, groups ...string) ([]byte, error) {
	kp, err := c.pki.CA.Issue(certs.Leaf{CommonName: name, Organization: groups, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(c.pki.CACert)
	if err != nil {
		return nil, err
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: cluster
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: default
  context:
    cluster: cluster
    user: %s
current-context: default
`, c.URL, b64(ca), name, b64(kp.CertPEM), b64(kp.KeyPEM), name), nil
}
