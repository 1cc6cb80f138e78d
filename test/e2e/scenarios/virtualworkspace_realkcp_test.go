package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testVirtualWorkspaceRealKCP runs examples/external-virtual-workspace as real kcp: an etcd at
// the example's address, the root shard (told to run no virtual workspaces of its own), its
// proxy, the front-proxy at api.example.com, and the external virtual-workspaces server, whose
// public name vw.example.com resolves to its pod. With the root shard's admin kubeconfig (the example's Kubeconfig XR): kcp's
// Shard root advertises the external server as its virtual workspace URL, and the external
// server answers the APIExport endpoint of tenancy.kcp.io there.
func testVirtualWorkspaceRealKCP(ctx context.Context, t *testing.T, e *env, binDir string, tp topology) {
	if _, err := os.Stat(filepath.Join(binDir, "virtual-workspaces")); err != nil {
		t.Skipf("KCP_BIN=%s holds no virtual-workspaces binary (build kcp's ./cmd/virtual-workspaces too): the external virtual workspace server cannot run", binDir)
	}
	ns := tp.namespace
	c := startRealKCP(ctx, t, e, binDir, ns)
	if _, err := c.RunEtcd(ctx, "etcd."+ns+".svc.cluster.local"); err != nil {
		t.Fatal(err)
	}
	pods := runDeployments(ctx, t, c, ns, "root-kcp", "root-proxy", "root-vw-virtual-workspace", "frontproxy-front-proxy")
	vw := pods["root-vw-virtual-workspace"]
	if err := c.Host("vw.example.com", vw.IP); err != nil {
		t.Fatal(err)
	}
	if err := c.Host("api.example.com", pods["frontproxy-front-proxy"].IP); err != nil {
		t.Fatal(err)
	}
	exited := anyExited(pods)
	kubeconfig := secretKey(ctx, t, e, ns, tp.adminSecret, "kubeconfig")
	admin := podKubectl(t, c, pods["root-kcp"], "root-shard-admin", kubeconfig)
	start := time.Now()
	const vwURL = "https://vw.example.com:6443"
	if err := e.Eventually(ctx, 4*time.Minute, "kcp's Shard root advertises the external virtual workspace server", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "shard", "root", "-o", "jsonpath={.spec.virtualWorkspaceURL}")
		return err == nil && out == vwURL, out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP %s: the root shard (--run-virtual-workspaces=false) answers %.1fs after start; kcp's Shard root has virtualWorkspaceURL %s", ns, time.Since(start).Seconds(), vwURL)

	// The external server, with the same credentials at its own root (its paths are
	// /services/...): the APIExport endpoint of tenancy.kcp.io in workspace root lists the
	// workspaces of every workspace bound to it.
	external := podKubectl(t, c, vw, "root-shard-admin-vw", replaceServer(t, kubeconfig, vwURL, false, nil))
	const endpoint = "/services/apiexport/root/tenancy.kcp.io/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces"
	var out string
	if err := e.Eventually(ctx, 2*time.Minute, "the external virtual workspace server answers "+endpoint, func(ctx context.Context) (bool, string, error) {
		var err error
		out, err = external(ctx, "", "get", "--raw", endpoint)
		return err == nil && strings.Contains(out, `"kind":"WorkspaceList"`), out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP %s: %s%s answered by the external virtual-workspaces server: %s", ns, vwURL, endpoint, firstLine(out, 120))
}

// firstLine is the start of s, for a progress line.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
