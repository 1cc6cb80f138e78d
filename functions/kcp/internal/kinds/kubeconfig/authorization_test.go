package kubeconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// withRoles asks for roles bound in workspace (the deprecated field when cluster is set).
func withRoles(workspace, cluster string, roles ...string) func(*v1alpha1.Kubeconfig) {
	return func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.TargetWorkspace = workspace
		kc.Spec.Authorization = &v1alpha1.KubeconfigAuthorization{ClusterRoleBindings: v1alpha1.KubeconfigClusterRoleBindings{Cluster: cluster, ClusterRoles: roles}}
	}
}

// bindingObjects lists the binding Objects desired, as "<object> <providerconfig> <binding in kcp> -> <role>".
func bindingObjects(t *testing.T, r Result) []string {
	t.Helper()
	var out []string
	for _, o := range r.Desired.Objects() {
		if !strings.HasPrefix(string(o.Name), bindingPrefix) {
			continue
		}
		u := o.Kept
		if u == nil {
			u = o.Resource.(*resource.Unstructured)
		}
		spec := u.Object["spec"].(map[string]any)
		m := spec["forProvider"].(map[string]any)["manifest"].(map[string]any)
		pc := spec["providerConfigRef"].(map[string]any)["name"]
		role := m["roleRef"].(map[string]any)["name"]
		subject := m["subjects"].([]any)[0].(map[string]any)["name"]
		meta := m["metadata"].(map[string]any)
		var policies []string
		for _, p := range spec["managementPolicies"].([]any) {
			policies = append(policies, p.(string))
		}
		out = append(out, u.GetName()+" "+pc.(string)+" "+meta["name"].(string)+" "+subject.(string)+" -> "+role.(string)+" "+strings.Join(policies, ","))
	}
	return out
}

// hashOf is the end of a binding Object's name: sha256 of Kubeconfig, workspace and role
// joined by NULs, 10 hex digits.
func hashOf(workspace, role string) string {
	sum := sha256.Sum256([]byte("Kubeconfig\x00" + workspace + "\x00" + role))
	return hex.EncodeToString(sum[:])[:10]
}

