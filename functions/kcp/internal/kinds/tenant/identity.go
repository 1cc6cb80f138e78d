package tenant

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// checkOthers refuses a Tenant that would share what an older Tenant of its namespace holds:
// the same team (both would compose the same XRs), identities one of them could forge in the
// other's name, or a workspace inside the other's, whose administrators would reach it. The
// older Tenant keeps its grant.
func (c *composer) checkOthers() field.ErrorList {
	spec := field.NewPath("spec")
	for _, o := range sharing.Tenants(c.b.St, c.b.Namespace, "") {
		if o.GetName() == c.t.GetName() {
			return nil // every Tenant after this one is newer
		}
		held := fmt.Sprintf("Tenant %s/%s, created before this one,", c.b.Namespace, o.GetName())
		switch {
		case sharing.Namespace(o) == c.team:
			return field.ErrorList{field.Forbidden(spec.Child("namespace"),
				fmt.Sprintf("%s already shares this namespace's kcp installation with namespace %s; one Tenant per team: change that one", held, c.team))}
		case sharing.Overlap(sharing.IdentityPrefix(o), c.prefix):
			return field.ErrorList{field.Invalid(spec.Child("identityPrefix"), c.prefix,
				fmt.Sprintf("overlaps the identities of %s grants (%s): one team could name the other's users and groups; choose a prefix neither starts with", held, sharing.IdentityPrefix(o)))}
		case sharing.Within(c.workspace, sharing.Workspace(o)) || sharing.Within(sharing.Workspace(o), c.workspace):
			return field.ErrorList{field.Invalid(spec.Child("workspace"), c.workspace,
				fmt.Sprintf("overlaps workspace %s, which %s grants: the administrators of one would reach the other; choose a workspace outside it", sharing.Workspace(o), held))}
		}
	}
	return nil
}

// installationRoutes are the routes into the installation the Tenant shares (sharing.Route)
// of each of its components in the Tenant's namespace: the RootShard, every Shard and
// every FrontProxy of it, and every VirtualWorkspace (which names a shard, not a RootShard:
// each counts). A Tenant checks them all, not only the front-proxy its team uses: an
// identity kcp takes through any of them is the team's everywhere in kcp. ready is false
// while a structured authentication configuration they name is not read yet.
func (c *composer) installationRoutes(rs *v1alpha1.RootShard) (routes []ownedRoute, ready bool) {
	ready = true
	config := func(name, key string) (string, bool) {
		req := result.Requirement{APIVersion: "v1", Kind: "ConfigMap", Name: name}
		c.reqs = append(c.reqs, req)
		if !c.b.St.Answered(req.Key()) {
			ready = false
			return "", true // not read yet: nothing is decided before it is
		}
		l := c.b.St.Object("ConfigMap", name)
		v, ok := l.Data[key]
		return string(v), l.Found && ok
	}
	add := func(owner string, rs []sharing.Route) {
		for _, r := range rs {
			routes = append(routes, ownedRoute{owner: owner, Route: r})
		}
	}
	add("RootShard "+rs.GetName(), sharing.ShardRoutes(&rs.Spec.CommonShardSpec, config))
	for _, sh := range required.ShardsOf(c.b.St, rs.GetName()) {
		add("Shard "+sh.GetName(), sharing.ShardRoutes(&sh.Spec.CommonShardSpec, config))
	}
	for _, n := range c.b.St.Names(v1alpha1.KindFrontProxy) {
		if !sharing.MayRoute(c.b.St.Object(v1alpha1.KindFrontProxy, n).Object) {
			continue
		}
		fp := &v1alpha1.FrontProxy{}
		if required.Get(c.b.St, v1alpha1.KindFrontProxy, n, fp) && servesRootShard(fp.Spec.RootShard, rs.GetName()) {
			add("FrontProxy "+n, sharing.FrontProxyRoutes(fp, config))
		}
	}
	for _, n := range c.b.St.Names(v1alpha1.KindVirtualWorkspace) {
		if !sharing.MayRoute(c.b.St.Object(v1alpha1.KindVirtualWorkspace, n).Object) {
			continue
		}
		vw := &v1alpha1.VirtualWorkspace{}
		if required.Get(c.b.St, v1alpha1.KindVirtualWorkspace, n, vw) {
			add("VirtualWorkspace "+n, sharing.VirtualWorkspaceRoutes(vw))
		}
	}
	return routes, ready
}

// ownedRoute is a route and the component it leads into.
type ownedRoute struct {
	sharing.Route
	owner string
}

// servesRootShard reports whether a component's spec.rootShard names the RootShard rs: by
// ref, or by its reference Secret.
func servesRootShard(r v1alpha1.RootShardConfig, rs string) bool {
	return (r.Ref != nil && r.Ref.Name == rs) || (r.SecretRef != nil && r.SecretRef.Name == names.Reference(rs))
}

// checkRoutes refuses a Tenant whose identities kcp could also take through a route into
// the installation: a user or group of an identity provider, a webhook or another CA named
// like the team's would be the team's. Each route is named with its component and field.
func (c *composer) checkRoutes(routes []ownedRoute) field.ErrorList {
	var errs field.ErrorList
	for _, r := range routes {
		errs = append(errs, sharing.CheckRoutes(field.NewPath("spec", "identityPrefix"), c.prefix, r.owner, []sharing.Route{r.Route})...)
	}
	return errs
}

// checkHomeWorkspaces refuses a Tenant whose team's users would get a home workspace on a
// shard of the installation (sharing.HomeWorkspacesFor): it would lie outside the team's
// workspace, count against none of the Tenant's limits and outlive the Kubeconfig that made
// it. The installation turns them off, or gives them only to groups no team user is in.
func (c *composer) checkHomeWorkspaces(rs *v1alpha1.RootShard) field.ErrorList {
	p := field.NewPath("spec", "frontProxy", "ref", "name")
	root := fmt.Sprintf("RootShard %s/%s", c.b.Namespace, rs.GetName())
	var errs field.ErrorList
	if why := sharing.HomeWorkspacesFor(c.prefix, c.team, root, rs.Spec.HomeWorkspaces); why != "" {
		errs = append(errs, field.Forbidden(p, why))
	}
	for _, sh := range required.ShardsOf(c.b.St, rs.GetName()) {
		owner := fmt.Sprintf("Shard %s/%s", c.b.Namespace, sh.GetName())
		if why := sharing.ShardHomeWorkspacesFor(c.prefix, c.team, owner, root, sh.Spec.HomeWorkspaces, rs.Spec.HomeWorkspaces); why != "" {
			errs = append(errs, field.Forbidden(p, why))
		}
	}
	return errs
}
