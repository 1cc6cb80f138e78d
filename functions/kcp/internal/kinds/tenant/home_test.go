package tenant

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// rootShardHome is RootShard root of namespace kcp with spec.homeWorkspaces hw.
func rootShardHome(hw *v1alpha1.HomeWorkspaces) *v1alpha1.RootShard {
	return &v1alpha1.RootShard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard"},
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "kcp"},
		Spec:       v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{HomeWorkspaces: hw}},
	}
}

// TestHostileHomeWorkspaces holds a Tenant to the home workspaces of every shard of the
// installation it shares: a team user's ~ would lie outside root:<team>, count against no
// limit and outlive its Kubeconfig, so a Tenant whose users would get one is refused, naming
// the shard and the fix; nothing it granted is removed (a refusal desires nothing).
func TestHostileHomeWorkspaces(t *testing.T) {
	const refused = "spec.frontProxy.ref.name: Forbidden: "
	cases := map[string]composeCase{
		"KcpsDefault": {
			reason: "kcp gives every authenticated user a home workspace unless told otherwise.",
			tenant: grant(),
			world:  withObjects(rootShardHome(nil)),
			errs: []string{refused + "RootShard kcp/root gives every user of namespace team-a a home workspace: spec.homeWorkspaces is unset, so kcp's default applies: home workspaces on for system:authenticated, every authenticated user; " +
				"a home workspace (~) lies outside the team's workspace, counts against no limit of its Tenant and outlives the Kubeconfig that made it. Set spec.homeWorkspaces.enabled: false there, " +
				"or creatorGroups of which no user of the team is a member (none starting with tenant:team-a: or kubeconfig:team-a., and not system:authenticated)"},
		},
		"CreatorGroupOfTheTeam": {
			reason: "A creator group the team's certificates carry gives the team's users one.",
			tenant: grant(),
			world:  withObjects(rootShardHome(&v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"oidc:staff", "tenant:team-a:devs"}})),
			errs: []string{refused + "RootShard kcp/root gives every user of namespace team-a a home workspace: creatorGroups lists tenant:team-a:devs, a group of the team (tenant:team-a:...); " +
				"a home workspace (~) lies outside the team's workspace, counts against no limit of its Tenant and outlives the Kubeconfig that made it. Set spec.homeWorkspaces.enabled: false there, " +
				"or creatorGroups of which no user of the team is a member (none starting with tenant:team-a: or kubeconfig:team-a., and not system:authenticated)"},
		},
		"CreatorGroupsOfThePlatform": {
			reason:   "Home workspaces for the platform's own staff only leave the teams without one.",
			tenant:   grant(),
			world:    withObjects(rootShardHome(&v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"oidc:staff"}})),
			composed: []string{teamWorkspaceXR},
		},
		"ShardOnWithTheRootsDefault": {
			reason: "A shard answers ~ with the creator groups the root shard wrote: off on the root shard, kcp writes its default, every authenticated user.",
			tenant: grant(),
			world:  withObjects(shardOf("s1", func(s *v1alpha1.CommonShardSpec) { s.HomeWorkspaces = nil })),
			errs:   []string{"home workspace"},
		},
		"ShardOff": {
			reason:   "A shard with home workspaces off answers no ~.",
			tenant:   grant(),
			world:    withObjects(shardOf("s1", func(*v1alpha1.CommonShardSpec) {})),
			composed: []string{teamWorkspaceXR},
		},
	}
	for name, tc := range cases {
		if len(tc.errs) == 1 && tc.errs[0] == "home workspace" {
			// Checked for its shard and its fix, not word for word.
			delete(cases, name)
			t.Run(name, func(t *testing.T) {
				_, errs := Compose(tc.tenant, tc.world(tc.tenant).State(), validate)
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), "Shard kcp/s1 gives every user of namespace team-a a home workspace") || !strings.Contains(errs[0].Error(), "Set spec.homeWorkspaces.enabled: false on Shard kcp/s1") {
					t.Errorf("%s\nCompose(...) errors: %v", tc.reason, errs)
				}
			})
		}
	}
	runComposeCases(t, cases)
}
