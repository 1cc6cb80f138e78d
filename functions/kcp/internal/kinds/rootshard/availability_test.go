package rootshard

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestShardAvailability: while none of a Shard's pods is available, the Object that observes
// its kcp Shard annotates it unschedulable, which kcp's workspace scheduler skips; once one
// is, the annotation goes. What the Shard does not know changes nothing.
func TestShardAvailability(t *testing.T) {
	const down = "no pod of Deployment kcp/alpha-shard-kcp is available (set by configuration-kcp's RootShard root; removed once one is)"
	serving := func(n *int32) func(*v1alpha1.Shard) {
		return func(sh *v1alpha1.Shard) { sh.Status.AvailableReplicas = n }
	}
	zero, two := int32(0), int32(2)
	// composed is the registration of alpha as composed before, annotated with why ("" none).
	composed := func(w *testworld.World, why string) *testworld.World {
		meta := map[string]any{"name": "alpha"}
		if why != "" {
			meta["annotations"] = map[string]any{"experimental.core.kcp.io/unschedulable": why}
		}
		return w.Put("registration-alpha", map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
			"metadata": map[string]any{"name": "root-registration-alpha", "namespace": "kcp"},
			"spec": map[string]any{"managementPolicies": []any{"Observe", "Update"}, "providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "root-kcp-operator.root"},
				"forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard", "metadata": meta}}}})
	}
	cases := map[string]struct {
		reason string
		world  *testworld.World
		want   map[string]any // the manifest's annotations; nil for none
	}{
		"Serving": {
			reason: "A shard with available pods is left to kcp's scheduler.",
			world:  testworld.New().Answer("shard/*").Object(testworld.Shard("alpha", serving(&two))),
		},
		"Down": {
			reason: "A shard none of whose pods is available is annotated, saying why and who removes it.",
			world:  testworld.New().Answer("shard/*").Object(testworld.Shard("alpha", serving(&zero))),
			want:   map[string]any{"experimental.core.kcp.io/unschedulable": down},
		},
		"Back": {
			reason: "Once a pod is available again the annotation goes; kcp requeues what it could not schedule.",
			world:  composed(testworld.New().Answer("shard/*").Object(testworld.Shard("alpha", serving(&two))), down),
		},
		"UnknownWhileDown": {
			reason: "A Shard that does not know (its Deployment not observed, its cluster unreachable) keeps the annotation as composed.",
			world:  composed(testworld.New().Answer("shard/*").Object(testworld.Shard("alpha")), down),
			want:   map[string]any{"experimental.core.kcp.io/unschedulable": down},
		},
		"UnknownWhileServing": {
			reason: "Nor does it add one.",
			world:  composed(testworld.New().Answer("shard/*").Object(testworld.Shard("alpha")), ""),
		},
		"New": {
			reason: "A new Shard, whose Deployment is not observed yet, is not annotated: kcp has no Shard of it until it registers itself, once it runs.",
			world:  testworld.New().Answer("shard/*").Object(testworld.Shard("alpha")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(basic(), tc.world.State())
			var got map[string]any
			found := false
			for _, o := range r.Desired.Objects() {
				if o.Name != resource.Name("registration-alpha") {
					continue
				}
				found = true
				u := o.Kept
				if u == nil {
					u = o.Resource.(*resource.Unstructured)
				}
				manifest := u.Object["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any)
				got, _ = manifest["metadata"].(map[string]any)["annotations"].(map[string]any)
			}
			if !found {
				t.Fatalf("%s\nno registration of alpha composed", tc.reason)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nkcp Shard alpha's annotations: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
