package tenant

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
)

// The shared XRs of an installation's namespace read what every Tenant granted: the RootShard
// every Object acting in its kcp, each Tenant every Kubeconfig, Workspace and Tenant of the
// namespace. Each must fit one RunFunctionRequest, which the function and Crossplane receive
// with gRPC's 4 MiB limit. Sizing keeps every request under half of it, so the Tenants of a
// namespace share what is left of that half once the installation and a team's own XRs are
// read (docs/performance.md).
const (
	// RequestLimit is the request the sizing allows any shared XR: half of 4 MiB.
	RequestLimit = 2 << 20
	// InstallationBytes bounds what the RootShard reads of its own installation, without
	// any Tenant (TestWorstCaseRequests measures it).
	InstallationBytes = 512 << 10
	// SharedCapacity is what the Tenants of a namespace may add together: what the larger of
	// the installation and a team's own XRs leaves of RequestLimit.
	SharedCapacity = RequestLimit - max(InstallationBytes, sharing.TeamReadCapacity)
	// TenantBytes bounds a Tenant besides its spec: its status (members and their messages
	// are bounded, see status.go) and conditions.
	TenantBytes = 48 << 10
)

// Worst is the most a Tenant can add to a shared XR's request: its own object, read by
// every Tenant and every team Kubeconfig that names the installation, the team's
// workspace it composes, and spec.limits.bytes of the team's grants.
func Worst(t *v1alpha1.Tenant) int {
	spec, _ := json.Marshal(t.Spec)
	ws := workspaceCost(v1alpha1.WorkspaceSpec{Parent: "root", Name: sharing.Workspace(t), ClusterRoleBindings: t.Spec.ClusterRoleBindings})
	return TenantBytes + 2*len(spec) + ws.bytes + 2*PathBytes + Bytes(t)
}

// checkCapacity refuses this Tenant when it, with the Tenants of its namespace created
// before it, could make a shared XR's request larger than SharedCapacity. The oldest keep
// theirs: a new Tenant, or one whose limits grew, is refused, never the ones that fitted.
// The Tenant's own grants are counted twice: it reads them as what it composed and again
// among the namespace's XRs.
func (c *composer) checkCapacity() field.ErrorList {
	var ts []*v1alpha1.Tenant
	for _, n := range c.b.St.NamesIn(c.b.Namespace, v1alpha1.KindTenant) {
		t := &v1alpha1.Tenant{}
		if required.GetIn(c.b.St, c.b.Namespace, v1alpha1.KindTenant, n, t) {
			ts = append(ts, t)
		}
	}
	sortOldestFirst(ts)
	older := 0
	for _, t := range ts {
		if t.GetName() == c.t.GetName() {
			break
		}
		older += Worst(t)
	}
	mine := Worst(c.t)
	if older+2*mine <= SharedCapacity {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "limits"), fmt.Sprintf(
		"with the Tenants of namespace %s created before it (about %d bytes), this Tenant (about %d bytes at its spec.limits, chiefly spec.limits.bytes %d) would let the installation's shared XRs read more than the %d bytes every Tenant of the namespace shares (docs/performance.md): lower spec.limits.bytes, or share the installation with fewer teams",
		c.b.Namespace, older, mine, Bytes(c.t), SharedCapacity))}
}
