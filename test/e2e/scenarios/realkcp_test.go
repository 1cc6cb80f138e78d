package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// kubectlFunc runs kubectl inside a pod with one kubeconfig; it returns the combined output.
type kubectlFunc func(ctx context.Context, stdin string, args ...string) (string, error)

// startRealKCP makes the pod network for the real kcp processes of one scenario, in
// <stack dir>/real-kcp/<name>, with the binaries of KCP_BIN; the test stops it.
func startRealKCP(ctx context.Context, t *testing.T, e *env, binDir, name string) *realkcp.Cluster {
	t.Helper()
	c, err := realkcp.New(ctx, realkcp.Options{
		Dir: filepath.Join(e.Dir, "real-kcp", name), KCPBin: binDir,
		Etcd: os.Getenv("E2E_ETCD"), Kubectl: os.Getenv("E2E_KUBECTL"), Reader: e,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// runDeployments runs one pod of each Deployment, in order, and fails the test on error.
func runDeployments(ctx context.Context, t *testing.T, c *realkcp.Cluster, namespace string, names ...string) map[string]*realkcp.Pod {
	t.Helper()
	pods := map[string]*realkcp.Pod{}
	for _, n := range names {
		p, err := c.RunDeployment(ctx, namespace, n)
		if err != nil {
			t.Fatal(err)
		}
		pods[n] = p
	}
	return pods
}

// podKubectl is kubectl inside the pod with the kubeconfig, failing the test on error.
func podKubectl(t *testing.T, c *realkcp.Cluster, p *realkcp.Pod, name string, kubeconfig []byte) kubectlFunc {
	t.Helper()
	k, err := c.Kubectl(p, name, kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testRealKCP runs the basic installation's root-kcp (with an etcd at the example's etcd
// address), root-proxy and frontproxy-front-proxy as real processes from KCP_BIN (package
// realkcp: exactly their rendered command and args), and checks with the admin kubeconfig from
// the Kubeconfig XR's Secret, through the front-proxy at the URL the kubeconfig names, that kcp
// serves workspace root and creates a workspace. Then provider-kubernetes reaches root-proxy
// with the RootShard's own credentials, and testRealKCPInKCP checks what the function composes
// inside kcp against kcp itself.
func testRealKCP(ctx context.Context, t *testing.T, e *env, binDir string) {
	c := startRealKCP(ctx, t, e, binDir, "basic")
	if _, err := c.RunEtcd(ctx, "etcd.kcp.svc.cluster.local"); err != nil {
		t.Fatal(err)
	}
	pods := runDeployments(ctx, t, c, basicNamespace, "root-kcp", "root-proxy", "frontproxy-front-proxy")
	proxy := pods["frontproxy-front-proxy"]
	if err := c.Host("api.example.com", proxy.IP); err != nil {
		t.Fatal(err)
	}

	// The admin kubeconfig, exactly as the Kubeconfig XR wrote it.
	admin := podKubectl(t, c, proxy, "kcp-admin", secretKey(ctx, t, e, basicNamespace, kubeconfigName, "kubeconfig"))
	start := time.Now()
	if err := e.Eventually(ctx, 3*time.Minute, "kcp serves workspace root through the front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspaces")
		for _, p := range pods {
			if err := p.Exited(); err != nil {
				return false, out, err
			}
		}
		return err == nil, out, nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP: kcp answered through the front-proxy %.1fs after start", time.Since(start).Seconds())

	ws := `apiVersion: tenancy.kcp.io/v1alpha1
kind: Workspace
metadata: {name: e2e}
`
	if out, err := admin(ctx, ws, "create", "-f", "-"); err != nil {
		t.Fatalf("create workspace e2e through the front-proxy: %v\n%s", err, out)
	}
	if err := e.Eventually(ctx, 2*time.Minute, "workspace e2e Ready", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspace", "e2e", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Ready", out, nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err := admin(ctx, "", "auth", "whoami")
	if err != nil || !strings.Contains(out, "kcp-admin") {
		t.Errorf("kubectl auth whoami through the front-proxy: %v\n%s", err, out)
	}
	e.Step("RealKCP: workspace e2e Ready, created through the front-proxy with the generated kubeconfig")

	// provider-kubernetes reaches root-proxy at the name the RootShard's access kubeconfig
	// names, as it would through the Service.
	stopRelay, err := e.ReachFromProviders(stack.KCPProxyHost(basicNamespace, "root"), pods["root-proxy"].NetNS(), pods["root-proxy"].IP+":6443")
	if err != nil {
		t.Fatal(err)
	}
	// After the cleanups of the checks below, which delete XRs whose Objects provider-kubernetes
	// must still reach kcp to delete (t.Cleanup runs last-registered first).
	t.Cleanup(stopRelay)
	testRealKCPInKCP(ctx, t, e, c, proxy, admin)
	testRealKCPShared(ctx, t, e, c, pods, admin)
	// On the installation as testRealKCPShared shares it (home workspaces off, Tenants).
	t.Run("PublishedAPI", func(t *testing.T) { testRealKCPAPIs(ctx, t, e, c, pods, admin) })
}

// secretKey is one key of a Secret.
func secretKey(ctx context.Context, t *testing.T, e *env, namespace, secret, key string) []byte {
	t.Helper()
	data, err := e.SecretData(ctx, namespace, secret)
	if err != nil {
		t.Fatal(err)
	}
	if len(data[key]) == 0 {
		t.Fatalf("Secret %s/%s has no %s", namespace, secret, key)
	}
	return data[key]
}

// anyExited returns a check that reports the first of pods whose process has ended, for the
// waits of a real-kcp scenario to fail at once instead of at their timeout.
func anyExited(pods map[string]*realkcp.Pod) func() error {
	return func() error {
		for _, p := range pods {
			if err := p.Exited(); err != nil {
				return err
			}
		}
		return nil
	}
}
