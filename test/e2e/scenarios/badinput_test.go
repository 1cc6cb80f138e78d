package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// testBadInput makes the mistakes platform engineers make, next to the running basic
// installation: an XR the API server must reject, an XR whose reference points nowhere, and
// a running FrontProxy whose RootShard reference goes missing, which must not delete
// anything it composed.
func testBadInput(t *testing.T, e *env) {
	ctx := t.Context()
	ns := basicNamespace

	t.Run("RejectedByTheAPIServer", func(t *testing.T) {
		bad := `apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata: {name: both-cas, namespace: kcp}
spec:
  external: {hostname: api.example.com, port: 6443}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
    caSecretRef: {name: my-ca}
  cache: {}
  etcd: {endpoints: ["http://etcd:2379"]}
`
		err := e.Apply(ctx, []byte(bad))
		if err == nil {
			t.Fatal("the API server admitted a RootShard with both certificates.issuerRef and certificates.caSecretRef")
		}
		if !strings.Contains(err.Error(), "set either issuerRef or caSecretRef, not both") {
			t.Errorf("rejection does not name the rule: %v", err)
		}
	})

	t.Run("MissingReferenceReportedInCondition", func(t *testing.T) {
		orphan := `apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: orphan, namespace: kcp}
spec:
  target: {frontProxyRef: {name: nope}}
  username: orphan
  validity: 24h
  secretRef: {name: orphan-kubeconfig}
`
		if err := e.Apply(ctx, []byte(orphan)); err != nil {
			t.Fatal(err)
		}
		x, err := waitXR(ctx, e, "Kubeconfig", ns, "orphan", "InputsReady", "False")
		if err != nil {
			t.Fatal(err)
		}
		c := x.conditions()
		if msg := c["InputsReady"].Message; !strings.Contains(msg, "FrontProxy nope (spec.target.frontProxyRef.name) does not exist") {
			t.Errorf("InputsReady message %q does not name the missing FrontProxy and the field", msg)
		}
		if c["Ready"].Status == "True" {
			t.Errorf("Kubeconfig orphan is Ready without its FrontProxy")
		}
		if _, err := e.Kubectl(ctx, nil, "get", "secret", "-n", ns, "orphan-kubeconfig"); err == nil {
			t.Errorf("Secret orphan-kubeconfig exists although the Kubeconfig's target does not")
		}
		if _, err := e.Kubectl(ctx, nil, "delete", "kubeconfig.kcp.crossplane.io", "-n", ns, "orphan", "--wait=false"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("RunningFrontProxyKeepsItsObjectsWhenItsRootShardGoesMissing", func(t *testing.T) {
		before, err := getXR(ctx, e, "FrontProxy", ns, "frontproxy")
		if err != nil {
			t.Fatal(err)
		}
		objects, err := composed(ctx, e, ns, composedKinds...)
		if err != nil {
			t.Fatal(err)
		}
		var dep deployment
		if err := e.GetJSON(ctx, &dep, "deployment", "-n", ns, "frontproxy-front-proxy"); err != nil {
			t.Fatal(err)
		}

		patch := func(root string) {
			t.Helper()
			p := fmt.Sprintf(`{"spec":{"rootShard":{"ref":{"name":%q}}}}`, root)
			if _, err := e.Kubectl(ctx, []byte(p), "patch", "frontproxy.kcp.crossplane.io", "-n", ns, "frontproxy", "--type=merge", "--patch-file=/dev/stdin"); err != nil {
				t.Fatal(err)
			}
		}
		patch("missing-root")
		t.Cleanup(func() { patch("root") })

		x, err := waitXR(ctx, e, "FrontProxy", ns, "frontproxy", "InputsReady", "False")
		if err != nil {
			t.Fatal(err)
		}
		if msg := x.conditions()["InputsReady"].Message; !strings.Contains(msg, "RootShard missing-root (spec.rootShard.ref.name) does not exist") || !strings.Contains(msg, "kept unchanged") {
			t.Errorf("InputsReady message %q does not name the missing RootShard and say that everything is kept", msg)
		}
		// Give Crossplane time for a few more reconciles, as a careless function would have
		// deleted on the first.
		time.Sleep(10 * time.Second)
		after, err := getXR(ctx, e, "FrontProxy", ns, "frontproxy")
		if err != nil {
			t.Fatal(err)
		}
		if a, b := strings.Join(after.refs(), " "), strings.Join(before.refs(), " "); a != b {
			t.Errorf("FrontProxy resourceRefs changed while its RootShard was missing:\nbefore %s\nafter  %s", b, a)
		}
		for _, ref := range before.refs() {
			o, ok := objects[ref]
			if !ok {
				continue
			}
			var now struct {
				Metadata struct {
					UID               string `json:"uid"`
					DeletionTimestamp string `json:"deletionTimestamp"`
				} `json:"metadata"`
			}
			kind, name, _ := strings.Cut(ref, "/")
			if err := e.GetJSON(ctx, &now, resourceOf(kind), "-n", ns, name); err != nil {
				t.Errorf("%s was deleted while the FrontProxy's RootShard was missing: %v", ref, err)
				continue
			}
			if now.Metadata.UID != o.Metadata.UID || now.Metadata.DeletionTimestamp != "" {
				t.Errorf("%s was replaced or is being deleted while the FrontProxy's RootShard was missing", ref)
			}
		}
		var depAfter deployment
		if err := e.GetJSON(ctx, &depAfter, "deployment", "-n", ns, "frontproxy-front-proxy"); err != nil {
			t.Fatal(err)
		}
		if depAfter.Metadata.Generation != dep.Metadata.Generation {
			t.Errorf("Deployment frontproxy-front-proxy changed (generation %d -> %d) while its inputs were missing", dep.Metadata.Generation, depAfter.Metadata.Generation)
		}

		patch("root")
		if _, err := waitXR(ctx, e, "FrontProxy", ns, "frontproxy", "Ready", "True"); err != nil {
			t.Fatal(err)
		}
	})
}

// resourceOf is the kubectl resource name of a composed kind.
func resourceOf(kind string) string {
	switch kind {
	case "Certificate", "Issuer":
		return strings.ToLower(kind) + ".cert-manager.io"
	case "Deployment":
		return "deployment.apps"
	default:
		return strings.ToLower(kind)
	}
}
