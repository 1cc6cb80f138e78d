package workspace

import (
	"fmt"
	"slices"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// ReasonRefused is InputsReady's reason when the Tenant refuses the Workspace.
const ReasonRefused = "Refused"

// Shared reports whether the Workspace lives in an installation of another namespace, one
// shared with its own by a Tenant there.
func Shared(ws *v1alpha1.Workspace) bool {
	r := ws.Spec.RootShard.Ref
	return r != nil && r.Namespace != "" && r.Namespace != ws.GetNamespace()
}

// composeShared reports a team's Workspace of a shared installation. It composes nothing:
// the Workspace its Tenant composes for it acts in kcp, with credentials the team never
// holds; this one reports that one's status.
func composeShared(ws *v1alpha1.Workspace, st *observed.State) result.Result[v1alpha1.WorkspaceStatus] {
	team, ns := ws.GetNamespace(), ws.Spec.RootShard.Ref.Namespace
	name := sharing.Name(team, ws.GetName())
	reqs := []result.Requirement{sharing.TenantsRequirement(ns), required.NamedIn(v1alpha1.KindWorkspace, ns, name)}
	// What this Workspace asks of its Tenant, which reads that, never this XR.
	b := builder.New(ws.GetName(), team, st)
	request := sharing.Request(v1alpha1.KindWorkspace, ws, ws.Spec, v1alpha1.TenantRequestTarget{Kind: v1alpha1.KindRootShard, Namespace: ns, Name: ws.Spec.RootShard.Ref.Name}, st)
	_, _ = b.XR(sharing.RequestKey, v1alpha1.KindTenantRequest, sharing.RequestName(v1alpha1.KindWorkspace, ws.GetName()), nil, request) // a TenantRequestSpec always encodes
	r := result.Result[v1alpha1.WorkspaceStatus]{Desired: b.Set, Requirements: reqs, NotReady: true}
	wait := func(reason, why string) result.Result[v1alpha1.WorkspaceStatus] {
		r.Conditions = []condition.Condition{{Type: condition.TypeInputsReady, Reason: reason, Message: why + "."}}
		return r
	}
	for _, q := range reqs {
		if !st.Answered(q.Key()) {
			return wait(condition.ReasonMissing, "Reading the Tenant of namespace "+ns)
		}
	}
	t, why := sharing.Grant(st, ns, team)
	if t == nil {
		return wait(condition.ReasonMissing, why)
	}
	if rs := t.Status.RootShard; rs != "" && rs != ws.Spec.RootShard.Ref.Name {
		// The Tenant grants only Workspaces naming its RootShard: say so rather than wait.
		return wait(ReasonRefused, fmt.Sprintf("Tenant %s/%s shares RootShard %s with namespace %s, not %s (spec.rootShard.ref.name)", ns, t.GetName(), rs, team, ws.Spec.RootShard.Ref.Name))
	}
	if request.Refused != "" {
		return wait(ReasonRefused, request.Refused)
	}
	if i := slices.IndexFunc(t.Status.Members, func(m v1alpha1.TenantMember) bool {
		return m.Kind == v1alpha1.KindWorkspace && m.Name == ws.GetName()
	}); i >= 0 && !t.Status.Members[i].Granted {
		return wait(ReasonRefused, t.Status.Members[i].Message)
	}
	l := st.ObjectIn(ns, v1alpha1.KindWorkspace, name)
	if !sharing.ComposedFor(l, team, ws.GetName()) {
		return wait(condition.ReasonMissing, fmt.Sprintf("Tenant %s/%s has not composed Workspace %s/%s for this one yet", ns, t.GetName(), ns, name))
	}
	acting := &v1alpha1.Workspace{}
	required.GetIn(st, ns, v1alpha1.KindWorkspace, name, acting)
	r.Status = acting.Status
	ok, reason, msg, found := observed.ConditionOf(l.Object, "Ready")
	r.Conditions = []condition.Condition{{Type: condition.TypeInputsReady, Status: true, Reason: condition.ReasonAllPresent,
		Message: fmt.Sprintf("Tenant %s/%s grants this Workspace; Workspace %s/%s acts in kcp for it.", ns, t.GetName(), ns, name)}}
	ready := condition.Condition{Type: TypeWorkspaceReady, Status: ok, Reason: ReasonReady, Message: fmt.Sprintf("Workspace %s/%s is Ready: kcp reports workspace %s Ready.", ns, name, acting.Status.Path)}
	if !ok {
		ready.Reason, ready.Message = ReasonPending, fmt.Sprintf("Workspace %s/%s is not Ready yet", ns, name)
		if found && msg != "" {
			ready.Message += " (" + reason + ": " + msg + ")"
		}
		ready.Message += "."
	}
	r.Conditions = append(r.Conditions, ready)
	if bound, reason, msg, found := observed.ConditionOf(l.Object, TypeAPIsBound); found {
		// The team binds APIs through this XR: it says whether they are, as the acting one does.
		r.Conditions = append(r.Conditions, condition.Condition{Type: TypeAPIsBound, Status: bound, Reason: reason, Message: msg})
	}
	r.NotReady = !ok
	return r
}
