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
		return c.St.String(resource.Name(registrationPrefix+sh.Name), "spec", "forProvider", "manifest", "metadata", "annotations", inkcp.UnschedulableAnnotation)
	case *n > 0:
		return ""
	default:
		return fmt.Sprintf("no pod of Deployment %s/%s is available (set by configuration-kcp's RootShard %s; removed once one is)",
			sh.Namespace, names.Shard(sh.Name).Deployment(), c.rs.Name)
	}
}
