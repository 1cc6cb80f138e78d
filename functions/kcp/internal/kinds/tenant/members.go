package tenant

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
)

// defaultMaxValidity is spec.limits.maxValidity unset: 90 days.
const defaultMaxValidity = 90 * 24 * 60 * 60 * 1e9

// composeKubeconfigs grants the team's Kubeconfigs that reach kcp through the Tenant's
// FrontProxy, oldest first, up to spec.limits.kubeconfigs, as candidates for the budgets. It
// reads what each asks for in its TenantRequest, never the Kubeconfig itself.
func (c *composer) composeKubeconfigs() {
	var mine []*v1alpha1.Kubeconfig
	for _, kc := range requests[v1alpha1.Kubeconfig](c, v1alpha1.KindKubeconfig, v1alpha1.KindFrontProxy, c.frontProxy) {
		if c.names(kc) {
			mine = append(mine, kc)
		}
	}
	sortOldestFirst(mine)
	for i, kc := range mine {
		spec := c.kubeconfigSpec(kc)
		errs := c.checkKubeconfig(kc)
		if len(errs) == 0 {
			errs = c.validateAs(v1alpha1.KindKubeconfig, kc.GetName(), &v1alpha1.Kubeconfig{Spec: spec})
		}
		c.cands = append(c.cands, &candidate{kind: v1alpha1.KindKubeconfig, name: kc.GetName(), created: kc.GetCreationTimestamp(), limit: limit(c.t.Spec.Limits.Kubeconfigs), index: i, errs: errs, spec: spec, cost: kubeconfigCost(spec)})
	}
}

// names reports whether a team's Kubeconfig reaches kcp through the Tenant's FrontProxy. Its
// TenantRequest carries it with a reference Secret already resolved to the FrontProxy it names.
func (c *composer) names(kc *v1alpha1.Kubeconfig) bool {
	r := kc.Spec.Target.FrontProxyRef
	return r != nil && r.Namespace == c.b.Namespace && r.Name == c.frontProxy
}

// kubeconfigSpec is the spec of the Kubeconfig that issues the team's: the team's identity
// and workspace, through the Tenant's FrontProxy, into a Secret the team's Kubeconfig copies.
func (c *composer) kubeconfigSpec(kc *v1alpha1.Kubeconfig) v1alpha1.KubeconfigSpec {
	s := kc.Spec
	ws := s.TargetWorkspace
	if ws == "" {
		ws = c.workspace
	}
	return v1alpha1.KubeconfigSpec{
		Target:          v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: c.frontProxy}},
		Server:          s.Server,
		TargetWorkspace: ws,
		Username:        s.Username,
		Groups:          s.Groups,
		Validity:        s.Validity,
		SecretRef:       corev1.LocalObjectReference{Name: sharing.KubeconfigSecret(c.team, kc.GetName())},
		Authorization:   s.Authorization,
	}
}

// checkKubeconfig holds a team's Kubeconfig to the team's identities, to the team's
// workspace and to the Tenant's limit on validity (its weight, its own composition checked).
func (c *composer) checkKubeconfig(kc *v1alpha1.Kubeconfig) field.ErrorList {
	spec := field.NewPath("spec")
	errs := sharing.CheckKubeconfig(c.team, kc)
	errs = append(errs, sharing.CheckIdentities(c.prefix, kc)...)
	if ws := kc.Spec.TargetWorkspace; ws != "" && !sharing.Within(ws, c.workspace) {
		errs = append(errs, field.Invalid(spec.Child("targetWorkspace"), ws, fmt.Sprintf("the team's workspace is %s: open it or a workspace below it", c.workspace)))
	}
	if a := kc.Spec.Authorization; a != nil && a.ClusterRoleBindings.Cluster != "" && !sharing.Within(a.ClusterRoleBindings.Cluster, c.workspace) {
		errs = append(errs, field.Invalid(spec.Child("authorization", "clusterRoleBindings", "cluster"), a.ClusterRoleBindings.Cluster, fmt.Sprintf("the team's workspace is %s: bind roles in it or below it", c.workspace)))
	}
	maxValidity := metav1.Duration{Duration: defaultMaxValidity}
	if m := c.t.Spec.Limits.MaxValidity; m != nil {
		maxValidity = *m
	}
	if kc.Spec.Validity.Duration > maxValidity.Duration {
		errs = append(errs, field.Invalid(spec.Child("validity"), kc.Spec.Validity.Duration.String(), fmt.Sprintf("at most %s: spec.limits.maxValidity of Tenant %s (kcp cannot revoke a certificate before it expires)", maxValidity.Duration, c.t.GetName())))
	}
	return errs
}

