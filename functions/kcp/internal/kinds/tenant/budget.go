package tenant

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// What one granted team XR costs the installation's shared XRs (docs/performance.md): the XR
// the Tenant composes, which every Tenant of the namespace reads; each provider-kubernetes
// Object it composes, which the RootShard reads; and for each workspace those act in, the
// RootShard's ProviderConfig and its kubeconfig in the RootShard's access Secret. The sizes
// are upper bounds of what Crossplane sends, checked against full objects as the API server
// and provider-kubernetes write them by TestCostBoundsObjects.
const (
	// XRBytes bounds a composed XR besides its spec: metadata (labels, owner reference,
	// managed fields) and the status and conditions its composition writes.
	XRBytes = 6 << 10
	// ObjectBytes bounds an Object besides the names it carries: metadata, provider config,
	// policies, the observed manifest's metadata in kcp and the Object's conditions.
	ObjectBytes = 4 << 10
	// PathBytes bounds what the RootShard holds for each workspace an Object acts in: a
	// ProviderConfig, and a kubeconfig with a client certificate and key in its access Secret.
	PathBytes = 12 << 10
	// subjectBytes bounds a subject of a ClusterRoleBinding besides its name.
	subjectBytes = 48
)

// Defaults of spec.limits.bindings and spec.limits.bytes.
const (
	defaultBindings = 40
	defaultBytes    = 128 << 10
)

// cost is what granting one team XR adds to the installation's namespace.
type cost struct {
	bindings int
	bytes    int
	// paths are the workspaces its Objects act in.
	paths []string
	// bindingsField and bytesField name the team XR's field that made each large.
	bindingsField, bytesField string
}

// candidate is a team XR that passed every check but the budgets.
type candidate struct {
	kind, name string
	created    metav1.Time
	limit      int
	index      int
	errs       field.ErrorList
	// refused says why the team's XR's own composition refused it (requests.go).
	refused string
	spec    v1alpha1.Spec
	cost    cost
}

// kubeconfigCost is the cost of the Kubeconfig the Tenant composes with spec.
func kubeconfigCost(spec v1alpha1.KubeconfigSpec) cost {
	c := cost{bytes: xrBytes(spec), bytesField: "spec"}
	a := spec.Authorization
	if a == nil {
		return c
	}
	roles := slices.Compact(slices.Sorted(slices.Values(a.ClusterRoleBindings.ClusterRoles)))
	objects := 0
	for _, r := range roles {
		// One subject, the Kubeconfig's group kubeconfig:<namespace>.<name>.
		objects += bindingBytes(r, []string{"kubeconfig:" + spec.SecretRef.Name})
	}
	c.bindings = len(roles)
	c.bindingsField = "spec.authorization.clusterRoleBindings.clusterRoles"
	c.bytes += objects
	if objects > c.bytes/2 {
		c.bytesField = c.bindingsField
	}
	if len(roles) > 0 {
		c.paths = []string{spec.TargetWorkspace}
	}
	return c
}

// workspaceCost is the cost of the Workspace the Tenant composes with spec.
func workspaceCost(spec v1alpha1.WorkspaceSpec) cost {
	c := cost{bytes: xrBytes(spec) + ObjectBytes + 4*len(spec.Name), bytesField: "spec", paths: []string{spec.Parent}}
	objects := 0
	for _, crb := range spec.ClusterRoleBindings {
		objects += bindingBytes(crb.ClusterRole, append(slices.Clone(crb.Groups), crb.Users...))
	}
	for _, ab := range spec.APIBindings {
		// The APIBinding's Object: its export and claims, desired and observed.
		raw, _ := json.Marshal(ab)
		objects += ObjectBytes + 4*len(raw)
	}
	c.bindings = len(spec.ClusterRoleBindings) + len(spec.APIBindings)
	c.bindingsField = "spec.clusterRoleBindings"
	if len(spec.APIBindings) > len(spec.ClusterRoleBindings) {
		c.bindingsField = "spec.apiBindings"
	}
	c.bytes += objects
	if objects > c.bytes/2 {
		c.bytesField = c.bindingsField
	}
	if c.bindings > 0 {
		c.paths = append(c.paths, spec.Parent+":"+spec.Name)
	}
	return c
}

