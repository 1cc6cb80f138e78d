package sharing

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestHomeWorkspacesFor(t *testing.T) {
	const (
		prefix = "tenant:team-red:"
		ns     = "team-red"
		owner  = "RootShard kcp-platform/shared"
	)
	fix := "Set spec.homeWorkspaces.enabled: false there, or creatorGroups of which no user of the team is a member (none starting with tenant:team-red: or kubeconfig:team-red., and not system:authenticated)"
	refused := func(why string) string {
		return "RootShard kcp-platform/shared gives every user of namespace team-red a home workspace: " + why + "; " + homeCost + ". " + fix
	}
	cases := map[string]struct {
		reason string
		prefix string
		hw     *v1alpha1.HomeWorkspaces
		want   string
	}{
		"Unset": {
			reason: "Without spec.homeWorkspaces kcp turns home workspaces on for system:authenticated: every team's user gets one.",
			hw:     nil,
			want:   refused("spec.homeWorkspaces is unset, so kcp's default applies: home workspaces on for system:authenticated, every authenticated user"),
		},
		"Off": {
			reason: "Home workspaces off: nobody gets one.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: false},
		},
		"OnDefaultGroups": {
			reason: "On without creator groups is kcp's system:authenticated.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true},
			want:   refused("spec.homeWorkspaces.creatorGroups is unset, so kcp's default applies: system:authenticated, every authenticated user"),
		},
		"OnAllAuthenticatedNamed": {
			reason: "system:authenticated named explicitly is every user of every team.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"oidc:kcp-users", "system:authenticated"}},
			want:   refused("creatorGroups lists system:authenticated, every authenticated user"),
		},
		"OnPlatformGroupsOnly": {
			reason: "Creator groups the team's certificates never carry: the team's users get no home workspace, the platform's do.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"oidc:kcp-users", "platform-admins"}},
		},
		"OnTeamGroup": {
			reason: "A group under the team's prefix is one its Kubeconfigs may name.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"oidc:kcp-users", "tenant:team-red:admins"}},
			want:   refused("creatorGroups lists tenant:team-red:admins, a group of the team (tenant:team-red:...)"),
		},
		"OnTeamKubeconfigGroup": {
			reason: "The group of a Kubeconfig the Tenant composes for the team (kubeconfig:<ns>.<name>) is in the team's certificate although outside its prefix.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"kubeconfig:team-red.alice"}},
			want:   refused("creatorGroups lists kubeconfig:team-red.alice, the group of a Kubeconfig of the team (kubeconfig:team-red.<name>)"),
		},
		"OnOtherTeamsGroups": {
			reason: "Another team's groups are not this team's, though its name starts with this one's: the prefix ends with a colon, kubeconfig groups with a dot after the namespace.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"tenant:team-redder:admins", "kubeconfig:team-redder.alice", "tenant:team-blue:admins"}},
		},
		"OnWildcardLookingGroup": {
			reason: "kcp binds creator groups with RBAC, which matches a group by its exact name: tenant:* is a group nobody of the team is in.",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"tenant:*", "tenant:", "tenant:team-red"}},
		},
		"CustomPrefix": {
			reason: "The Tenant's own spec.identityPrefix counts, not the default.",
			prefix: "acme:red:",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"acme:red:devs"}},
			want: "RootShard kcp-platform/shared gives every user of namespace team-red a home workspace: creatorGroups lists acme:red:devs, a group of the team (acme:red:...); " + homeCost +
				". Set spec.homeWorkspaces.enabled: false there, or creatorGroups of which no user of the team is a member (none starting with acme:red: or kubeconfig:team-red., and not system:authenticated)",
		},
		"OffIgnoresGroups": {
			reason: "Off, the groups do nothing (the RootShard refuses them anyway).",
			hw:     &v1alpha1.HomeWorkspaces{Enabled: false, CreatorGroups: []string{"system:authenticated"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := prefix
			if tc.prefix != "" {
				p = tc.prefix
			}
			got := HomeWorkspacesFor(p, ns, owner, tc.hw)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nHomeWorkspacesFor(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestShardHomeWorkspacesFor(t *testing.T) {
	const (
		prefix    = "tenant:team-red:"
		ns        = "team-red"
		owner     = "Shard kcp-platform/alpha"
		rootOwner = "RootShard kcp-platform/shared"
	)
	on := func(groups ...string) *v1alpha1.HomeWorkspaces {
		return &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: groups}
	}
	off := &v1alpha1.HomeWorkspaces{Enabled: false}
	cases := map[string]struct {
		reason      string
		shard, root *v1alpha1.HomeWorkspaces
		// want is the start of the answer up to the team's group, "" for none.
		want string
	}{
		"BothOff": {
			reason: "Off everywhere: nobody gets one.",
			shard:  off, root: off,
		},
		"ShardOffRootUnset": {
			reason: "The Shard's own switch decides whether it answers ~; the RootShard is judged on its own.",
			shard:  off, root: nil,
		},
		"ShardUnsetRootOff": {
			reason: "The Shard is on by kcp's default; the RootShard, with home workspaces off, passes no groups and kcp writes system:authenticated into root's RBAC all the same.",
			shard:  nil, root: off,
			want: "Shard kcp-platform/alpha gives every user of namespace team-red a home workspace: its home workspaces are on (spec.homeWorkspaces), and the root workspace's creator groups, which RootShard kcp-platform/shared sets, include the team's: the RootShard's home workspaces are unset or off, so it passes no creatorGroups and kcp writes its default, system:authenticated, every authenticated user",
		},
		"ShardGroupsIgnored": {
			reason: "kcp reads a shard's creator groups nowhere: platform-only groups on the Shard do not keep the team out when the RootShard's groups let it in.",
			shard:  on("oidc:kcp-users"), root: off,
			want: "Shard kcp-platform/alpha gives every user of namespace team-red a home workspace",
		},
		"RootPlatformGroups": {
			reason: "The Shard on, the RootShard's creator groups the platform's alone: the team's users are no creators anywhere.",
			shard:  on(), root: on("oidc:kcp-users"),
		},
		"RootTeamGroup": {
			reason: "The RootShard's creator groups name the team: the Shard answers its ~ too.",
			shard:  nil, root: on("tenant:team-red:admins"),
			want: "Shard kcp-platform/alpha gives every user of namespace team-red a home workspace: its home workspaces are on (spec.homeWorkspaces), and the root workspace's creator groups, which RootShard kcp-platform/shared sets, include the team's: creatorGroups lists tenant:team-red:admins",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ShardHomeWorkspacesFor(prefix, ns, owner, rootOwner, tc.shard, tc.root)
			if tc.want == "" {
				if diff := cmp.Diff("", got); diff != "" {
					t.Errorf("%s\nShardHomeWorkspacesFor(...): -want, +got:\n%s", tc.reason, diff)
				}
				return
			}
			if !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, "Set spec.homeWorkspaces.enabled: false on Shard kcp-platform/alpha, or creatorGroups on RootShard kcp-platform/shared of which no user of the team is a member (none starting with tenant:team-red: or kubeconfig:team-red., and not system:authenticated)") {
				t.Errorf("%s\nShardHomeWorkspacesFor(...) = %q, want it to start with %q and name the fix", tc.reason, got, tc.want)
			}
		})
	}
}
