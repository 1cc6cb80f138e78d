package scenarios

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// testSharded installs examples/sharded (RootShard with an external CacheServer, two
// Shards, a FrontProxy and a Kubeconfig for a shard) into the namespace Delete emptied.
func testSharded(t *testing.T, e *env) {
	ctx := t.Context()
	ns := basicNamespace // The example's own namespace, so that live objects compare with its golden render.
	golden := goldenRender(t, e, "sharded")
	wantRefs, wantCerts := goldenRefs(t, golden)

	start := time.Now()
	applyExample(ctx, t, e, "sharded")
	if err := waitCertificatesReady(ctx, e, ns, wantCerts); err != nil {
		t.Fatal(err)
	}
	e.Step("sharded: %d certificates issued %.1fs after apply", wantCerts, time.Since(start).Seconds())

	xrs := map[string]xr{}
	for key := range wantRefs {
		kind, name, _ := strings.Cut(key, "/")
		x, err := waitXR(ctx, e, kind, ns, name, "Ready", "True")
		if err != nil {
			t.Fatal(err)
		}
		xrs[key] = x
	}
	// No RunFunction count here, unlike Basic: the function's counter includes the other lane.
	e.Step("sharded: %d XRs Ready %.1fs after apply (rolled out by Kubernetes onto kwok fake nodes, which stand in for kubelets)", len(xrs), time.Since(start).Seconds())

	t.Run("ComposedAsRendered", func(t *testing.T) {
		for key, x := range xrs {
			if got, want := x.refs(), wantRefs[key]; strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s composed %v, the golden render has %v", key, got, want)
			}
		}
	})
	t.Run("DeploymentsAsRendered", func(t *testing.T) { checkDeployments(ctx, t, e, ns, golden) })
	t.Run("FrontProxyRoutesToTheRootShard", func(t *testing.T) { checkPathMapping(ctx, t, e, ns) })
	t.Run("ShardKubeconfigTrustsTheShard", func(t *testing.T) {
		checkKubeconfigTrust(ctx, t, e, ns, "root", "shard-1-controller-kubeconfig", "shard-1-server")
	})
	t.Run("ShardAvailability", func(t *testing.T) { testShardAvailability(ctx, t, e, ns, "root", "shard-2") })
	t.Run("Encryption", func(t *testing.T) { testEncryption(ctx, t, e, ns, "shard-1") })
	t.Run("RealKCP", func(t *testing.T) {
		dir := os.Getenv("KCP_BIN")
		if dir == "" {
			t.Skip("KCP_BIN is not set: kcp itself is not run (set KCP_BIN to a directory holding kcp, kcp-front-proxy and cache-server to run the composed containers as processes)")
		}
		testShardedRealKCP(ctx, t, e, dir)
	})
}

// checkPathMapping reads the front-proxy's path mapping: /clusters/ and /services/ go to the
// root shard's Service, with the root CA and the front-proxy's requestheader client
// certificate. Shards are deliberately not listed (see docs/differences-from-kcp-operator.md):
// kcp-front-proxy learns them from the root shard through --shards-kubeconfig, which the
// golden comparison of the Deployment's args covers.
func checkPathMapping(ctx context.Context, t *testing.T, e *env, ns string) {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := e.GetJSON(ctx, &cm, "configmap", "-n", ns, "frontproxy-config"); err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Path, Backend string
	}
	if err := yaml.Unmarshal([]byte(cm.Data["path-mapping.yaml"]), &entries); err != nil {
		t.Fatalf("path-mapping.yaml: %v", err)
	}
	got := map[string]string{}
	for _, m := range entries {
		got[m.Path] = m.Backend
	}
	root := "https://root-kcp." + ns + ".svc.cluster.local:6443"
	for _, p := range []string{"/clusters/", "/services/"} {
		if got[p] != root {
			t.Errorf("path mapping %s -> %q, want the root shard %s (mapping: %v)", p, got[p], root, got)
		}
	}
	var dep deployment
	if err := e.GetJSON(ctx, &dep, "deployment", "-n", ns, "frontproxy-front-proxy"); err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--shards-kubeconfig=") {
		t.Errorf("front-proxy args lack --shards-kubeconfig, so it cannot route to shards: %s", args)
	}
}
