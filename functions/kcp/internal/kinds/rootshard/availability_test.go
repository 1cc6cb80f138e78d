package rootshard

import (
	"strings"
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
	// seen is kcp's Shard alpha as the registration Object last observed it.
	type seen struct {
		annotation string // its unschedulable annotation, "" for none
		synced     bool   // the Object's last reconcile found it
	}
	// composed is the registration of alpha as composed before, annotated with why ("" none),
	// and, unless kcp is nil, what it observed in kcp.
	composed := func(w *testworld.World, why string, kcp *seen) *testworld.World {
		annotations := func(why string) map[string]any {
			if why == "" {
				return nil
			}
			return map[string]any{"experimental.core.kcp.io/unschedulable": why}
		}
		o := map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
			"metadata": map[string]any{"name": "root-registration-alpha", "namespace": "kcp"},
			"spec": map[string]any{"managementPolicies": []any{"Observe"}, "providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "root-kcp-operator.root"},
				"forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard",
					"metadata": map[string]any{"name": "alpha", "annotations": annotations(why)}}}}}
		if kcp != nil {
			synced := map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess"}
			if !kcp.synced {
				synced = map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "observe failed: external resource does not exist"}
			}
			o["status"] = map[string]any{"conditions": []any{synced}, "atProvider": map[string]any{"manifest": map[string]any{
				"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard", "metadata": map[string]any{"name": "alpha", "annotations": annotations(kcp.annotation)}}}}
		}
		return w.Put("registration-alpha", o)
	}
	shard := func(opts ...func(*v1alpha1.Shard)) *testworld.World {
		return testworld.New().Answer("shard/*").Object(testworld.Shard("alpha", opts...))
	}
	cases := map[string]struct {
		reason   string
		world    *testworld.World
		want     map[string]any // the manifest's annotations; nil for none
		policies string
	}{
		"Serving": {
			reason:   "A shard with available pods is left to kcp's scheduler.",
			world:    shard(serving(&two)),
			policies: "Observe",
		},
		"Down": {
			reason:   "A shard none of whose pods is available is annotated, saying why and who removes it; kcp's Shard is updated once the Object has seen it.",
			world:    composed(shard(serving(&zero)), "", &seen{synced: true}),
			want:     map[string]any{"experimental.core.kcp.io/unschedulable": down},
			policies: "Observe,Update",
		},
		"DownAnnotated": {
			reason:   "Once kcp's Shard carries the annotation the Object only observes: nothing is written while it stays down.",
			world:    composed(shard(serving(&zero)), down, &seen{annotation: down, synced: true}),
			want:     map[string]any{"experimental.core.kcp.io/unschedulable": down},
			policies: "Observe",
		},
		"DownNotInKCP": {
			reason:   "A shard kcp has no Shard of is never updated: the update would create a Shard without a baseURL, onto which kcp would schedule workspaces.",
			world:    shard(serving(&zero)),
			want:     map[string]any{"experimental.core.kcp.io/unschedulable": down},
			policies: "Observe",
		},
		"DownShardGoneFromKCP": {
			reason:   "Nor once the Object found kcp's Shard gone: what it observed before is stale.",
			world:    composed(shard(serving(&zero)), "", &seen{synced: false}),
			want:     map[string]any{"experimental.core.kcp.io/unschedulable": down},
			policies: "Observe",
		},
		"Back": {
			reason:   "Once a pod is available again the annotation goes; kcp requeues what it could not schedule.",
			world:    composed(shard(serving(&two)), down, &seen{annotation: down, synced: true}),
			policies: "Observe,Update",
		},
		"BackRemoved": {
			reason:   "Once kcp's Shard no longer carries it the Object only observes again.",
			world:    composed(shard(serving(&two)), "", &seen{synced: true}),
			policies: "Observe",
		},
		"UnknownWhileDown": {
			reason:   "A Shard that does not know (its Deployment not observed, its cluster unreachable) keeps the annotation as composed.",
			world:    composed(shard(), down, &seen{annotation: down, synced: true}),
			want:     map[string]any{"experimental.core.kcp.io/unschedulable": down},
			policies: "Observe",
		},
		"UnknownWhileServing": {
			reason:   "Nor does it add one.",
			world:    composed(shard(), "", &seen{synced: true}),
			policies: "Observe",
		},
		"New": {
			reason:   "A new Shard, whose Deployment is not observed yet, is not annotated: kcp has no Shard of it until it registers itself, once it runs.",
			world:    shard(),
			policies: "Observe",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(basic(), tc.world.State())
			var got map[string]any
			var policies []string
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
				spec := u.Object["spec"].(map[string]any)
				manifest := spec["forProvider"].(map[string]any)["manifest"].(map[string]any)
				got, _ = manifest["metadata"].(map[string]any)["annotations"].(map[string]any)
				for _, p := range spec["managementPolicies"].([]any) {
					policies = append(policies, p.(string))
				}
			}
			if !found {
				t.Fatalf("%s\nno registration of alpha composed", tc.reason)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nkcp Shard alpha's annotations: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.policies, strings.Join(policies, ",")); diff != "" {
				t.Errorf("%s\nmanagementPolicies: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
