package shard

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// registrationObject is the RootShard's Object observing kcp's Shard alpha, with conditions.
func registrationObject(conds ...map[string]any) map[string]any {
	list := make([]any, len(conds))
	for i, c := range conds {
		list[i] = c
	}
	return map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
		"metadata": map[string]any{"name": "root-registration-alpha", "namespace": "kcp"},
		"status":   map[string]any{"conditions": list}}
}

func TestRegistered(t *testing.T) {
	cases := map[string]struct {
		reason string
		world  *testworld.World
		want   condition.Condition
	}{
		"NotObserved": {
			reason: "Until the RootShard composes its Object, the Shard says so.",
			world:  testworld.New(),
			want:   condition.Condition{Type: TypeRegistered, Reason: ReasonNotObserved, Message: "RootShard root has not composed Object root-registration-alpha, which observes kcp's Shard alpha in workspace root, yet."},
		},
		"Registered": {
			reason: "provider-kubernetes reports the Object Ready once kcp's Shard exists.",
			world:  testworld.New().Object(registrationObject(map[string]any{"type": "Ready", "status": "True"})),
			want:   condition.Condition{Type: TypeRegistered, Status: true, Reason: ReasonRegistered, Message: "kcp's Shard alpha exists in workspace root (observed by Object root-registration-alpha)."},
		},
		"NotRegistered": {
			reason: "Observing a Shard kcp does not have fails with provider-kubernetes' reason, which the Shard passes on.",
			world: testworld.New().Object(registrationObject(map[string]any{"type": "Synced", "status": "False", "message": "cannot observe external resource: external resource does not exist"},
				map[string]any{"type": "Ready", "status": "False"})),
			want: condition.Condition{Type: TypeRegistered, Reason: ReasonNotRegistered, Message: "kcp's Shard alpha is not observed in workspace root yet (Object root-registration-alpha): cannot observe external resource: external resource does not exist."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, registered(tc.world.State(), names.RootShard("root"), "alpha")); diff != "" {
				t.Errorf("%s\nRegistered: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestSchedulable: Schedulable says what kcp's Shard object, as the RootShard's Object last
// observed it, tells kcp's scheduler.
func TestSchedulable(t *testing.T) {
	observedWith := func(annotations map[string]any) map[string]any {
		o := registrationObject(map[string]any{"type": "Ready", "status": "True"})
		meta := map[string]any{"name": "alpha"}
		if annotations != nil {
			meta["annotations"] = annotations
		}
		o["status"].(map[string]any)["atProvider"] = map[string]any{"manifest": map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard", "metadata": meta}}
		return o
	}
	cases := map[string]struct {
		reason string
		world  *testworld.World
		want   condition.Condition
	}{
		"NotObserved": {
			reason: "Before provider-kubernetes has observed kcp's Shard, nothing is known.",
			world:  testworld.New().Object(registrationObject()),
			want:   condition.Condition{Type: TypeSchedulable, Reason: ReasonNotObserved, Message: "kcp's Shard alpha is not observed in workspace root yet (Object root-registration-alpha)."},
		},
		"Schedulable": {
			reason: "Without the annotation kcp's scheduler may choose the shard; other annotations do not matter.",
			world:  testworld.New().Object(observedWith(map[string]any{"team": "a"})),
			want:   condition.Condition{Type: TypeSchedulable, Status: true, Reason: ReasonSchedulable, Message: "kcp may schedule new workspaces onto this shard (kcp's Shard alpha, observed by Object root-registration-alpha)."},
		},
		"Unschedulable": {
			reason: "With it, whoever set it, kcp skips the shard; the message passes on why.",
			world:  testworld.New().Object(observedWith(map[string]any{"experimental.core.kcp.io/unschedulable": "no pod is available"})),
			want:   condition.Condition{Type: TypeSchedulable, Reason: ReasonUnschedulable, Message: "kcp schedules no new workspace onto this shard: kcp's Shard alpha is annotated experimental.core.kcp.io/unschedulable (no pod is available)."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, schedulable(tc.world.State(), names.RootShard("root"), "alpha")); diff != "" {
				t.Errorf("%s\nSchedulable: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
