package render

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestRenderRequiredByLabels checks, through the real render and function, that a
// requirement with an empty label selector (a RootShard's for every Shard in its namespace)
// matches every object of the kind in the XR's namespace, whatever its labels, and nothing
// in another namespace.
func TestRenderRequiredByLabels(t *testing.T) {
	tools, err := FindTools(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := Start(ctx, repoRoot, tools)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	xr := objects(`
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata: {name: root, namespace: kcp}
spec:
  external: {hostname: api.example.com, port: 6443}
  certificates: {issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}}
  etcd: {endpoints: ["http://etcd:2379"]}
`)[0]
	shard := func(namespace, name, labels string) string {
		return `
apiVersion: kcp.crossplane.io/v1alpha1
kind: Shard
metadata: {name: ` + name + `, namespace: ` + namespace + `, labels: {` + labels + `}}
spec: {rootShard: {ref: {name: root}}, etcd: {endpoints: ["http://etcd:2379"]}}
`
	}
	required := objects(
		shard("kcp", "labelled", "team: a"),
		shard("kcp", "plain", ""),
		shard("elsewhere", "other-namespace", ""),
	)
	out, err := h.renderer.Render(ctx, Request{XR: xr, API: h.apis[xr.GroupVersionKind().GroupKind()], World: World{Required: required}})
	if err != nil {
		t.Fatalf("%v\nfunction logs:\n%s", err, h.FunctionLogs())
	}
	if out.Fatal {
		t.Fatalf("render returned Fatal: %v", out.Results[0].Object)
	}
	shards, _, err := unstructured.NestedSlice(out.XR.Object, "status", "shards")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range shards {
		name, _ := s.(map[string]any)["name"].(string)
		got = append(got, name)
	}
	if diff := cmp.Diff([]string{"labelled", "plain"}, got); diff != "" {
		t.Errorf("status.shards of a RootShard offered Shards in its own and another namespace: -want, +got:\n%s", diff)
	}
}
