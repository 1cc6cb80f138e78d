package stack

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
)

// certManagerNamespace holds the Secrets of ClusterIssuers (cert-manager's
// --cluster-resource-namespace), as in a Helm install of cert-manager.
const certManagerNamespace = "cert-manager"

// startCertManager applies cert-manager's CRDs and runs its controllers. No webhook or
// cainjector runs: the CRDs carry their OpenAPI validation, which is what the webhook's
// absence costs least.
func (s *Stack) startCertManager(ctx context.Context) error {
	files, err := filepath.Glob(filepath.Join(s.opts.CertManagerCRDs, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no cert-manager CRDs in %q (%s): %w", s.opts.CertManagerCRDs, EnvCertManagerCRDs, err)
	}
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		all = append(append(all, b...), "\n---\n"...)
	}
	if err := s.Apply(ctx, all); err != nil {
		return err
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		// File names are <group>_<plural>.yaml; the CRD's name is <plural>.<group>.
		group, plural, ok := strings.Cut(name, "_")
		if !ok {
			continue
		}
		if err := s.WaitCondition(ctx, time.Minute, "Established", "crd", plural+"."+group); err != nil {
			return err
		}
	}
	if _, err := s.Kubectl(ctx, nil, "create", "namespace", certManagerNamespace); err != nil {
		return err
	}
	ports, err := cluster.FreePorts(2)
	if err != nil {
		return err
	}
	healthz := fmt.Sprintf("127.0.0.1:%d", ports[1])
	if _, err := s.start("cert-manager-controller", nil, s.opts.Bin.CertManager,
		"--kubeconfig="+s.Kubeconfig,
		"--cluster-resource-namespace="+certManagerNamespace,
		fmt.Sprintf("--metrics-listen-address=127.0.0.1:%d", ports[0]),
		"--healthz-listen-address="+healthz,
	); err != nil {
		return err
	}
	return s.Eventually(ctx, time.Minute, "cert-manager /livez", func(ctx context.Context) (bool, string, error) {
		return HTTPOK(ctx, "http://"+healthz+"/livez")
	})
}

// HTTPOK reports whether a plain HTTP GET answers 200.
func HTTPOK(ctx context.Context, url string) (bool, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, "", err
	}
	resp, err := noProxyClient.Do(req)
	if err != nil {
		return false, "", err
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK, resp.Status, nil
}

// noProxyClient never uses a proxy: everything it talks to is on this namespace's loopback.
var noProxyClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}
