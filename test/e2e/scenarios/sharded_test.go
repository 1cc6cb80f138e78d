package scenarios

import (
	"context"
	"crypto/x509"
	"net/url"
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
	wantRefs, wantCerts := golden(t, e, "sharded")

	callsBefore, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	applyExample(ctx, t, e, "sharded")
	if err := waitCertificatesReady(ctx, e, ns, wantCerts); err != nil {
		t.Fatal(err)
	}
	e.Step("sharded: %d certificates issued %.1fs after apply", wantCerts, time.Since(start).Seconds())
	startFakeKubelet(t, e, ns)

	xrs := map[string]xr{}
	for key := range wantRefs {
		kind, name, _ := strings.Cut(key, "/")
		x, err := waitXR(ctx, e, kind, ns, name, "Ready", "True")
		if err != nil {
			t.Fatal(err)
		}
		xrs[key] = x
	}
	calls, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("sharded: %d XRs Ready %.1fs after apply (Deployments marked available by the FakeKubelet), after %d RunFunction calls", len(xrs), time.Since(start).Seconds(), calls-callsBefore)

	t.Run("ComposedAsRendered", func(t *testing.T) {
		for key, x := range xrs {
			if got, want := x.refs(), wantRefs[key]; strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s composed %v, the golden render has %v", key, got, want)
			}
		}
	})
	t.Run("DeploymentsAsRendered", func(t *testing.T) { checkDeployments(ctx, t, e, ns, "sharded") })
	t.Run("FrontProxyRoutesToTheRootShard", func(t *testing.T) { checkPathMapping(ctx, t, e, ns) })
	t.Run("ShardKubeconfigTrustsTheShard", func(t *testing.T) { checkShardKubeconfig(ctx, t, e, ns) })
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

// checkShardKubeconfig checks the Kubeconfig that targets shard-1: its client certificate
// chains to the root shard's client CA (shards share it), and its CA verifies shard-1's
// serving certificate for the server's host.
func checkShardKubeconfig(ctx context.Context, t *testing.T, e *env, ns string) {
	data, err := e.SecretData(ctx, ns, "shard-1-controller-kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	k, err := parseKubeconfig(data["kubeconfig"])
	if err != nil {
		t.Fatal(err)
	}
	server, ca, cert, err := k.current()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	clientCA, err := e.SecretData(ctx, ns, "root-client-ca")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool(clientCA["tls.crt"]), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("shard-1-controller's client certificate does not verify against root-client-ca: %v", err)
	}
	serving, err := e.SecretData(ctx, ns, "shard-1-server")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := leaf(serving["tls.crt"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Verify(x509.VerifyOptions{DNSName: u.Hostname(), Roots: pool(ca), Intermediates: chain(serving["tls.crt"]), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("the kubeconfig's CA does not verify shard-1's serving certificate for %s (server %s): %v", u.Hostname(), server, err)
	}
}
