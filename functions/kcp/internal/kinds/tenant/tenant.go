// Package tenant composes a Tenant: the platform's grant of the kcp installation of its
// namespace to one team's namespace (docs/design/many-teams-many-clusters.md, story 1).
//
// A team's XR cannot compose in the installation's namespace, where the CAs are, and must
// not choose what it gets. So the Tenant reads the team's Kubeconfigs and Workspaces that
// name its installation, holds each to the team's identities and workspace, and composes
// for it, in its own namespace, an XR of the same kind that does the privileged work: a
// Kubeconfig issues the client certificate, a Workspace acts in kcp with the RootShard's
// credentials. The team's XR then copies the kubeconfig, or reports the workspace. A
// team's XR the Tenant refuses gets nothing new, and what was composed for it before is
// kept as it is.
package tenant

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Conditions of a Tenant.
const (
	// TypeMembersReady says whether every team XR the Tenant grants is Ready, and names
	// those it refuses.
	TypeMembersReady = "MembersReady"

	ReasonReady    = "Ready"
	ReasonPending  = "Pending"
	ReasonRefused  = "Refused"
	PhaseReady     = "Ready"
	PhaseNotReady  = "Provisioning"
	keyWorkspace   = resource.Name("workspace")
	defaultMembers = 10
)

// ValidateXR checks an XR of one of this function's kinds with that kind's own validation
// (fn.go's table), so a Tenant never composes an XR its kind would refuse.
type ValidateXR func(kind string, xr v1alpha1.XR) field.ErrorList

// Composer returns the composer of Tenants whose composed XRs validate checks.
func Composer(validate ValidateXR) func(*v1alpha1.Tenant, *observed.State) (result.Result[v1alpha1.TenantStatus], field.ErrorList) {
	return func(t *v1alpha1.Tenant, st *observed.State) (result.Result[v1alpha1.TenantStatus], field.ErrorList) {
		return Compose(t, st, validate)
	}
}

// composer composes one Tenant.
type composer struct {
	b        *builder.Builder
	t        *v1alpha1.Tenant
	validate ValidateXR
	// team is the team's namespace, workspace its workspace's path, prefix the prefix of
	// its identities.
	team, workspace, prefix string
	// frontProxy and rootShard are the installation's, in the Tenant's namespace.
	frontProxy, rootShard string
	members               []v1alpha1.TenantMember
	// cands are the team's XRs that passed every check but the budgets (budget.go).
	cands []*candidate
	// asked are the members the team's TenantRequests ask for (requests.go).
	asked asked
	// reqs are what the Tenant reads: its installation and the team's XRs, then the
	// reference Secrets those name.
	reqs []result.Requirement
}

