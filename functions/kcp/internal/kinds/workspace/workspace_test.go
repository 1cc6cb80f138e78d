package workspace

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// team is Workspace team-a of RootShard root: workspace root:team-a, cluster-admin for the
// team's group.
func team(mods ...func(*v1alpha1.Workspace)) *v1alpha1.Workspace {
	ws := &v1alpha1.Workspace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Workspace"},
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Namespace: "kcp", UID: "ws-uid"},
		Spec: v1alpha1.WorkspaceSpec{
			RootShard:           v1alpha1.WorkspaceRootShard{Ref: &v1alpha1.SharedReference{Name: "root"}},
			ClusterRoleBindings: []v1alpha1.WorkspaceClusterRoleBinding{{ClusterRole: "cluster-admin", Groups: []string{"team-a"}, Users: []string{"alice"}}},
		},
	}
	for _, m := range mods {
		m(ws)
	}
	return ws
}

// objects lists the Objects desired as "<name> <providerconfig> <policies> <kind>/<name in kcp>".
func objects(r Result) []string {
	var out []string
	for _, o := range r.Desired.Objects() {
		u := o.Kept
		if u == nil {
			u = o.Resource.(*resource.Unstructured)
		}
		spec := u.Object["spec"].(map[string]any)
		m := spec["forProvider"].(map[string]any)["manifest"].(map[string]any)
		var policies []string
		for _, p := range spec["managementPolicies"].([]any) {
			policies = append(policies, p.(string))
		}
		out = append(out, u.GetName()+" "+spec["providerConfigRef"].(map[string]any)["name"].(string)+" "+strings.Join(policies, ",")+" "+m["kind"].(string)+"/"+m["metadata"].(map[string]any)["name"].(string))
	}
	slices.Sort(out)
	return out
}

// Result is what Compose returns.
type Result = result.Result[v1alpha1.WorkspaceStatus]

func compose(t *testing.T, ws *v1alpha1.Workspace, w *testworld.World) Result {
	t.Helper()
	r, errs := Compose(ws, w.State())
	if len(errs) > 0 {
		t.Fatalf("Compose: %v", errs)
	}
	return r
}

// kcpSays observes the workspace Object with kcp's phase and logical cluster.
func kcpSays(w *testworld.World, phase string) *testworld.World {
	w.Put(keyWorkspace, map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
		"metadata": map[string]any{"name": "team-a-workspace", "namespace": "kcp"},
		"status": map[string]any{"atProvider": map[string]any{"manifest": map[string]any{
			"spec": map[string]any{"cluster": "2x8fy"}, "status": map[string]any{"phase": phase}}}}})
	return w
}

