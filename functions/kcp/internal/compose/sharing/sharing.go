// Package sharing holds what a Tenant and a team's XRs agree on when the platform shares a kcp
// installation with a team's namespace (docs/design/many-teams-many-clusters.md): which
// Tenant grants a namespace, the names and labels of the XRs a Tenant composes for a team's
// XR, and whether one of those was composed for a given team's XR. Both sides derive these
// from names alone, so a team's XR never reads anything of the platform's namespace it was
// not given.
package sharing

import (
	"fmt"
	"sort"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Labels of the XRs a Tenant composes for a team.
const (
	// LabelTenant names the Tenant that composed the XR.
	LabelTenant = "kcp.crossplane.io/tenant"
	// LabelTeamNamespace is the team's namespace.
	LabelTeamNamespace = "kcp.crossplane.io/team-namespace"
	// LabelTeamXR is the name of the team's XR it was composed for.
	LabelTeamXR = "kcp.crossplane.io/team-xr"
)

// MaxNameLength bounds the name of an XR a Tenant composes: it is a label value of what that
// XR composes.
const MaxNameLength = 63

// Namespace is the namespace a Tenant shares its installation with: spec.namespace, else
// the Tenant's name.
func Namespace(t *v1alpha1.Tenant) string {
	if t.Spec.Namespace != "" {
		return t.Spec.Namespace
	}
	return t.GetName()
}

// Workspace is the path of the team's workspace: spec.workspace, else root:<namespace>.
func Workspace(t *v1alpha1.Tenant) string {
	if t.Spec.Workspace != "" {
		return t.Spec.Workspace
	}
	return "root:" + Namespace(t)
}

// Within reports whether path is the team's workspace or below it.
func Within(path, teamWorkspace string) bool {
	return path == teamWorkspace || len(path) > len(teamWorkspace) && path[:len(teamWorkspace)+1] == teamWorkspace+":"
}

// Name is the name of the XR a Tenant composes, in its own namespace, for the team's XR
// name of namespace ns. Namespaces hold no dots, so two teams' names never meet.
func Name(ns, name string) string { return ns + "." + name }

// Labels are the labels of the XR a Tenant composes for the team's XR name of namespace ns.
// The team's workspace, composed for no team XR, has no name ("").
func Labels(tenant, ns, name string) map[string]string {
	l := map[string]string{LabelTenant: tenant, LabelTeamNamespace: ns}
	if name != "" {
		l[LabelTeamXR] = name
	}
	return l
}

// TenantsRequirement reads every Tenant of namespace ns, the installation's.
func TenantsRequirement(ns string) result.Requirement { return required.AllIn(v1alpha1.KindTenant, ns) }

// Tenants returns the required Tenants of namespace ns that share with namespace team (every
// Tenant of ns for ""), oldest first: the first is the one that grants; a later one is
// refused.
func Tenants(st *observed.State, ns, team string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for _, n := range st.NamesIn(ns, v1alpha1.KindTenant) {
		t := &v1alpha1.Tenant{}
		if required.GetIn(st, ns, v1alpha1.KindTenant, n, t) && (team == "" || Namespace(t) == team) {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].GetCreationTimestamp(), out[j].GetCreationTimestamp()
		if !a.Equal(&b) {
			return a.Before(&b)
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out
}

// Grant is the Tenant of namespace ns that shares its installation with namespace team, if
// any, and why there is none.
func Grant(st *observed.State, ns, team string) (*v1alpha1.Tenant, string) {
	ts := Tenants(st, ns, team)
	if len(ts) == 0 {
		return nil, fmt.Sprintf("no Tenant in namespace %s shares its kcp installation with namespace %s; the platform team creates one (docs/shared-kcp.md)", ns, team)
	}
	return ts[0], ""
}

// ComposedFor reports whether a required XR (its Lookup) was composed by a Tenant of its
// namespace for the team's XR name of namespace team: its controller is a Tenant and its
// labels say so. Only the Tenant's composition writes both; a team cannot write in the
// installation's namespace at all.
func ComposedFor(l observed.Lookup, team, name string) bool {
	if !l.Found || l.Object == nil || l.ControllerKind != v1alpha1.KindTenant {
		return false
	}
	meta, _ := l.Object["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	return labels[LabelTeamNamespace] == team && labels[LabelTeamXR] == name && labels[LabelTenant] == l.ControllerName
}

// KubeconfigSecret is the name of the kubeconfig Secret of the Kubeconfig a Tenant composes
// for the team's Kubeconfig name of namespace ns; the team's Kubeconfig copies it.
func KubeconfigSecret(ns, name string) string { return Name(ns, name) + "-kubeconfig" }