// Compose composes the team's workspace and, for every team XR it grants, the XR that does
// its privileged work. The Tenant must have passed Validate.
func Compose(t *v1alpha1.Tenant, st *observed.State, validate ValidateXR) (result.Result[v1alpha1.TenantStatus], field.ErrorList) {
	c := &composer{
		b: builder.New(t.GetName(), t.GetNamespace(), st), t: t, validate: validate,
		team: sharing.Namespace(t), workspace: sharing.Workspace(t), prefix: sharing.IdentityPrefix(t), frontProxy: t.Spec.FrontProxy.Ref.Name,
		asked: asked{},
	}
	status := v1alpha1.TenantStatus{Namespace: c.team, Workspace: c.workspace, IdentityPrefix: c.prefix, Phase: PhaseNotReady}
	c.reqs = []result.Requirement{
		// Every FrontProxy, Shard and VirtualWorkspace of the namespace: each is a route into
		// the installation for identities (identity.go), not only the team's front-proxy.
		required.All(v1alpha1.KindFrontProxy),
		required.All(v1alpha1.KindShard),
		required.All(v1alpha1.KindVirtualWorkspace),
		sharing.TenantsRequirement(t.GetNamespace()),
		// The team's XRs are read only once a quota bounds them (quota.go).
		quotaRequirement(c.team),
		// The XRs of the Tenant's own namespace whose names a composed XR could take.
		required.All(v1alpha1.KindKubeconfig),
		required.All(v1alpha1.KindWorkspace),
	}
	for _, r := range c.reqs {
		if !st.Answered(r.Key()) {
			// Crossplane answers before it applies anything; until then compose nothing new
			// and delete nothing.
			c.b.KeepAll()
			return result.Result[v1alpha1.TenantStatus]{Desired: c.b.Set, Requirements: c.reqs, Status: status, NotReady: true}, nil
		}
	}
	if errs := append(c.checkOthers(), c.checkCapacity()...); len(errs) > 0 {
		return result.Result[v1alpha1.TenantStatus]{}, errs
	}
	fp := &v1alpha1.FrontProxy{}
	if !required.Get(st, v1alpha1.KindFrontProxy, c.frontProxy, fp) || fp.Spec.RootShard.Ref == nil {
		missing := c.b.Unreadable(fmt.Sprintf("FrontProxy %s (spec.frontProxy.ref.name) does not exist in namespace %s, or names no RootShard; create it or fix the reference", c.frontProxy, t.GetNamespace()))
		return result.Result[v1alpha1.TenantStatus]{Desired: c.b.Set, Requirements: c.reqs, Status: status, Conditions: []condition.Condition{missing}, NotReady: true}, nil
	}
	c.rootShard = fp.Spec.RootShard.Ref.Name
	status.RootShard = c.rootShard
	// The RootShard's, its shards' and its front-proxies' authentication decide which
	// identities kcp takes from elsewhere.
	rsReq := required.Named(v1alpha1.KindRootShard, c.rootShard)
	c.reqs = append(c.reqs, rsReq)
	rs := &v1alpha1.RootShard{}
	if !st.Answered(rsReq.Key()) {
		c.b.KeepAll()
		return result.Result[v1alpha1.TenantStatus]{Desired: c.b.Set, Requirements: c.reqs, Status: status, NotReady: true}, nil
	}
	if !required.Get(st, v1alpha1.KindRootShard, c.rootShard, rs) {
		missing := c.b.Unreadable(fmt.Sprintf("RootShard %s, which FrontProxy %s names, does not exist in namespace %s; create it or fix the FrontProxy", c.rootShard, c.frontProxy, t.GetNamespace()))
		return result.Result[v1alpha1.TenantStatus]{Desired: c.b.Set, Requirements: c.reqs, Status: status, Conditions: []condition.Condition{missing}, NotReady: true}, nil
	}
	routes, read := c.installationRoutes(rs)
	if !read {
		// The team's XRs are asked for in the same round as the configurations, so that
		// the rounds of requirements Crossplane allows suffice.
		c.readTeam()
		c.b.KeepAll()
		return result.Result[v1alpha1.TenantStatus]{Desired: c.b.Set, Requirements: c.reqs, Status: status, NotReady: true}, nil
	}
	if errs := append(c.checkRoutes(routes), c.checkHomeWorkspaces(rs)...); len(errs) > 0 {
		return result.Result[v1alpha1.TenantStatus]{}, errs
	}

	ready, errs := c.composeWorkspace()
	if len(errs) > 0 {
		return result.Result[v1alpha1.TenantStatus]{}, errs
	}
	if cond, read := c.readTeam(); !read {
		// Nothing new for the team, nothing taken away: what was granted before is kept.
		c.keepMembers()
		return result.Result[v1alpha1.TenantStatus]{Desired: c.b.Set, Requirements: c.reqs, Status: status, Conditions: []condition.Condition{cond}, NotReady: true}, nil
	}
	c.composeKubeconfigs()
	c.composeWorkspaces()
	c.charge(slices.Clone(c.cands))
	for _, cd := range c.cands {
		if cd.refused != "" {
			c.refuse(cd.kind, cd.name, cd.refused)
			continue
		}
		c.grant(cd.kind, cd.name, cd.limit, cd.index, cd.errs, cd.spec)
	}
	c.keepUnasked()

	status.Members, status.MembersNotListed = boundMembers(c.members)
	// A refused team XR does not make the Tenant unready: a team must not be able to turn
	// the platform's grant red with a bad XR. The condition names it all the same.
	granted := ready && c.grantedReady()
	if granted {
		status.Phase = PhaseReady
	}
	return result.Result[v1alpha1.TenantStatus]{
		Desired:      c.b.Set,
		Requirements: c.reqs,
		Status:       status,
		Conditions:   []condition.Condition{c.membersCondition(ready)},
		NotReady:     !granted,
	}, nil
}

// composeWorkspace composes the team's workspace, with the Tenant's bindings, and reports
// whether it is Ready.
func (c *composer) composeWorkspace() (bool, field.ErrorList) {
	cut := strings.LastIndex(c.workspace, ":")
	ws := &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{
		RootShard:           v1alpha1.WorkspaceRootShard{Ref: &v1alpha1.SharedReference{Name: c.rootShard}},
		Parent:              c.workspace[:cut],
		Name:                c.workspace[cut+1:],
		ClusterRoleBindings: c.t.Spec.ClusterRoleBindings,
		DeletionPolicy:      c.t.Spec.DeletionPolicy,
	}}
	ws.SetName(c.t.GetName())
	ws.SetNamespace(c.b.Namespace)
	if errs := c.validate(v1alpha1.KindWorkspace, ws); len(errs) > 0 {
		return false, errs
	}
	if why := c.taken(v1alpha1.KindWorkspace, ws.GetName()); why != "" {
		return false, field.ErrorList{field.Forbidden(field.NewPath("metadata", "name"), why+"; rename this Tenant")}
	}
	ready, err := c.b.XR(keyWorkspace, v1alpha1.KindWorkspace, ws.GetName(), sharing.Labels(c.t.GetName(), c.team, ""), ws.Spec)
	if err != nil {
		return false, field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	return ready, nil
}

