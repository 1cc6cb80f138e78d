package kubeconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// TypeBindingsReady says whether the cluster roles of spec.authorization are bound inside
// kcp. A Kubeconfig without spec.authorization has no such condition.
const TypeBindingsReady = "BindingsReady"

// Reasons of BindingsReady.
const (
	ReasonBound     = "Bound"
	ReasonBinding   = "Binding"
	ReasonUnbinding = "Unbinding"
)

// bindingPrefix starts the composition resource name of every binding Object.
const bindingPrefix = "object-binding-"

// bindings is what the Kubeconfig's ClusterRoleBindings inside kcp came to.
type bindings struct {
	// workspace is where spec.authorization binds, "" without it.
	workspace string
	roles     []string
	keys      []resource.Name
	// waiting says why a binding is not in kcp yet, from its Object's conditions.
	waiting []string
	// elsewhere lists workspaces where Objects composed earlier still hold bindings: a
	// workspace the Kubeconfig moved away from, or all of them once spec.authorization goes.
	elsewhere []string
	// kept is set while the target cannot be read: every binding Object is kept as it is,
	// and InputsReady says why.
	kept bool
}

// composeBindings composes, as kcp-operator's RBAC controller creates, one ClusterRoleBinding
// per spec.authorization.clusterRoleBindings.clusterRoles entry in the workspace the
// Kubeconfig targets, each through a provider-kubernetes Object using its RootShard's
// ProviderConfig for that workspace. What is no longer composed (a role removed, the whole
// authorization removed, the old workspace after a move) Crossplane deletes, and
// provider-kubernetes deletes the binding in kcp. Deleting the Kubeconfig deletes them too.
func (c *composer) composeBindings() {
	if a := c.kc.Spec.Authorization; a != nil && c.kc.UID != "" {
		c.authz.workspace = rbacWorkspace(c.kc)
		c.authz.roles = slices.Sorted(slices.Values(a.ClusterRoleBindings.ClusterRoles))
		c.authz.roles = slices.Compact(c.authz.roles)
		uid := string(c.kc.UID)
		for _, role := range c.authz.roles {
			name := names.Binding(v1alpha1.KindKubeconfig, c.kc.Name, c.authz.workspace, role)
			key := c.b.Key("object", name)
			c.authz.keys = append(c.authz.keys, key)
			c.b.Set.Add(key, inkcp.Object{
				Name:           name,
				Namespace:      c.b.Namespace,
				Labels:         map[string]string{names.LabelInKCPRootShard: c.t.rs.Name, names.LabelOwnerKubeconfig: c.kc.Name},
				Annotations:    map[string]string{names.AnnotationWorkspace: c.authz.workspace},
				ProviderConfig: c.t.root.ProviderConfig(c.authz.workspace),
				Policies:       inkcp.PoliciesAll,
				Manifest: inkcp.ClusterRoleBinding(names.KubeconfigBinding(uid, role), map[string]string{names.LabelOwnerKubeconfig: uid}, role,
					[]inkcp.Subject{{Kind: "Group", Name: c.name.Group()}}),
			}.Unstructured(), builder.Readiness(c.b.St.ConditionTrue(key, "Ready")))
			if why := c.notBound(key, role); why != "" {
				c.authz.waiting = append(c.authz.waiting, why)
			}
		}
	}
	if c.kc.Spec.Authorization != nil && c.kc.UID == "" {
		// Render without a UID: kcp-operator names bindings after it.
		return
	}
	c.observeBindings()
}

// observeBindings records the workspaces of the binding Objects that exist but are not
// composed from the current spec: they hold bindings in kcp until Crossplane deletes them.
func (c *composer) observeBindings() {
	for _, key := range c.b.St.ComposedNames() {
		if !strings.HasPrefix(string(key), bindingPrefix) || slices.Contains(c.authz.keys, key) {
			continue
		}
		c.authz.elsewhere = append(c.authz.elsewhere, c.b.St.String(key, "metadata", "annotations", names.AnnotationWorkspace))
	}
	slices.Sort(c.authz.elsewhere)
	c.authz.elsewhere = slices.Compact(c.authz.elsewhere)
}

// notBound says why the binding of role is not in kcp yet, "" when it is.
func (c *composer) notBound(key resource.Name, role string) string {
	if !c.b.St.Exists(key) {
		return fmt.Sprintf("%s: waiting for Crossplane to create its Object", role)
	}
	if c.b.St.ConditionTrue(key, "Ready") {
		return ""
	}
	if ok, _, msg, found := c.b.St.Condition(key, "Synced"); found && !ok {
		return fmt.Sprintf("%s: %s", role, msg)
	}
	return fmt.Sprintf("%s: waiting for provider-kubernetes to create it", role)
}

// bound reports whether every binding spec.authorization asks for is in kcp.
func (b bindings) bound() bool { return b.workspace != "" && len(b.waiting) == 0 }

// status is status.authorization: the workspace whose bindings are all in kcp, else one where
// earlier bindings still are, else nil.
func (b bindings) status() *v1alpha1.KubeconfigAuthorizationStatus {
	switch {
	case b.bound():
		return &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: b.workspace}
	case len(b.elsewhere) > 0:
		return &v1alpha1.KubeconfigAuthorizationStatus{ProvisionedCluster: b.elsewhere[0]}
	}
	return nil
}

// condition is BindingsReady, nil when there is nothing to report.
func (b bindings) condition(group string) *condition.Condition {
	var c condition.Condition
	switch {
	case b.kept, b.workspace == "" && len(b.elsewhere) == 0:
		return nil
	case b.workspace == "":
		c = condition.Condition{Status: false, Reason: ReasonUnbinding, Message: fmt.Sprintf("spec.authorization is removed; removing the ClusterRoleBindings of group %s in workspace %s.", group, strings.Join(b.elsewhere, ", "))}
	case len(b.waiting) > 0:
		c = condition.Condition{Status: false, Reason: ReasonBinding, Message: fmt.Sprintf("Binding cluster roles to group %s in workspace %s: %s.", group, b.workspace, strings.Join(b.waiting, "; "))}
	case len(b.elsewhere) > 0:
		c = condition.Condition{Status: true, Reason: ReasonBound, Message: fmt.Sprintf("Cluster roles %s are bound to group %s in workspace %s; removing the earlier bindings in %s.", strings.Join(b.roles, ", "), group, b.workspace, strings.Join(b.elsewhere, ", "))}
	default:
		c = condition.Condition{Status: true, Reason: ReasonBound, Message: fmt.Sprintf("Cluster roles %s are bound to group %s in workspace %s.", strings.Join(b.roles, ", "), group, b.workspace)}
	}
	c.Type = TypeBindingsReady
	return &c
}
