package scenarios

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// testShardedRealKCP runs examples/sharded as real kcp (package realkcp): an etcd at the
// example's address, the CacheServer, the root shard and its proxy, shard-1 and shard-2 and the
// front-proxy, each with exactly its rendered command and args. Through the front-proxy, with
// an admin Kubeconfig XR's kubeconfig: every shard has registered with the root shard; a
// workspace placed on each shard (by a label on kcp's Shard object and the workspace's
// location selector) becomes Ready, is served through the front-proxy, and lives on that shard
// (its logical cluster answers on the shard itself); the example's Kubeconfig for shard-1
// reaches shard-1 directly.
func testShardedRealKCP(ctx context.Context, t *testing.T, e *env, binDir string) {
	const ns = basicNamespace
	c := startRealKCP(ctx, t, e, binDir, "sharded")
	etcd, err := c.RunEtcd(ctx, "etcd.kcp.svc.cluster.local")
	if err != nil {
		t.Fatal(err)
	}
	pods := runDeployments(ctx, t, c, ns, "cache-cache-server", "root-kcp", "root-proxy", "shard-1-shard-kcp", "shard-2-shard-kcp", "frontproxy-front-proxy")
	proxy := pods["frontproxy-front-proxy"]
	if err := c.Host("api.example.com", proxy.IP); err != nil {
		t.Fatal(err)
	}
	exited := anyExited(pods)

	// An admin kubeconfig through the front-proxy, from a Kubeconfig XR as a user would make it.
	adminXR := `apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: sharded-admin, namespace: ` + ns + `}
spec:
  target: {frontProxyRef: {name: frontproxy}}
  username: kcp-admin
  groups: ["system:kcp:admin"]
  validity: 24h
  secretRef: {name: sharded-admin-kubeconfig}
`
	if err := e.Apply(ctx, []byte(adminXR)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "kubeconfigs", ns, "sharded-admin") })
	if _, err := waitXR(ctx, e, "Kubeconfig", ns, "sharded-admin", "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	admin := podKubectl(t, c, proxy, "sharded-admin", secretKey(ctx, t, e, ns, "sharded-admin-kubeconfig", "kubeconfig"))

	start := time.Now()
	if err := e.Eventually(ctx, 4*time.Minute, "root, shard-1 and shard-2 registered with the root shard", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "shards", "-o", "name")
		return err == nil && strings.Contains(out, "shard.core.kcp.io/shard-1") && strings.Contains(out, "shard.core.kcp.io/shard-2"), out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP sharded: shard-1 and shard-2 registered with the root shard %.1fs after start, seen through the front-proxy", time.Since(start).Seconds())

	workspaceOnEachShard(ctx, t, e, admin, ns, exited, "shard-1", "shard-2")

	// A shard that stops takes no new workspace until it is back: provider-kubernetes reaches
	// root-proxy, as the RootShard's access kubeconfig names it, to annotate kcp's Shard.
	stopRelay, err := e.ReachFromProviders(stack.KCPProxyHost(ns, "root"), pods["root-proxy"].NetNS(), pods["root-proxy"].IP+":6443")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("ShardAvailability", func(t *testing.T) {
		const shard = "shard-2-shard-kcp"
		stop := func() {
			pods[shard].Stop()
			delete(pods, shard) // stopped on purpose: exited() no longer watches it
		}
		restart := func() func() error {
			p, err := c.RunDeployment(ctx, ns, shard)
			if err != nil {
				t.Fatal(err)
			}
			pods[shard] = p
			return exited
		}
		testShardAvailabilityOnRealKCP(ctx, t, e, admin, ns, "root", "shard-2", stop, restart)
	})
	stopRelay()

	t.Run("Encryption", func(t *testing.T) {
		const shard = "shard-1-shard-kcp"
		restart := func() {
			pods[shard].Stop()
			p, err := c.RunDeployment(ctx, ns, shard)
			if err != nil {
				t.Fatal(err)
			}
			pods[shard] = p
		}
		rewrite := func(job string) (string, error) { return c.RunJob(ctx, ns, job) }
		testEncryptionOnRealKCP(ctx, t, e, admin, etcd, ns, "shard-1", restart, rewrite)
	})

	// The example's Kubeconfig for shard-1: its CA trusts shard-1's serving certificate and
	// shard-1 accepts its client certificate.
	controller := podKubectl(t, c, proxy, "shard-1-controller", secretKey(ctx, t, e, ns, "shard-1-controller-kubeconfig", "kubeconfig"))
	out, err := controller(ctx, "", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if err != nil || out != "shard-1-controller" {
		t.Errorf("kubectl auth whoami with the shard-1-controller kubeconfig, against shard-1: %v %q", err, out)
	}
	e.Step("RealKCP sharded: Kubeconfig shard-1-controller authenticated by shard-1 itself at %s", serverOf(ctx, t, controller))

	// Where kcp wrote: every component under the key prefix its XR composed (the example's
	// cache server asks for /cache, where kcp v0.32.3 puts it whatever --etcd-prefix says).
	t.Run("EtcdKeyspaces", func(t *testing.T) {
		out, err := etcd.Command(ctx, nil, os.Getenv(envEtcdctl), "get", "", "--prefix", "--keys-only").CombinedOutput()
		if err != nil {
			t.Fatalf("etcdctl get --prefix --keys-only in the etcd pod: %v\n%s", err, out)
		}
		keys := map[string]int{}
		for _, k := range strings.Fields(string(out)) {
			if k == "compact_rev_key" || k == "/compact_rev_key" {
				// Kubernetes' storage compactor, which kcp runs every five minutes, keeps its
				// revision outside every prefix: not data of any component.
				continue
			}
			first, _, _ := strings.Cut(strings.TrimPrefix(k, "/"), "/")
			keys["/"+first]++
		}
		var got []string
		for p := range keys {
			got = append(got, p)
		}
		slices.Sort(got)
		if diff := cmp.Diff([]string{"/cache", "/root", "/shard-1", "/shard-2"}, got); diff != "" {
			t.Errorf("etcd key prefixes kcp wrote under (keys per prefix %v): -want, +got:\n%s", keys, diff)
		}
		e.Step("RealKCP sharded: etcd holds keys only under the composed prefixes: %v", keys)
	})
}

// workspaceOnEachShard places a workspace on each shard (a label on kcp's Shard object and the
// workspace's location selector) and checks, with the admin kubeconfig through the
// front-proxy, that it becomes Ready, is served through the front-proxy, and lives on that
// shard: the shard itself, at its Service, serves the workspace's logical cluster. exited
// reports a real kcp process that ended. A Shard XR's kcp Shard has the XR's name, and its
// Service is <shard>-shard-kcp.
func workspaceOnEachShard(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, ns string, exited func() error, shards ...string) {
	t.Helper()
	services := map[string]string{}
	for _, shard := range shards {
		services[shard] = shard + "-shard-kcp"
	}
	workspaceOnShards(ctx, t, e, admin, ns, exited, services)
}

// workspaceOnShards is workspaceOnEachShard for kcp's Shards named by the keys of services,
// each served by the Service its value names: the root shard's kcp Shard is root, its Service
// <root shard>-kcp.
func workspaceOnShards(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, ns string, exited func() error, services map[string]string) {
	t.Helper()
	shards := slices.Sorted(maps.Keys(services))
	for _, shard := range shards {
		if out, err := admin(ctx, "", "label", "shard", shard, "--overwrite", "e2e.kcp.crossplane.io/shard="+shard); err != nil {
			t.Fatalf("label kcp's Shard %s: %v\n%s", shard, err, out)
		}
		ws := fmt.Sprintf(`apiVersion: tenancy.kcp.io/v1alpha1
kind: Workspace
metadata: {name: on-%[1]s}
spec:
  location: {selector: {matchLabels: {e2e.kcp.crossplane.io/shard: %[1]s}}}
`, shard)
		if out, err := admin(ctx, ws, "create", "-f", "-"); err != nil {
			t.Fatalf("create workspace on-%s: %v\n%s", shard, err, out)
		}
	}
	for _, shard := range shards {
		name := "on-" + shard
		start := time.Now()
		var cluster string
		if err := e.Eventually(ctx, 3*time.Minute, "workspace "+name+" Ready", func(ctx context.Context) (bool, string, error) {
			out, err := admin(ctx, "", "get", "workspace", name, "-o", "jsonpath={.status.phase} {.spec.cluster}")
			phase, cl, _ := strings.Cut(out, " ")
			cluster = cl
			return err == nil && phase == "Ready", out, exited()
		}); err != nil {
			t.Fatal(err)
		}
		// Served through the front-proxy, which routes root:<name> to the shard it lives on.
		if out, err := admin(ctx, "", "--server="+serverOf(ctx, t, admin)+":"+name, "create", "configmap", "e2e", "--from-literal=shard="+shard); err != nil {
			t.Fatalf("create a ConfigMap in root:%s through the front-proxy: %v\n%s", name, err, out)
		}
		// And it lives on that shard: the shard itself serves its logical cluster.
		url := fmt.Sprintf("https://%s.%s.svc.cluster.local:6443/clusters/%s", services[shard], ns, cluster)
		out, err := admin(ctx, "", "--server="+url, "get", "configmap", "e2e", "-o", "jsonpath={.data.shard}")
		if err != nil || out != shard {
			t.Errorf("workspace %s (logical cluster %s) is not on %s: reading its ConfigMap from %s: %v %q", name, cluster, shard, url, err, out)
		}
		e.Step("RealKCP: workspace root:%s Ready %.1fs after create, on %s (logical cluster %s answers at %s), served through the front-proxy", name, time.Since(start).Seconds(), shard, cluster, url)
	}
}

// serverOf is the server URL of the kubeconfig's current context (a workspace URL,
// https://<front-proxy>/clusters/root).
func serverOf(ctx context.Context, t *testing.T, k kubectlFunc) string {
	t.Helper()
	out, err := k(ctx, "", "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
	if err != nil || !strings.HasPrefix(out, "https://") {
		t.Fatalf("the kubeconfig's server: %v %q", err, out)
	}
	return out
}