// taken says why an XR of a kind and name in the Tenant's namespace cannot be composed:
// it exists and this Tenant does not control it. "" when it can.
func (c *composer) taken(kind, name string) string {
	l := c.b.St.Object(kind, name)
	if !l.Found || (c.t.GetUID() != "" && l.Controller == string(c.t.GetUID())) {
		return ""
	}
	by := "it has no controller"
	if l.ControllerKind != "" {
		by = fmt.Sprintf("its controller is %s %s", l.ControllerKind, l.ControllerName)
	}
	return fmt.Sprintf("the %s %s/%s this would compose exists and is not controlled by Tenant %s (%s); it is left untouched", kind, c.b.Namespace, name, c.t.GetName(), by)
}

// grant composes the XR for one team XR, or refuses it: a refused team XR keeps what was
// composed for it before, unchanged, and its member says why.
func (c *composer) grant(kind, teamName string, limit, index int, errs field.ErrorList, spec v1alpha1.Spec) {
	m := v1alpha1.TenantMember{Kind: kind, Name: teamName}
	name := sharing.Name(c.team, teamName)
	key := memberKey(kind, teamName)
	if index >= limit {
		errs = append(field.ErrorList{field.Forbidden(field.NewPath("metadata", "name"), fmt.Sprintf("the team has more %ss than spec.limits.%ss of Tenant %s allows (%d): the newest are refused; delete one, or ask the platform team", kind, strings.ToLower(kind), c.t.GetName(), limit))}, errs...)
	}
	if why := c.taken(kind, name); why != "" {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), why+"; rename this "+kind))
	}
	if len(errs) > 0 {
		c.refuse(kind, teamName, errs.ToAggregate().Error())
		return
	}
	labels := sharing.Labels(c.t.GetName(), c.team, teamName)
	labels[sharing.LabelGrantedThrough] = sharing.GrantedThroughRequest
	ready, err := c.b.XR(key, kind, name, labels, spec)
	if err != nil {
		m.Message = err.Error()
	}
	m.Granted, m.Ready = err == nil, ready
	if err == nil && !ready {
		m.Message = fmt.Sprintf("%s %s/%s is not Ready yet", kind, c.b.Namespace, name)
	}
	c.members = append(c.members, m)
}

// refuse refuses the team's XR of a kind and name, saying why: what was composed for it
// before is kept unchanged.
func (c *composer) refuse(kind, teamName, why string) {
	m := v1alpha1.TenantMember{Kind: kind, Name: teamName, Message: fmt.Sprintf("%s %s/%s is refused: %s", kind, c.team, teamName, why)}
	key := memberKey(kind, teamName)
	if u, ok := c.b.St.Get(key); ok {
		c.b.Set.Keep(key, u, builder.Readiness(c.b.St.ConditionTrue(key, "Ready")))
		m.Message += "; what was composed for it before is kept unchanged"
	}
	c.members = append(c.members, m)
}

// memberKey is the composition resource name of what the Tenant composes for the team's XR
// of a kind and name.
func memberKey(kind, teamName string) resource.Name {
	return resource.Name(strings.ToLower(kind) + "-" + teamName)
}

// membersCondition says whether the team's workspace and every granted member is Ready,
// and names every refused one.
func (c *composer) membersCondition(workspaceReady bool) condition.Condition {
	var waiting, refused []string
	if !workspaceReady {
		waiting = append(waiting, "the team's workspace "+c.workspace)
	}
	for _, m := range c.members {
		switch {
		case !m.Granted:
			refused = append(refused, m.Kind+" "+m.Name)
		case !m.Ready:
			waiting = append(waiting, m.Kind+" "+m.Name)
		}
	}
	switch {
	case len(refused) > 0:
		return condition.Condition{Type: TypeMembersReady, Reason: ReasonRefused, Message: fmt.Sprintf("Refused for namespace %s: %s (status.members says why).", c.team, named(refused, "refused"))}
	case len(waiting) > 0:
		return condition.Condition{Type: TypeMembersReady, Reason: ReasonPending, Message: "Not Ready yet: " + named(waiting, "not Ready") + "."}
	}
	return condition.Condition{Type: TypeMembersReady, Status: true, Reason: ReasonReady, Message: fmt.Sprintf("The team's workspace %s and its %d granted XRs are Ready.", c.workspace, len(c.members))}
}

// grantedReady reports whether every granted member is Ready.
func (c *composer) grantedReady() bool {
	for _, m := range c.members {
		if m.Granted && !m.Ready {
			return false
		}
	}
	return true
}

// limit is a spec.limits value, else the default.
func limit(v *int32) int {
	if v == nil {
		return defaultMembers
	}
	return int(*v)
}