func TestBindings(t *testing.T) {
	base := func() *testworld.World { return installation(t, testworld.New(), rootShard()) }
	// settled observes everything composed for kc, every binding Object Ready.
	settled := func(kc *v1alpha1.Kubeconfig) *testworld.World {
		_, w := converged(t, kc, base())
		r := run(t, kc, w)
		w.Exists(r.Desired)
		for _, o := range r.Desired.Objects() {
			if strings.HasPrefix(string(o.Name), bindingPrefix) {
				w.Condition(o.Name, "Ready", true, "Available", "")
			}
		}
		return w
	}
	// Names follow names.Binding: the hash of workspace and role.
	viewRoot := "admin-binding-" + hashOf("root", "view") + " root-kcp-operator.root kc-uid:view kubeconfig:admin -> view *"
	adminRoot := "admin-binding-" + hashOf("root", "cluster-admin") + " root-kcp-operator.root kc-uid:cluster-admin kubeconfig:admin -> cluster-admin *"
	viewTeam := "admin-binding-" + hashOf("root:team", "view") + " root-kcp-operator.root.team kc-uid:view kubeconfig:admin -> view *"

	cases := map[string]struct {
		reason  string
		kc      *v1alpha1.Kubeconfig
		world   func() *testworld.World
		objects []string
		cond    *condition.Condition
		status  *v1alpha1.KubeconfigAuthorizationStatus
		ready   bool
	}{
		"NoAuthorization": {
			reason: "Without spec.authorization nothing is bound and nothing reported.",
			kc:     kubeconfigXR(),
			world:  func() *testworld.World { _, w := converged(t, kubeconfigXR(), base()); return w },
			ready:  true,
		},
		"Fresh": {
			reason:  "Each role becomes an Object holding kcp-operator's binding in root, through the RootShard's ProviderConfig for root; the XR waits for them.",
			kc:      kubeconfigXR(withRoles("", "", "view", "cluster-admin", "view")),
			world:   func() *testworld.World { _, w := converged(t, kubeconfigXR(), base()); return w },
			objects: []string{adminRoot, viewRoot},
			cond:    &condition.Condition{Type: TypeBindingsReady, Reason: ReasonBinding, Message: "Binding cluster roles to group kubeconfig:admin in workspace root: cluster-admin: waiting for Crossplane to create its Object; view: waiting for Crossplane to create its Object."},
		},
		"Bound": {
			reason:  "Once provider-kubernetes reports every Object Ready the roles are bound, and status.authorization says where.",
			kc:      kubeconfigXR(withRoles("", "", "view", "cluster-admin")),
			world:   func() *testworld.World { return settled(kubeconfigXR(withRoles("", "", "view", "cluster-admin"))) },
			objects: []string{adminRoot, viewRoot},
			cond:    &condition.Condition{Type: TypeBindingsReady, Status: true, Reason: ReasonBound, Message: "Cluster roles cluster-admin, view are bound to group kubeconfig:admin in workspace root."},
			status:  &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: "root"},
			ready:   true,
		},
		"KCPUnreachable": {
			reason: "When kcp cannot be reached the Objects stay composed and the XR says why it waits.",
			kc:     kubeconfigXR(withRoles("", "", "view")),
			world: func() *testworld.World {
				w := settled(kubeconfigXR(withRoles("", "", "view")))
				for _, k := range w.State().ComposedNames() {
					if strings.HasPrefix(string(k), bindingPrefix) {
						w.Condition(k, "Ready", false, "Unavailable", "").Condition(k, "Synced", false, "ReconcileError", "cannot connect: dial tcp: connection refused")
					}
				}
				return w
			},
			objects: []string{viewRoot},
			cond:    &condition.Condition{Type: TypeBindingsReady, Reason: ReasonBinding, Message: "Binding cluster roles to group kubeconfig:admin in workspace root: view: cannot connect: dial tcp: connection refused."},
		},
		"RoleRemoved": {
			reason:  "A role taken off the list is no longer composed, so its binding goes; the others stay.",
			kc:      kubeconfigXR(withRoles("", "", "view")),
			world:   func() *testworld.World { return settled(kubeconfigXR(withRoles("", "", "view", "cluster-admin"))) },
			objects: []string{viewRoot},
			cond:    &condition.Condition{Type: TypeBindingsReady, Status: true, Reason: ReasonBound, Message: "Cluster roles view are bound to group kubeconfig:admin in workspace root; removing the earlier bindings in root."},
			status:  &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: "root"},
			ready:   true,
		},
		"Moved": {
			reason:  "Moving to another workspace binds there and drops the old bindings; until the new ones exist, status still names the old workspace.",
			kc:      kubeconfigXR(withRoles("root:team", "", "view")),
			world:   func() *testworld.World { return settled(kubeconfigXR(withRoles("", "", "view"))) },
			objects: []string{viewTeam},
			cond:    &condition.Condition{Type: TypeBindingsReady, Reason: ReasonBinding, Message: "Binding cluster roles to group kubeconfig:admin in workspace root:team: view: waiting for Crossplane to create its Object."},
			status:  &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: "root"},
		},
		"DeprecatedCluster": {
			reason:  "Without targetWorkspace the deprecated cluster field says where to bind.",
			kc:      kubeconfigXR(withRoles("", "root:team", "view")),
			world:   func() *testworld.World { _, w := converged(t, kubeconfigXR(), base()); return w },
			objects: []string{viewTeam},
			cond:    &condition.Condition{Type: TypeBindingsReady, Reason: ReasonBinding, Message: "Binding cluster roles to group kubeconfig:admin in workspace root:team: view: waiting for Crossplane to create its Object."},
		},
		"AuthorizationRemoved": {
			reason: "Removing spec.authorization removes every binding; status names where they still are until they are gone.",
			kc:     kubeconfigXR(),
			world:  func() *testworld.World { return settled(kubeconfigXR(withRoles("", "", "view"))) },
			cond:   &condition.Condition{Type: TypeBindingsReady, Reason: ReasonUnbinding, Message: "spec.authorization is removed; removing the ClusterRoleBindings of group kubeconfig:admin in workspace root."},
			status: &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: "root"},
			ready:  true,
		},
		"TargetGone": {
			reason: "While the target cannot be read, the bindings are kept as they are, never dropped, and status still says where they are.",
			kc:     kubeconfigXR(withRoles("", "", "view")),
			world: func() *testworld.World {
				return settled(kubeconfigXR(withRoles("", "", "view"))).Drop("RootShard", "root")
			},
			objects: []string{viewRoot},
			status:  &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: "root"},
		},
		"NoUID": {
			reason: "kcp-operator names bindings after the Kubeconfig's UID; without one (a render) none is composed.",
			kc:     kubeconfigXR(withRoles("", "", "view"), func(kc *v1alpha1.Kubeconfig) { kc.UID = "" }),
			world:  func() *testworld.World { _, w := converged(t, kubeconfigXR(), base()); return w },
			ready:  true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, tc.kc, tc.world())
			if diff := cmp.Diff(tc.objects, bindingObjects(t, r)); diff != "" {
				t.Errorf("%s\nbinding Objects: -want, +got:\n%s", tc.reason, diff)
			}
			var got *condition.Condition
			for _, c := range r.Conditions {
				if c.Type == TypeBindingsReady {
					got = &c
				}
			}
			if diff := cmp.Diff(tc.cond, got); diff != "" {
				t.Errorf("%s\nBindingsReady: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.status, r.Status.Authorization); diff != "" {
				t.Errorf("%s\nstatus.authorization: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.ready == r.NotReady {
				t.Errorf("%s\nNotReady = %v, want ready %v; conditions: %+v", tc.reason, r.NotReady, tc.ready, r.Conditions)
			}
		})
	}
}
