package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// testRealKCPMultiCluster runs examples/multi-cluster as real kcp (package realkcp): the root
// shard, its proxy and the front-proxy from the Deployments and Secrets of cluster A, shard-b
// and frontproxy-b from those of cluster B (what provider-kubernetes delivered there: their
// certificates, and the root shard's CAs without their keys). Every pod shares one network,
// as two clusters whose public names route to each other do; each public name the example
// uses (the root shard's and shard-b's shardBaseURL, both front-proxies' hostnames) resolves
// to the pod behind it. Through frontproxy-b, with an admin Kubeconfig XR's kubeconfig issued
// on the control plane: shard-b has registered with the root shard, and a workspace placed on
// shard-b is Ready, served through frontproxy-b, and lives on shard-b.
func testRealKCPMultiCluster(ctx context.Context, t *testing.T, e *env, binDir, ns string, clusterB realkcp.Reader) {
	c := startRealKCP(ctx, t, e, binDir, "multi-cluster")
	if _, err := c.RunEtcd(ctx, "etcd.kcp.svc.cluster.local"); err != nil {
		t.Fatal(err)
	}
	pods := runDeployments(ctx, t, c, ns, "root-kcp", "root-proxy", "frontproxy-front-proxy")
	for _, name := range []string{"shard-b-shard-kcp", "frontproxy-b-front-proxy"} {
		p, err := c.RunDeploymentOf(ctx, clusterB, ns, name)
		if err != nil {
			t.Fatalf("run %s from cluster B: %v", name, err)
		}
		pods[name] = p
	}
	for host, pod := range map[string]string{
		"root.kcp.cluster-a.example.com":    "root-kcp",
		"shard-b.kcp.cluster-b.example.com": "shard-b-shard-kcp",
		"api.example.com":                   "frontproxy-front-proxy",
		"api-b.example.com":                 "frontproxy-b-front-proxy",
	} {
		if err := c.Host(host, pods[pod].IP); err != nil {
			t.Fatal(err)
		}
	}
	exited := anyExited(pods)

	adminXR := `apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: multi-admin, namespace: ` + ns + `}
spec:
  target: {frontProxyRef: {name: frontproxy-b}}
  username: kcp-admin
  groups: ["system:kcp:admin"]
  validity: 24h
  secretRef: {name: multi-admin-kubeconfig}
`
	if err := e.Apply(ctx, []byte(adminXR)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "kubeconfigs", ns, "multi-admin") })
	if _, err := waitXR(ctx, e, "Kubeconfig", ns, "multi-admin", "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	admin := podKubectl(t, c, pods["frontproxy-b-front-proxy"], "multi-admin", secretKey(ctx, t, e, ns, "multi-admin-kubeconfig", "kubeconfig"))
	if s := serverOf(ctx, t, admin); !strings.HasPrefix(s, "https://api-b.example.com:6443/") {
		t.Errorf("the admin kubeconfig of frontproxy-b opens %s, want frontproxy-b's https://api-b.example.com:6443", s)
	}

	start := time.Now()
	if err := e.Eventually(ctx, 4*time.Minute, "shard-b, in cluster B, registered with the root shard in cluster A", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "shards", "-o", "jsonpath={range .items[*]}{.metadata.name}={.spec.baseURL} {end}")
		return err == nil && strings.Contains(out, "shard-b=https://shard-b.kcp.cluster-b.example.com:6443"), out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP multi-cluster: shard-b, run from cluster B's Deployment and Secrets, registered with the root shard of cluster A %.1fs after start, at its shardBaseURL; seen through frontproxy-b", time.Since(start).Seconds())

	workspaceOnEachShard(ctx, t, e, admin, ns, exited, "shard-b")
}
