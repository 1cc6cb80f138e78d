package tenant

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// The Tenant reads the team's TenantRequests (sharing.Request), never the team's XRs: each
// is written by the function from a team's XR within a team's XR's weight, so what a team
// writes cannot make the Tenant's request too large to be made, and the platform's changes to
// the Tenant always apply. A team's XR too heavy to be asked for says so in its request, and
// is named in the Tenant's status.

// requests are the team's TenantRequests of a team XR kind, made by that kind's XR, naming
// the Tenant's target (a FrontProxy or RootShard of its namespace) and not being deleted,
// each with the team's XR it carries, decoded once. A request whose team's XR was
// refused by its own composition (too heavy) is added to the candidates, refused, here.
func requests[X any](c *composer, kind, targetKind, targetName string) []*X {
	var out []*X
	for _, n := range c.b.St.NamesIn(c.team, v1alpha1.KindTenantRequest) {
		xr := new(X)
		rq, ok := sharing.FromRequest(c.b.St.ObjectIn(c.team, v1alpha1.KindTenantRequest, n), xr)
		t := rq.Spec.Target
		if !ok || rq.Spec.Kind != kind || rq.GetDeletionTimestamp() != nil || t.Kind != targetKind || t.Namespace != c.b.Namespace || t.Name != targetName {
			continue
		}
		c.asked[memberKey(kind, rq.Spec.Name)] = true
		if rq.Spec.Refused != "" {
			// Charged nothing: the budgets skip a candidate with errors.
			c.cands = append(c.cands, &candidate{kind: kind, name: rq.Spec.Name, created: rq.GetCreationTimestamp(), limit: 1, refused: rq.Spec.Refused,
				errs: field.ErrorList{field.Forbidden(field.NewPath("metadata"), rq.Spec.Refused)}})
			continue
		}
		out = append(out, xr)
	}
	return out
}

// keepUnasked keeps, unchanged, what the Tenant composed for a team's XR before TenantRequests
// existed (its XR carries no sharing.LabelGrantedThrough) while that XR has not asked through
// a request yet: the team's XR is not known to be gone, only not reconciled since. What was
// composed through a request and is no longer asked for goes, as its team's XR did.
func (c *composer) keepUnasked() {
	for _, key := range c.b.St.ComposedNames() {
		k := string(key)
		kind := ""
		switch {
		case strings.HasPrefix(k, strings.ToLower(v1alpha1.KindKubeconfig)+"-"):
			kind = v1alpha1.KindKubeconfig
		case strings.HasPrefix(k, strings.ToLower(v1alpha1.KindWorkspace)+"-"):
			kind = v1alpha1.KindWorkspace
		default:
			continue
		}
		u, ok := c.b.St.Get(key)
		if !ok || c.asked[key] || u.GetLabels()[sharing.LabelGrantedThrough] == sharing.GrantedThroughRequest {
			continue
		}
		c.b.Set.Keep(key, u, builder.Readiness(c.b.St.ConditionTrue(key, "Ready")))
		name := strings.TrimPrefix(k, strings.ToLower(kind)+"-")
		c.members = append(c.members, v1alpha1.TenantMember{Kind: kind, Name: name, Granted: true, Ready: c.b.St.ConditionTrue(key, "Ready"),
			Message: fmt.Sprintf("%s %s/%s was granted before TenantRequests; what was composed for it is kept unchanged until it asks again (its next reconcile), or until %s %s/%s is deleted", kind, c.team, name, kind, c.b.Namespace, u.GetName())})
	}
}

// asked is the set of member keys a TenantRequest asks for.
type asked map[resource.Name]bool
