package sharing

import (
	"fmt"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// allAuthenticated is the group Kubernetes and kcp give every authenticated user, and kcp's
// default creator group of home workspaces.
const allAuthenticated = "system:authenticated"

// homeCost is why a team's user must get no home workspace on a shared installation.
const homeCost = "a home workspace (~) lies outside the team's workspace, counts against no limit of its Tenant and outlives the Kubeconfig that made it"

// HomeWorkspacesFor says why the shard owner (e.g. "RootShard kcp-platform/shared"), whose
// spec.homeWorkspaces is hw, gives the users of the team of namespace ns, whose identities
// start with prefix, a home workspace, and how to stop it; "" when it gives them none.
//
// kcp grants ~ through an RBAC binding of the creator groups in the root workspace, and RBAC
// matches a group by its exact name: a team's user is a creator exactly when one of its
// groups is listed. Its certificate carries groups under prefix, kubeconfig:<ns>.<name> (the
// group of the Kubeconfig the Tenant composes for it) and system:authenticated, nothing else.
func HomeWorkspacesFor(prefix, ns, owner string, hw *v1alpha1.HomeWorkspaces) string {
	if hw != nil && !hw.Enabled {
		return ""
	}
	why := teamCreatorGroup(prefix, ns, hw)
	if why == "" {
		return ""
	}
	return fmt.Sprintf("%s gives every user of namespace %s a home workspace: %s; %s. Set spec.homeWorkspaces.enabled: false there, or creatorGroups of which no user of the team is a member (none starting with %s or kubeconfig:%s., and not %s)",
		owner, ns, why, homeCost, prefix, ns, allAuthenticated)
}

// ShardHomeWorkspacesFor is HomeWorkspacesFor for a Shard (owner, its spec.homeWorkspaces
// shard) of the RootShard rootOwner (its spec.homeWorkspaces root). kcp reads the creator
// groups only on the root shard, which writes them into the root workspace's RBAC, whether
// or not its own home workspaces are on; a shard with home workspaces on answers ~ with that
// RBAC, so what counts is the Shard's switch and the RootShard's groups.
func ShardHomeWorkspacesFor(prefix, ns, owner, rootOwner string, shard, root *v1alpha1.HomeWorkspaces) string {
	if shard != nil && !shard.Enabled {
		return ""
	}
	var why string
	if root != nil && root.Enabled {
		why = teamCreatorGroup(prefix, ns, root)
	} else {
		// Without home workspaces on, the RootShard passes no groups: kcp writes its default.
		why = "the RootShard's home workspaces are unset or off, so it passes no creatorGroups and kcp writes its default, " + allAuthenticated + ", every authenticated user"
	}
	if why == "" {
		return ""
	}
	return fmt.Sprintf("%s gives every user of namespace %s a home workspace: its home workspaces are on (spec.homeWorkspaces), and the root workspace's creator groups, which %s sets, include the team's: %s; %s. Set spec.homeWorkspaces.enabled: false on %s, or creatorGroups on %s of which no user of the team is a member (none starting with %s or kubeconfig:%s., and not %s)",
		owner, ns, rootOwner, why, homeCost, owner, rootOwner, prefix, ns, allAuthenticated)
}

// teamCreatorGroup says which creator group of hw (home workspaces on, or kcp's defaults
// when nil) the team's users are members of; "" for none.
func teamCreatorGroup(prefix, ns string, hw *v1alpha1.HomeWorkspaces) string {
	switch {
	case hw == nil:
		return "spec.homeWorkspaces is unset, so kcp's default applies: home workspaces on for " + allAuthenticated + ", every authenticated user"
	case len(hw.CreatorGroups) == 0:
		return "spec.homeWorkspaces.creatorGroups is unset, so kcp's default applies: " + allAuthenticated + ", every authenticated user"
	}
	kubeconfigs := "kubeconfig:" + ns + "."
	for _, g := range hw.CreatorGroups {
		switch {
		case g == allAuthenticated:
			return "creatorGroups lists " + g + ", every authenticated user"
		case strings.HasPrefix(g, prefix):
			return "creatorGroups lists " + g + ", a group of the team (" + prefix + "...)"
		case strings.HasPrefix(g, kubeconfigs):
			return "creatorGroups lists " + g + ", the group of a Kubeconfig of the team (" + kubeconfigs + "<name>)"
		}
	}
	return ""
}
