package stack

import (
	"context"
	_ "embed"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

const (
	crossplaneNamespace = "crossplane-system"
	crossplaneUser      = "system:serviceaccount:crossplane-system:crossplane"

	// Secrets `crossplane core init` writes: Crossplane's CA, and the client certificate it
	// presents to functions.
	rootCASecret    = "crossplane-root-ca"
	clientTLSSecret = "crossplane-tls-client"
	serverTLSSecret = "crossplane-tls-server"
)

//go:embed manifests/crossplane-rbac.yaml
var crossplaneRBAC []byte

// startCrossplane initialises Crossplane (CRDs, CA and client certificate), grants it the
// Helm chart's permissions, and runs core (as the crossplane service account's user) and the
// RBAC manager (as admin: its own permissions are not under test).
func (s *Stack) startCrossplane(ctx context.Context) error {
	if _, err := s.Kubectl(ctx, nil, "create", "namespace", crossplaneNamespace); err != nil {
		return err
	}
	if err := s.Apply(ctx, crossplaneRBAC); err != nil {
		return err
	}
	env := []string{
		"POD_NAMESPACE=" + crossplaneNamespace,
		"CRDS_PATH=" + s.opts.CrossplaneCRDs,
		"TLS_CA_SECRET_NAME=" + rootCASecret,
		"TLS_CLIENT_SECRET_NAME=" + clientTLSSecret,
		"TLS_SERVER_SECRET_NAME=" + serverTLSSecret,
	}

	// init races its own CRD discovery ("no matches for kind Lock") on a fresh API server:
	// retry it.
	initLog := filepath.Join(s.Dir, "crossplane-init.log")
	initArgs := []string{"core", "init", "--webhook-enabled=false"}
	runtime := "--package-runtime=Function=External"
	if s.opts.ProviderKubernetes != nil {
		// The Helm chart's default: a ManagedResourceActivationPolicy activating every managed
		// resource (a SafeStart provider's, such as provider-kubernetes', start inactive).
		initArgs = append(initArgs, "--activation=*")
		runtime = "--package-runtime=Function=External;Provider=External"
	}
	if err := s.Eventually(ctx, 2*time.Minute, "crossplane core init", func(ctx context.Context) (bool, string, error) {
		p, err := proc.Start(initLog, append(env, "KUBECONFIG="+s.Kubeconfig), s.opts.Bin.CrossplaneCore, initArgs...)
		if err != nil {
			return false, "", err
		}
		if err := p.Wait(); err != nil {
			return false, proc.Tail(initLog, 1), nil
		}
		return true, "", nil
	}); err != nil {
		return err
	}

	clientDir := filepath.Join(s.Dir, "crossplane-client-tls")
	if err := s.writeSecretFiles(ctx, crossplaneNamespace, clientTLSSecret, clientDir, "ca.crt", "tls.crt", "tls.key"); err != nil {
		return err
	}
	kubeconfig, err := s.UserKubeconfig(crossplaneUser, "system:serviceaccounts", "system:serviceaccounts:"+crossplaneNamespace)
	if err != nil {
		return err
	}
	// Crossplane writes into its cache directories but does not create them.
	for _, d := range []string{"xpkg", "xfn"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, "cache", d), 0o755); err != nil {
			return err
		}
	}
	ports, err := cluster.FreePorts(2)
	if err != nil {
		return err
	}
	s.CrossplaneMetrics = fmt.Sprintf("127.0.0.1:%d", ports[0])
	health := fmt.Sprintf("127.0.0.1:%d", ports[1])
	args := append([]string{"core", "start",
		"--webhook-enabled=false",
		runtime,
		fmt.Sprintf("--metrics-port=%d", ports[0]),
		fmt.Sprintf("--health-probe-port=%d", ports[1]),
		"--tls-client-certs-dir=" + clientDir,
		"--xpkg-cache-dir=" + filepath.Join(s.Dir, "cache", "xpkg"),
		"--xfn-cache-dir=" + filepath.Join(s.Dir, "cache", "xfn"),
	}, s.opts.CrossplaneArgs...)
	if _, err := s.start("crossplane", append(env, "KUBECONFIG="+kubeconfig), s.opts.Bin.CrossplaneCore, args...); err != nil {
		return err
	}
	// The RBAC manager serves metrics on :8080 and has no flag to move them: it runs in a
	// network namespace of its own, as in its pod, reaching only the API server, so that the
	// stacks of two tests side by side (TestKCP, TestCrossplaneNext) do not collide.
	pn, err := newPodNet(ctx, filepath.Join(s.Dir, "crossplane-rbac-manager-netns.log"))
	if err != nil {
		return err
	}
	s.rbacNet = pn // Stop closes it once the manager has stopped
	api, err := hostPort(s.URL)
	if err != nil {
		return err
	}
	if err := pn.forward(api); err != nil {
		return fmt.Errorf("forwarding the API server into the RBAC manager's network namespace: %w", err)
	}
	rbac := pn.command(s.opts.Bin.CrossplaneCore, "rbac", "start")
	if _, err := s.start("crossplane-rbac-manager", append(env, "KUBECONFIG="+s.Kubeconfig), rbac[0], rbac[1:]...); err != nil {
		return err
	}
	return s.Eventually(ctx, 2*time.Minute, "Crossplane /readyz", func(ctx context.Context) (bool, string, error) {
		return HTTPOK(ctx, "http://"+health+"/readyz")
	})
}

// writeSecretFiles writes the given keys of a Secret's data to files of the same names in
// dir.
func (s *Stack) writeSecretFiles(ctx context.Context, namespace, name, dir string, keys ...string) error {
	data, err := s.SecretData(ctx, namespace, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, k := range keys {
		v, ok := data[k]
		if !ok {
			return fmt.Errorf("secret %s/%s has no key %q", namespace, name, k)
		}
		if err := os.WriteFile(filepath.Join(dir, k), v, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// SecretData returns a Secret's data, decoded.
func (s *Stack) SecretData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	var sec struct {
		Data map[string]string `json:"data"`
	}
	if err := s.GetJSON(ctx, &sec, "secret", "-n", namespace, name); err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(sec.Data))
	for k, v := range sec.Data {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("secret %s/%s key %s: %w", namespace, name, k, err)
		}
		out[k] = b
	}
	return out, nil
}
