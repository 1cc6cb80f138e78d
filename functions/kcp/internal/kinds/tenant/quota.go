package tenant

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// The Tenant reads every Kubeconfig and Workspace of the team's namespace: whatever the team
// writes lands in the Tenant's RunFunctionRequest. Nothing in the Tenant can bound how many a
// team writes, but a ResourceQuota in the team's namespace can, and a team with edit or admin
// cannot write ResourceQuotas. So the Tenant reads the team's XRs only once such a quota
// bounds their number at or below what it can always read (sharing.MaxTeamXRs each), and
// refuses a team XR larger than sharing.TeamXRBytes.

// QuotaName is the name of the ResourceQuota the docs and examples apply.
const QuotaName = "kcp-team-xrs"

// ReasonQuotaMissing says the team's namespace has no ResourceQuota bounding its XRs.
const ReasonQuotaMissing = "QuotaMissing"

// quotaResources are the object counts a team's quota must bound, per kind.
var quotaResources = map[string]string{
	v1alpha1.KindKubeconfig: "count/kubeconfigs." + v1alpha1.Group,
	v1alpha1.KindWorkspace:  "count/workspaces." + v1alpha1.Group,
}

// quotaRequirement reads the ResourceQuotas of the team's namespace.
func quotaRequirement(team string) result.Requirement {
	return result.Requirement{APIVersion: "v1", Kind: "ResourceQuota", Namespace: team}
}

// quotaBounds reports whether the ResourceQuotas of the team's namespace bound its
// Kubeconfigs and Workspaces at or below sharing.MaxTeamXRs each, and otherwise what the platform
// should apply. A quota with scopes or a scope selector does not count: scopes select pods,
// and a scoped quota might not apply to these objects at all.
func (c *composer) quotaBounds() (bool, string) {
	lowest := map[string]int64{}
	for _, n := range c.b.St.NamesIn(c.team, "ResourceQuota") {
		o := c.b.St.ObjectIn(c.team, "ResourceQuota", n).Object
		spec, _ := o["spec"].(map[string]any)
		if spec["scopes"] != nil || spec["scopeSelector"] != nil {
			continue
		}
		hard, _ := spec["hard"].(map[string]any)
		for _, res := range quotaResources {
			s, _ := hard[res].(string)
			q, err := resource.ParseQuantity(s)
			if err != nil {
				continue
			}
			if v, ok := lowest[res]; !ok || q.Value() < v {
				lowest[res] = q.Value()
			}
		}
	}
	var missing []string
	for _, kind := range []string{v1alpha1.KindKubeconfig, v1alpha1.KindWorkspace} {
		res := quotaResources[kind]
		v, ok := lowest[res]
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s is not bounded", res))
		case v > sharing.MaxTeamXRs:
			missing = append(missing, fmt.Sprintf("%s is bounded at %d, above %d", res, v, sharing.MaxTeamXRs))
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("The Tenant reads the team's Kubeconfigs and Workspaces only when a ResourceQuota of namespace %s bounds them, and it does not (%s): nothing new is granted, and everything granted before is kept. Apply ResourceQuota %s in namespace %s with spec.hard %s: %d and %s: %d (or lower, at least spec.limits), see docs/shared-kcp.md.",
		c.team, strings.Join(missing, "; "), QuotaName, c.team,
		quotaResources[v1alpha1.KindKubeconfig], sharing.MaxTeamXRs, quotaResources[v1alpha1.KindWorkspace], sharing.MaxTeamXRs)
}

// keepMembers carries forward everything composed for the team's XRs, unchanged: used while
// the Tenant does not read the team's XRs, which does not mean they are gone.
func (c *composer) keepMembers() {
	for _, key := range c.b.St.ComposedNames() {
		k := string(key)
		if strings.HasPrefix(k, strings.ToLower(v1alpha1.KindKubeconfig)+"-") || strings.HasPrefix(k, strings.ToLower(v1alpha1.KindWorkspace)+"-") {
			if u, ok := c.b.St.Get(key); ok {
				c.b.Set.Keep(key, u, builder.Readiness(c.b.St.ConditionTrue(key, "Ready")))
			}
		}
	}
}

// readTeam adds the team's XRs to what the Tenant reads once a quota bounds them, and says
// whether they were read. When they were not, the condition says why.
func (c *composer) readTeam() (condition.Condition, bool) {
	bounded, why := c.quotaBounds()
	if !bounded {
		return condition.Condition{Type: TypeMembersReady, Reason: ReasonQuotaMissing, Message: why}, false
	}
	// What the team's XRs ask for, not the XRs (requests.go).
	team := []result.Requirement{required.AllIn(v1alpha1.KindTenantRequest, c.team)}
	c.reqs = append(c.reqs, team...)
	for _, r := range team {
		if !c.b.St.Answered(r.Key()) {
			return condition.Condition{Type: TypeMembersReady, Reason: ReasonPending, Message: fmt.Sprintf("Reading the Kubeconfigs and Workspaces of namespace %s; everything granted before is kept meanwhile.", c.team)}, false
		}
	}
	return condition.Condition{}, true
}