// composeWorkspaces grants the team's Workspaces in the Tenant's installation, oldest first,
// up to spec.limits.workspaces, as candidates for the budgets. It reads what each asks for in
// its TenantRequest, never the Workspace itself.
func (c *composer) composeWorkspaces() {
	var mine []*v1alpha1.Workspace
	for _, ws := range requests[v1alpha1.Workspace](c, v1alpha1.KindWorkspace, v1alpha1.KindRootShard, c.rootShard) {
		if r := ws.Spec.RootShard.Ref; r != nil && r.Namespace == c.b.Namespace && r.Name == c.rootShard {
			mine = append(mine, ws)
		}
	}
	sortOldestFirst(mine)
	granted := map[string]string{} // path: the team's XR granted it in this reconcile
	for i, ws := range mine {
		spec := c.workspaceSpec(ws)
		errs := c.checkWorkspace(ws)
		if len(errs) == 0 {
			errs = c.validateAs(v1alpha1.KindWorkspace, ws.GetName(), &v1alpha1.Workspace{Spec: spec})
		}
		path := workspacePath(spec, "")
		if len(errs) == 0 {
			errs = c.checkPath(path, granted[path])
		}
		if len(errs) == 0 {
			granted[path] = ws.GetName()
		}
		c.cands = append(c.cands, &candidate{kind: v1alpha1.KindWorkspace, name: ws.GetName(), created: ws.GetCreationTimestamp(), limit: limit(c.t.Spec.Limits.Workspaces), index: i, errs: errs, spec: spec, cost: workspaceCost(spec)})
	}
}

// workspaceSpec is the spec of the Workspace that creates the team's: in the team's
// workspace unless the team names a parent below it, named as the team's XR unless it names
// another.
func (c *composer) workspaceSpec(ws *v1alpha1.Workspace) v1alpha1.WorkspaceSpec {
	s := ws.Spec
	parent := s.Parent
	if parent == "" {
		parent = c.workspace
	}
	name := s.Name
	if name == "" {
		name = ws.GetName()
	}
	return v1alpha1.WorkspaceSpec{
		RootShard:           v1alpha1.WorkspaceRootShard{Ref: &v1alpha1.SharedReference{Name: c.rootShard}},
		Parent:              parent,
		Name:                name,
		Type:                s.Type,
		ClusterRoleBindings: s.ClusterRoleBindings,
		APIBindings:         s.APIBindings,
		DeletionPolicy:      s.DeletionPolicy,
	}
}

// checkWorkspace holds a team's Workspace to the team's workspace (its weight, its own
// composition checked), and keeps kcp's own identities out of its bindings.
func (c *composer) checkWorkspace(ws *v1alpha1.Workspace) field.ErrorList {
	spec := field.NewPath("spec")
	errs := sharing.CheckName(c.team, ws.GetName())
	if p := ws.Spec.Parent; p != "" && !sharing.Within(p, c.workspace) {
		errs = append(errs, field.Invalid(spec.Child("parent"), p, fmt.Sprintf("the team's workspace is %s: create workspaces in it or below it", c.workspace)))
	}
	errs = append(errs, c.checkType(spec.Child("type"), ws.Spec.Type)...)
	errs = append(errs, c.checkAPIBindings(spec.Child("apiBindings"), ws.Spec.APIBindings)...)
	return append(errs, sharing.CheckBindings(spec.Child("clusterRoleBindings"), ws.Spec.ClusterRoleBindings)...)
}

// validateAs checks the XR the Tenant would compose for the team's XR name with its kind's
// own validation.
func (c *composer) validateAs(kind, teamName string, xr v1alpha1.XR) field.ErrorList {
	xr.SetName(sharing.Name(c.team, teamName))
	xr.SetNamespace(c.b.Namespace)
	return c.validate(kind, xr)
}

// sortOldestFirst orders XRs by creation, then name: the Tenant's limits refuse the newest.
func sortOldestFirst[X interface {
	GetCreationTimestamp() metav1.Time
	GetName() string
}](xs []X) {
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := xs[i].GetCreationTimestamp(), xs[j].GetCreationTimestamp()
		if !a.Equal(&b) {
			return a.Before(&b)
		}
		return xs[i].GetName() < xs[j].GetName()
	})
}
