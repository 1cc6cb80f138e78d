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