// xrBytes bounds a composed XR of spec: its spec twice, once more in its managed fields.
func xrBytes(spec v1alpha1.Spec) int {
	b, _ := json.Marshal(spec)
	return XRBytes + 2*len(b)
}

// bindingBytes bounds the Object holding a ClusterRoleBinding of role to subjects: the role
// is in the binding's name and role reference, both desired and observed.
func bindingBytes(role string, subjects []string) int {
	n := ObjectBytes + 4*len(role)
	for _, s := range subjects {
		n += 2 * (len(s) + subjectBytes)
	}
	return n
}

// charge grants the candidates oldest first within spec.limits.bindings and
// spec.limits.bytes: the first that would exceed either, and every newer one, is refused,
// so a team's newest XR can never take what its older ones hold. The team's workspace,
// which the Tenant composes for the platform, is charged to the Tenant's own share.
func (c *composer) charge(cands []*candidate) {
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i].created, cands[j].created
		if !a.Equal(&b) {
			return a.Before(&b)
		}
		if cands[i].kind != cands[j].kind {
			return cands[i].kind < cands[j].kind
		}
		return cands[i].name < cands[j].name
	})
	maxBindings, maxBytes := Bindings(c.t), Bytes(c.t)
	paths := map[string]bool{c.workspace: true}
	bindings, bytes := 0, 0
	var over *candidate
	for _, cd := range cands {
		if len(cd.errs) > 0 || cd.index >= cd.limit {
			continue // Not granted anyway: it costs nothing.
		}
		if over != nil {
			cd.errs = field.ErrorList{field.Forbidden(field.NewPath("metadata", "name"), fmt.Sprintf("the team's older %s %s does not fit the budgets of Tenant %s, so no newer XR is granted; shrink or delete it, or ask the platform team", over.kind, over.name, c.t.GetName()))}
			continue
		}
		add := 0
		for _, p := range cd.cost.paths {
			if !paths[p] {
				add += PathBytes
			}
		}
		switch {
		case bindings+cd.cost.bindings > maxBindings:
			cd.errs = field.ErrorList{field.Forbidden(fieldPath(cd.cost.bindingsField), fmt.Sprintf("granting it would make %d ClusterRoleBindings in kcp for the team, over spec.limits.bindings of Tenant %s (%d; the team's older XRs hold %d): bind fewer roles, delete an older XR, or ask the platform team", bindings+cd.cost.bindings, c.t.GetName(), maxBindings, bindings))}
		case bytes+cd.cost.bytes+add > maxBytes:
			cd.errs = field.ErrorList{field.Forbidden(fieldPath(cd.cost.bytesField), fmt.Sprintf("granting it would make about %d bytes in namespace %s for the team, over spec.limits.bytes of Tenant %s (%d; the team's older XRs hold %d, this one %d): make it smaller, delete an older XR, or ask the platform team", bytes+cd.cost.bytes+add, c.b.Namespace, c.t.GetName(), maxBytes, bytes, cd.cost.bytes+add))}
		default:
			bindings += cd.cost.bindings
			bytes += cd.cost.bytes + add
			for _, p := range cd.cost.paths {
				paths[p] = true
			}
			continue
		}
		over = cd
	}
}

// fieldPath is a dotted field path.
func fieldPath(p string) *field.Path {
	var out *field.Path
	for _, s := range strings.Split(p, ".") {
		if out == nil {
			out = field.NewPath(s)
		} else {
			out = out.Child(s)
		}
	}
	return out
}

// Bindings is spec.limits.bindings, else its default.
func Bindings(t *v1alpha1.Tenant) int {
	if v := t.Spec.Limits.Bindings; v != nil {
		return int(*v)
	}
	return defaultBindings
}

// Bytes is spec.limits.bytes, else its default.
func Bytes(t *v1alpha1.Tenant) int {
	if v := t.Spec.Limits.Bytes; v != nil {
		return int(*v)
	}
	return defaultBytes
}
