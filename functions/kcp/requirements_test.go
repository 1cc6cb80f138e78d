package main

import (
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// callsPerReconcile runs the function as Crossplane's requirement loop does on every
// reconcile: call, fetch what the response requires from world, call again, until the
// requirements stop changing (at most six calls). It returns how many calls that took.
func callsPerReconcile(t *testing.T, req *fnv1.RunFunctionRequest, world []map[string]any) int {
	t.Helper()
	var last *fnv1.Requirements
	for calls := 1; calls <= 6; calls++ {
		rsp := run(t, req)
		for _, r := range rsp.GetResults() {
			if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
				t.Fatalf("fatal result: %s", r.GetMessage())
			}
		}
		if proto.Equal(rsp.GetRequirements(), last) {
			return calls
		}
		last = rsp.GetRequirements()
		req.RequiredResources = map[string]*fnv1.Resources{}
		for key, sel := range last.GetResources() {
			req.RequiredResources[key] = fetch(t, world, sel)
		}
	}
	t.Fatalf("the requirements still change after six calls: %v", last)
	return 0
}

// fetch is what Crossplane returns for a selector: the object named, or every object of the
// kind (the function asks for all of a kind without labels), or nothing.
func fetch(t *testing.T, world []map[string]any, sel *fnv1.ResourceSelector) *fnv1.Resources {
	t.Helper()
	out := &fnv1.Resources{}
	for _, o := range world {
		name, _ := o["metadata"].(map[string]any)["name"].(string)
		if o["apiVersion"] != sel.GetApiVersion() || o["kind"] != sel.GetKind() {
			continue
		}
		if sel.GetMatchName() != "" && sel.GetMatchName() != name {
			continue
		}
		s, err := fnrequest.Struct(o)
		if err != nil {
			t.Fatal(err)
		}
		out.Items = append(out.Items, &fnv1.Resource{Resource: s})
	}
	return out
}

// TestCallsPerReconcile holds how often Crossplane calls the function per reconcile: once,
// plus once more each time the requirements grow. An XR asks at once for everything it can
// name from its own spec and its references' names, so only a hop through another XR's spec
// (a Kubeconfig's Shard names its RootShard) costs a further call.
func TestCallsPerReconcile(t *testing.T) {
	shardTarget := `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"Kubeconfig","metadata":{"name":"ctl","namespace":"kcp","uid":"kc-uid"},"spec":{"target":{"shardRef":{"name":"shard-1"}},"username":"ctl","validity":"720h","secretRef":{"name":"ctl-kubeconfig"}}}`
	shard := fnrequest.StructJSON(shardXR).AsMap()

	cases := map[string]struct {
		reason string
		xr     string
		world  []map[string]any
		want   int
	}{
		"ShardOfRootShard": {
			reason: "A Shard names its RootShard, whose CA Secrets are named after it: one round of requirements, two calls.",
			xr:     shardXR,
			world:  rootShardWorld(t),
			want:   2,
		},
		"KubeconfigForRootShard": {
			reason: "A Kubeconfig for a RootShard asks for it, its server CA and its own Secrets at once: two calls.",
			xr:     benchKubeconfigXR,
			world:  kubeconfigWorld(t),
			want:   2,
		},
		"KubeconfigForShard": {
			reason: "A Kubeconfig for a Shard learns the RootShard's name from the Shard: one more round, three calls.",
			xr:     shardTarget,
			world:  append(kubeconfigWorld(t), shard),
			want:   3,
		},
		"RootShard": {
			reason: "A RootShard asks for its Shards and the Secrets its spec names: two calls.",
			xr:     basicXR,
			want:   2,
		},
		"KcpInstallation": {
			reason: "An installation asks at once for the platform's policy and for every XR and the StatefulSet that could hold its children's names: two calls.",
			xr:     tenantXR("kcp-selfsigned"),
			world:  []map[string]any{selfServicePolicy},
			want:   2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := callsPerReconcile(t, fnrequest.New(tc.xr), tc.world)
			if got != tc.want {
				t.Errorf("\n%s\ncalls per reconcile: got %d, want %d", tc.reason, got, tc.want)
			}
		})
	}
}
