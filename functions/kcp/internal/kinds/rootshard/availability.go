package rootshard

import (
	"fmt"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// Shard availability. kcp schedules a new workspace onto any shard its location selector
// matches and knows nothing of the pods behind it (kcp#4336), so a shard whose pods are all
// down keeps receiving workspaces that never become ready. The RootShard, which observes
// every shard's kcp Shard object, annotates that object unschedulable while none of the
// shard's pods is available, and removes the annotation once one is; kcp then requeues the
// workspaces it could not schedule. The root shard itself is not annotated: kcp's Shard
// objects live in its root workspace, which nobody can write while it is down.

// unschedulable is the value of kcp's unschedulable annotation for sh, "" while it serves.
// What the Shard does not know (its Deployment not observed yet, its cluster unreachable)
// changes nothing: the annotation stays as it was composed.
func (c *composer) unschedulable(sh v1alpha1.Shard) string {
	n := sh.Status.AvailableReplicas
	switch {
	case n == nil:
		return c.b.St.String(resource.Name(registrationPrefix+sh.Name), "spec", "forProvider", "manifest", "metadata", "annotations", inkcp.UnschedulableAnnotation)
	case *n > 0:
		return ""
	default:
		return fmt.Sprintf("no pod of Deployment %s/%s is available (set by configuration-kcp's RootShard %s; removed once one is)",
			sh.Namespace, names.Shard(sh.Name).Deployment(), c.rs.Name)
	}
}

// registrationPolicies lets shard's registration Object update kcp's Shard only to change its
// unschedulable annotation to want, and only on a Shard the Object has seen in kcp at its
// last reconcile; it observes otherwise. Update must never reach a Shard kcp does not have:
// crossplane-runtime calls Update when the object is missing and Create is not allowed, and
// provider-kubernetes' server-side apply then creates it, a Shard without a baseURL onto
// which kcp would schedule workspaces. A Synced=False Object (kcp's Shard gone, or kcp not
// answering) observes until it has found the Shard again. What is left is a Shard deleted in
// kcp between that reconcile and the next, while its annotation changes.
func (c *composer) registrationPolicies(shard, want string) []string {
	key := resource.Name(registrationPrefix + shard)
	atProvider := []string{"status", "atProvider", "manifest", "metadata"}
	if _, seen := c.b.St.Map(key, atProvider...); !seen {
		return inkcp.PoliciesObserve
	}
	if synced, _, _, found := c.b.St.Condition(key, "Synced"); !found || !synced {
		return inkcp.PoliciesObserve
	}
	if c.b.St.String(key, append(atProvider, "annotations", inkcp.UnschedulableAnnotation)...) == want {
		return inkcp.PoliciesObserve
	}
	return inkcp.PoliciesObserveUpdate
}