func TestCompose(t *testing.T) {
	withRoot := func() *testworld.World { return testworld.New().Object(testworld.RootShard()) }
	binding := "team-a-binding-"
	cases := map[string]struct {
		reason  string
		ws      *v1alpha1.Workspace
		world   func() *testworld.World
		objects []string
		status  v1alpha1.WorkspaceStatus
		conds   []string
		ready   bool
	}{
		"Fresh": {
			reason:  "The workspace is created in its parent and its bindings inside it, each through the RootShard's ProviderConfig of that workspace; by default the workspace is never deleted.",
			ws:      team(),
			world:   withRoot,
			objects: []string{binding + "* root-kcp-operator.root.team-a * ClusterRoleBinding/kcp.crossplane.io:cluster-admin", "team-a-workspace root-kcp-operator.root Observe,Create,Update,LateInitialize Workspace/team-a"},
			status:  v1alpha1.WorkspaceStatus{Path: "root:team-a", URL: "https://api.example.com:6443/clusters/root:team-a"},
			conds: []string{
				"WorkspaceReady=False Pending: Creating workspace root:team-a: waiting for Crossplane to create its Object.",
				"BindingsReady=False Binding: Binding cluster roles in workspace root:team-a: cluster-admin: waiting for Crossplane to create its Object.",
			},
		},
		"Ready": {
			reason: "Ready once kcp reports the workspace Ready and provider-kubernetes every binding.",
			ws:     team(),
			world: func() *testworld.World {
				w := withRoot()
				r := compose(t, team(), w)
				w.Exists(r.Desired)
				for _, k := range w.State().ComposedNames() {
					w.Condition(k, "Ready", true, "Available", "")
				}
				return kcpSays(w, "Ready")
			},
			objects: []string{binding + "* root-kcp-operator.root.team-a * ClusterRoleBinding/kcp.crossplane.io:cluster-admin", "team-a-workspace root-kcp-operator.root Observe,Create,Update,LateInitialize Workspace/team-a"},
			status:  v1alpha1.WorkspaceStatus{Phase: "Ready", Path: "root:team-a", URL: "https://api.example.com:6443/clusters/root:team-a", Cluster: "2x8fy"},
			conds:   []string{"WorkspaceReady=True Ready: kcp reports workspace root:team-a Ready.", "BindingsReady=True Bound: Cluster roles cluster-admin are bound in workspace root:team-a."},
			ready:   true,
		},
		"Initializing": {
			reason:  "kcp's phase is passed on while the workspace initializes.",
			ws:      team(func(ws *v1alpha1.Workspace) { ws.Spec.ClusterRoleBindings = nil }),
			world:   func() *testworld.World { return kcpSays(withRoot(), "Initializing") },
			objects: []string{"team-a-workspace root-kcp-operator.root Observe,Create,Update,LateInitialize Workspace/team-a"},
			status:  v1alpha1.WorkspaceStatus{Phase: "Initializing", Path: "root:team-a", URL: "https://api.example.com:6443/clusters/root:team-a", Cluster: "2x8fy"},
			conds:   []string{"WorkspaceReady=False Pending: kcp reports workspace root:team-a Initializing."},
		},
		"DeletionPolicyDelete": {
			reason: "Opting in to Delete lets provider-kubernetes delete the workspace with the XR; under a named parent with spec.name.",
			ws: team(func(ws *v1alpha1.Workspace) {
				ws.Spec.DeletionPolicy = v1alpha1.WorkspaceDelete
				ws.Spec.Parent = "root:org"
				ws.Spec.Name = "a"
				ws.Spec.ClusterRoleBindings = nil
			}),
			world:   withRoot,
			objects: []string{"team-a-workspace root-kcp-operator.root.org * Workspace/a"},
			status:  v1alpha1.WorkspaceStatus{Path: "root:org:a", URL: "https://api.example.com:6443/clusters/root:org:a"},
			conds:   []string{"WorkspaceReady=False Pending: Creating workspace root:org:a: waiting for Crossplane to create its Object."},
		},
		"RootShardGone": {
			reason: "Without its RootShard nothing can be rebuilt, and nothing composed is dropped.",
			ws:     team(),
			world: func() *testworld.World {
				w := withRoot()
				r := compose(t, team(), w)
				return w.Exists(r.Desired).Drop("RootShard", "root")
			},
			objects: []string{binding + "* root-kcp-operator.root.team-a * ClusterRoleBinding/kcp.crossplane.io:cluster-admin", "team-a-workspace root-kcp-operator.root Observe,Create,Update,LateInitialize Workspace/team-a"},
			status:  v1alpha1.WorkspaceStatus{Path: "root:team-a"},
			conds:   []string{"InputsReady=False Missing: RootShard root (spec.rootShard.ref.name) does not exist in namespace kcp; create it or fix the reference. Everything composed so far is kept unchanged meanwhile."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := compose(t, tc.ws, tc.world())
			got := objects(r)
			for i, o := range got {
				// The binding's name ends in a hash (names.Binding); its prefix is what matters here.
				if strings.HasPrefix(o, binding) {
					got[i] = binding + "*" + o[strings.Index(o, " "):]
				}
			}
			if diff := cmp.Diff(tc.objects, got); diff != "" {
				t.Errorf("%s\nObjects: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.status, r.Status); diff != "" {
				t.Errorf("%s\nstatus: -want, +got:\n%s", tc.reason, diff)
			}
			var conds []string
			for _, c := range r.Conditions {
				conds = append(conds, conditionString(c))
			}
			if diff := cmp.Diff(tc.conds, conds); diff != "" {
				t.Errorf("%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.ready == r.NotReady {
				t.Errorf("%s\nNotReady = %v, want ready %v", tc.reason, r.NotReady, tc.ready)
			}
		})
	}
}

func conditionString(c condition.Condition) string {
	s := "False"
	if c.Status {
		s = "True"
	}
	return c.Type + "=" + s + " " + c.Reason + ": " + c.Message
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		ws     *v1alpha1.Workspace
		want   []string
	}{
		"Valid": {reason: "The example is valid.", ws: team()},
		"NoRootShard": {
			reason: "The installation must be named.",
			ws:     team(func(ws *v1alpha1.Workspace) { ws.Spec.RootShard.Ref = nil }),
			want:   []string{"spec.rootShard.ref.name: Required value: name the RootShard of the kcp installation the workspace lives in"},
		},
		"BadParent": {
			reason: "The parent is a workspace path.",
			ws:     team(func(ws *v1alpha1.Workspace) { ws.Spec.Parent = "root/org" }),
			want:   []string{`spec.parent: Invalid value: "root/org": must be a kcp workspace path: workspace names (lowercase letters, digits and '-') joined by ':', such as root or root:team-a`},
		},
		"XRNameNotAWorkspaceName": {
			reason: "Without spec.name the XR's name is the workspace's, so it must be one.",
			ws:     team(func(ws *v1alpha1.Workspace) { ws.Name = "team.a" }),
			want:   []string{`metadata.name: Invalid value: "team.a": is not a kcp workspace name (must not contain dots); or set spec.name to a workspace name`},
		},
		"Bindings": {
			reason: "Each binding names a cluster role kcp can bind, once, and someone to bind it to.",
			ws: team(func(ws *v1alpha1.Workspace) {
				ws.Spec.ClusterRoleBindings = []v1alpha1.WorkspaceClusterRoleBinding{
					{ClusterRole: "view", Groups: []string{""}},
					{ClusterRole: "view", Users: []string{"bob"}},
					{ClusterRole: "a/b", Users: []string{"bob"}},
					{ClusterRole: "edit"},
				}
			}),
			want: []string{
				"spec.clusterRoleBindings[0].groups[0]: Required value: remove the empty group or name one",
				`spec.clusterRoleBindings[1].clusterRole: Duplicate value: "view"`,
				`spec.clusterRoleBindings[2].clusterRole: Invalid value: "a/b": is not a cluster role name: may not contain '/'`,
				"spec.clusterRoleBindings[3]: Required value: name at least one group or user to bind edit to",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.ws) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	cases := map[string]struct {
		reason string
		ws     *v1alpha1.Workspace
		want   []string
	}{
		"ClusterAdmin": {reason: "cluster-admin exists in every kcp workspace: nothing to say.", ws: team()},
		"RolesKCPLacks": {
			reason: "kcp v0.32.3 makes no admin, edit or view in a workspace: a binding to them grants nothing until the role is created there.",
			ws: team(func(ws *v1alpha1.Workspace) {
				ws.Spec.ClusterRoleBindings = append(ws.Spec.ClusterRoleBindings,
					v1alpha1.WorkspaceClusterRoleBinding{ClusterRole: "view", Groups: []string{"readers"}},
					v1alpha1.WorkspaceClusterRoleBinding{ClusterRole: "app-reader", Groups: []string{"readers"}})
			}),
			want: []string{"spec.clusterRoleBindings[1].clusterRole: kcp makes no ClusterRole view in a workspace, so this binding grants nothing until one is created there; bind cluster-admin, or create ClusterRole view in the workspace first"},
		},
		"Delete": {
			reason: "Deleting the XR will delete the workspace and its contents.",
			ws:     team(func(ws *v1alpha1.Workspace) { ws.Spec.DeletionPolicy = v1alpha1.WorkspaceDelete }),
			want:   []string{"spec.deletionPolicy is Delete: deleting this Workspace deletes workspace root:team-a in kcp and everything in it"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Warnings(tc.ws)); diff != "" {
				t.Errorf("%s\nWarnings(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
