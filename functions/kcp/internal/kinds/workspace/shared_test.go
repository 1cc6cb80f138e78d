package workspace

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// teamApp is Workspace app of namespace team-a in RootShard kcp/root, shared by Tenant
// kcp/team-a.
func teamApp() *v1alpha1.Workspace {
	return &v1alpha1.Workspace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Workspace"},
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "team-a"},
		Spec:       v1alpha1.WorkspaceSpec{RootShard: v1alpha1.WorkspaceRootShard{Ref: &v1alpha1.SharedReference{Name: "root", Namespace: "kcp"}}},
	}
}

// sharedWorld is namespace team-a's view of Tenant kcp/team-a and the Workspace
// kcp/team-a.app it composed for app, Ready or not, controlled by controllerKind.
func sharedWorld(members []v1alpha1.TenantMember, ready bool, controllerKind string) *testworld.World {
	status := "False"
	if ready {
		status = "True"
	}
	w := testworld.New().InNamespace("team-a").
		Object(map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant",
			"metadata": map[string]any{"name": "team-a", "namespace": "kcp"},
			"spec":     map[string]any{"frontProxy": map[string]any{"ref": map[string]any{"name": "front"}}},
			"status":   map[string]any{"members": members}}).
		Object(map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Workspace",
			"metadata": map[string]any{"name": "team-a.app", "namespace": "kcp", "labels": sharing.Labels("team-a", "team-a", "app"),
				"ownerReferences": []any{map[string]any{"kind": controllerKind, "name": "team-a", "uid": "t", "controller": true}}},
			"status": map[string]any{"phase": "Ready", "path": "root:team-a:app", "cluster": "2x8fy",
				"conditions": []any{map[string]any{"type": "Ready", "status": status, "reason": "Available", "message": "kcp reports Initializing"}}}})
	for _, q := range composeShared(teamApp(), testworld.New().State()).Requirements {
		w.Answer(q.Key())
	}
	return w
}

