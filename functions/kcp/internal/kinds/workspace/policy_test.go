package workspace

import (
	"testing"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestWorkspaceComposesNoCertificate: a tenant writes Workspaces, and the platform's policy
// holds every certificate a tenant can cause (compose/policy.TenantKinds). A Workspace
// causes none: everything it composes, fresh or Ready, is a provider-kubernetes Object
// whose manifest is a kcp workspace or binding, never a cert-manager object.
func TestWorkspaceComposesNoCertificate(t *testing.T) {
	fresh := func() *testworld.World { return testworld.New().Object(testworld.RootShard()) }
	cases := map[string]struct {
		reason string
		world  func() *testworld.World
	}{
		"Fresh": {reason: "A new Workspace.", world: fresh},
		"Ready": {
			reason: "A Workspace whose Objects exist and kcp reports Ready.",
			world: func() *testworld.World {
				w := fresh()
				w.Exists(compose(t, team(), w).Desired)
				return kcpSays(w, "Ready")
			},
		},
	}
	allowed := map[string]bool{"Workspace": true, "ClusterRoleBinding": true}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := compose(t, team(), tc.world())
			if len(r.Desired.Objects()) == 0 {
				t.Fatalf("%s\nnothing composed", tc.reason)
			}
			for _, o := range r.Desired.Objects() {
				u := o.Kept
				if u == nil {
					u = o.Resource.(*resource.Unstructured)
				}
				if u.GetAPIVersion() != "kubernetes.m.crossplane.io/v1alpha1" || u.GetKind() != "Object" {
					t.Errorf("%s\ncomposed %s %s: a Workspace composes provider-kubernetes Objects only", tc.reason, u.GetAPIVersion(), u.GetKind())
					continue
				}
				m, _ := u.Object["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any)
				if kind, _ := m["kind"].(string); !allowed[kind] {
					t.Errorf("%s\nObject %s manifests a %v in kcp: only workspaces and bindings are expected", tc.reason, u.GetName(), m["kind"])
				}
			}
		})
	}
}
