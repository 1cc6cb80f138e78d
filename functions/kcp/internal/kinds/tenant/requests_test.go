package tenant

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// withRequest changes the TenantRequest of a team's XR as requestOf makes it.
func withRequest(o any, mod func(*v1alpha1.TenantRequest)) *v1alpha1.TenantRequest {
	rq := requestOf(o).(*v1alpha1.TenantRequest)
	mod(rq)
	return rq
}

// grantedBefore is the world of Tenant t in which what it composed for the team's XRs carries
// no sharing.LabelGrantedThrough, as before TenantRequests existed, and the requests are gone.
func grantedBefore(t *v1alpha1.Tenant, team ...any) *testworld.World {
	w := settled(t, installation(t, team...))
	for _, k := range []string{"kubeconfig-dev", "workspace-app"} {
		if u := w.Composed(resource.Name(k)); u != nil {
			l := u.GetLabels()
			delete(l, sharing.LabelGrantedThrough)
			u.SetLabels(l)
		}
	}
	return w.Drop(v1alpha1.KindTenantRequest, "kubeconfig-dev").Drop(v1alpha1.KindTenantRequest, "workspace-app")
}

// TestRequests reads the team's XRs through what they ask for: a Tenant grants from
// TenantRequests its team's XRs made, and reads nothing the team writes itself.
func TestRequests(t *testing.T) {
	runComposeCases(t, map[string]composeCase{
		"RequestNotMadeByItsXR": {
			reason: "A request is granted only when its controller is the team's XR it names: Crossplane writes the controller, a team cannot.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, withRequest(teamKubeconfig("dev", 1), func(rq *v1alpha1.TenantRequest) { rq.OwnerReferences[0].Name = "other" }))
			},
			composed: []string{teamWorkspaceXR},
		},
		"RequestForAnotherInstallation": {
			reason: "A request naming another FrontProxy is another Tenant's to read, whatever the XR inside says.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, withRequest(teamKubeconfig("dev", 1), func(rq *v1alpha1.TenantRequest) { rq.Spec.Target.Namespace = "kcp-eu" }))
			},
			composed: []string{teamWorkspaceXR},
		},
		"RequestBeingDeleted": {
			reason: "A request being deleted goes with its team's XR.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, withRequest(teamKubeconfig("dev", 1), func(rq *v1alpha1.TenantRequest) { d := metav1.NewTime(time.Unix(500, 0)); rq.DeletionTimestamp = &d }))
			},
			composed: []string{teamWorkspaceXR},
		},
		"RefusedByItsOwnComposition": {
			reason: "A team's XR too heavy to be asked for is named in the Tenant's status, with its own composition's reason, and charged nothing.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, withRequest(teamKubeconfig("dev", 1), func(rq *v1alpha1.TenantRequest) {
					rq.Spec.XR, rq.Spec.Refused = nil, "metadata.annotations: Forbidden: this Kubeconfig weighs 1400000 bytes"
				}), teamKubeconfig("ops", 2))
			},
			composed: []string{
				`Kubeconfig team-a.ops {"groups":["tenant:team-a:devs"],"secretRef":{"name":"team-a.ops-kubeconfig"},"target":{"frontProxyRef":{"name":"front"}},"targetWorkspace":"root:team-a","username":"tenant:team-a:alice","validity":"720h0m0s"}`,
				teamWorkspaceXR,
			},
			members: []v1alpha1.TenantMember{
				{Kind: "Kubeconfig", Name: "ops", Granted: true, Message: "Kubeconfig kcp/team-a.ops is not Ready yet"},
				{Kind: "Kubeconfig", Name: "dev", Message: "Kubeconfig team-a/dev is refused: metadata.annotations: Forbidden: this Kubeconfig weighs 1400000 bytes"},
			},
		},
		"GrantedBeforeRequestsIsKept": {
			reason:   "What a Tenant granted before TenantRequests existed is kept, unchanged, until its team's XR asks again: its XR is not known to be gone.",
			tenant:   grant(),
			world:    func(t *v1alpha1.Tenant) *testworld.World { return grantedBefore(t, teamKubeconfig("dev", 1)) },
			composed: []string{teamWorkspaceXR, "kept Kubeconfig team-a.dev"},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Granted: true,
				Message: "Kubeconfig team-a/dev was granted before TenantRequests; what was composed for it is kept unchanged until it asks again (its next reconcile), or until Kubeconfig kcp/team-a.dev is deleted"}},
		},
		"GrantedThroughARequestGoesWithIt": {
			reason: "What was granted through a request goes once the request does: its team's XR was deleted, or no longer names the installation.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return settled(t, installation(t, teamKubeconfig("dev", 1))).Drop(v1alpha1.KindTenantRequest, "kubeconfig-dev")
			},
			composed: []string{teamWorkspaceXR},
		},
		"AskedAgainAfterTheUpgrade": {
			reason: "Once the team's XR asks through a request, its grant is composed again, labelled as granted through it.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return grantedBefore(t, teamKubeconfig("dev", 1)).Object(requestOf(teamKubeconfig("dev", 1)))
			},
			composed: []string{devKubeconfig, teamWorkspaceXR},
			members:  []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Granted: true, Message: "Kubeconfig kcp/team-a.dev is not Ready yet"}},
		},
	})
}