func TestComposeShared(t *testing.T) {
	granted := []v1alpha1.TenantMember{{Kind: "Workspace", Name: "app", Granted: true}}
	cases := map[string]struct {
		reason string
		// ws is the team's Workspace, teamApp() when nil.
		ws     *v1alpha1.Workspace
		world  *testworld.World
		status v1alpha1.WorkspaceStatus
		conds  []string
		ready  bool
	}{
		"Ready": {
			reason: "A team's Workspace reports the one its Tenant composed, and composes nothing itself: it holds no credential of kcp.",
			world:  sharedWorld(granted, true, "Tenant"),
			status: v1alpha1.WorkspaceStatus{Phase: "Ready", Path: "root:team-a:app", Cluster: "2x8fy"},
			conds: []string{
				"InputsReady=True AllPresent: Tenant kcp/team-a grants this Workspace; Workspace kcp/team-a.app acts in kcp for it.",
				"WorkspaceReady=True Ready: Workspace kcp/team-a.app is Ready: kcp reports workspace root:team-a:app Ready.",
			},
			ready: true,
		},
		"NotReady": {
			reason: "Not Ready while the Tenant's Workspace is not.",
			world:  sharedWorld(granted, false, "Tenant"),
			status: v1alpha1.WorkspaceStatus{Phase: "Ready", Path: "root:team-a:app", Cluster: "2x8fy"},
			conds: []string{
				"InputsReady=True AllPresent: Tenant kcp/team-a grants this Workspace; Workspace kcp/team-a.app acts in kcp for it.",
				"WorkspaceReady=False Pending: Workspace kcp/team-a.app is not Ready yet (Available: kcp reports Initializing).",
			},
		},
		"Refused": {
			reason: "The Tenant's reason for refusing is the team's to read.",
			world:  sharedWorld([]v1alpha1.TenantMember{{Kind: "Workspace", Name: "app", Message: "Workspace team-a/app is refused: spec.parent: ..."}}, true, "Tenant"),
			conds:  []string{"InputsReady=False Refused: Workspace team-a/app is refused: spec.parent: ...."},
		},
		"AnotherRootShard": {
			reason: "A team's Workspace naming a RootShard its Tenant does not share is told so, rather than waiting for a grant that never comes.",
			world: func() *testworld.World {
				w := sharedWorld(granted, true, "Tenant")
				w.Object(map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant",
					"metadata": map[string]any{"name": "team-a", "namespace": "kcp"},
					"spec":     map[string]any{"frontProxy": map[string]any{"ref": map[string]any{"name": "front"}}},
					"status":   map[string]any{"rootShard": "eu"}})
				return w
			}(),
			conds: []string{"InputsReady=False Refused: Tenant kcp/team-a shares RootShard eu with namespace team-a, not root (spec.rootShard.ref.name)."},
		},
		"TooLarge": {
			reason: "A team's Workspace heavier than a team's XR may be says so, naming its largest part, even while its Tenant grants it.",
			ws: func() *v1alpha1.Workspace {
				ws := teamApp()
				ws.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", sharing.TeamXRBytes)}
				return ws
			}(),
			world: sharedWorld(granted, true, "Tenant"),
			conds: []string{"InputsReady=False Refused: metadata.annotations: Forbidden: this Workspace weighs 6289 bytes in metadata and spec, 6199 of them in metadata.annotations; " +
				"a team's Workspace may weigh at most 6144, so that what it asks of its Tenant stays small: remove annotations (kubectl apply keeps a copy of the object in one; kubectl apply --server-side does not)."},
		},
		"NotTheTenants": {
			reason: "A Workspace of the platform's namespace not composed by its Tenant is not reported as the team's.",
			world:  sharedWorld(granted, true, "KcpInstallation"),
			conds:  []string{"InputsReady=False Missing: Tenant kcp/team-a has not composed Workspace kcp/team-a.app for this one yet."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ws := tc.ws
			if ws == nil {
				ws = teamApp()
			}
			r := composeShared(ws, tc.world.State())
			// It composes its TenantRequest and nothing else: it holds no credential of kcp.
			objs := r.Desired.Objects()
			if len(objs) != 1 || objs[0].Name != sharing.RequestKey {
				t.Fatalf("%s\ncomposeShared(...) composed %d objects, want its TenantRequest alone", tc.reason, len(objs))
			}
			rq := objs[0].Resource.(*resource.Unstructured)
			if rq.GetKind() != "TenantRequest" || rq.GetName() != "workspace-"+ws.GetName() {
				t.Errorf("%s\ncomposeShared(...) composed %s %s, want TenantRequest workspace-%s", tc.reason, rq.GetKind(), rq.GetName(), ws.GetName())
			}
			refused, _, _ := unstructured.NestedString(rq.Object, "spec", "refused")
			_, carries, _ := unstructured.NestedMap(rq.Object, "spec", "xr")
			if tooHeavy := name == "TooLarge"; (refused != "") != tooHeavy || carries == tooHeavy {
				t.Errorf("%s\nthe TenantRequest carries the XR: %v, refuses it: %q; a Workspace too heavy for its Tenant is refused in its request, without the XR", tc.reason, carries, refused)
			}
			var conds []string
			for _, c := range r.Conditions {
				conds = append(conds, conditionString(c))
			}
			slices.Sort(conds)
			if diff := cmp.Diff(tc.conds, conds); diff != "" {
				t.Errorf("%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.status, r.Status); diff != "" {
				t.Errorf("%s\nstatus: -want, +got:\n%s", tc.reason, diff)
			}
			if got := !r.NotReady; got != tc.ready {
				t.Errorf("%s\nready = %v, want %v", tc.reason, got, tc.ready)
			}
		})
	}
}

func TestComposeSharedPassesAPIsBoundOn(t *testing.T) {
	w := sharedWorld([]v1alpha1.TenantMember{{Kind: "Workspace", Name: "app", Granted: true}}, false, "Tenant")
	acting := w.Required("Workspace", "team-a.app")
	status := acting["status"].(map[string]any)
	status["apiBindings"] = []any{"databases"}
	status["conditions"] = append(status["conditions"].([]any), map[string]any{"type": TypeAPIsBound, "status": "False", "reason": ReasonAPIsBinding, "message": "Binding APIs in workspace root:team-a:app: queues: kcp reports Binding."})
	r := composeShared(teamApp(), w.State())
	i := slices.IndexFunc(r.Conditions, func(c condition.Condition) bool { return c.Type == TypeAPIsBound })
	if i < 0 || r.Conditions[i].Status || r.Conditions[i].Message != "Binding APIs in workspace root:team-a:app: queues: kcp reports Binding." {
		t.Errorf("The team's Workspace says what the acting one says of its API bindings: %v", r.Conditions)
	}
	if diff := cmp.Diff([]string{"databases"}, r.Status.APIBindings); diff != "" {
		t.Errorf("status.apiBindings is the acting Workspace's: -want, +got:\n%s", diff)
	}
}
