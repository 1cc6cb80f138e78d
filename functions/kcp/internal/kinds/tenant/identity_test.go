package tenant

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// inNamespace moves a team's XR to namespace ns.
func inNamespace[X interface{ SetNamespace(string) }](ns string) func(X) {
	return func(x X) { x.SetNamespace(ns) }
}

// quotaIn is the quota the docs ask for, in team namespace ns.
func quotaIn(ns string) map[string]any {
	q := quota(QuotaName, sharing.MaxTeamXRs, sharing.MaxTeamXRs)
	q["metadata"].(map[string]any)["namespace"] = ns
	return q
}

// tenantFor is a Tenant of namespace kcp for namespace ns, created at second at.
func tenantFor(name, ns string, at int64, mods ...func(*v1alpha1.Tenant)) *v1alpha1.Tenant {
	return grant(append([]func(*v1alpha1.Tenant){func(t *v1alpha1.Tenant) {
		t.Name, t.UID, t.Spec.Namespace, t.CreationTimestamp = name, types.UID("uid-"+name), ns, metav1.NewTime(time.Unix(at, 0))
		t.Spec.ClusterRoleBindings = nil
	}}, mods...)...)
}

// withOIDC gives the world's RootShard root an OIDC issuer with the given prefixes.
func withOIDC(usernamePrefix, groupsPrefix string) func(*testworld.World) {
	return func(w *testworld.World) {
		w.Object(&v1alpha1.RootShard{
			TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard"},
			ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "kcp"},
			Spec: v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{HomeWorkspaces: homeOff.HomeWorkspaces, Auth: &v1alpha1.AuthSpec{OIDC: &v1alpha1.OIDCConfiguration{
				IssuerURL: "https://sso.example.com", ClientID: "kcp", UsernameClaim: "email", UsernamePrefix: usernamePrefix, GroupsPrefix: groupsPrefix,
			}}}},
		})
	}
}

// TestHostileIdentities plays teams, and a careless platform, that try to give a team's
// certificates an identity that is not only the team's.
func TestHostileIdentities(t *testing.T) {
	const (
		systemTeam = `Workspace system {"name":"system","parent":"root","rootShard":{"ref":{"name":"root"}}}`
		kcTeam     = `Workspace kubeconfig {"name":"kubeconfig","parent":"root","rootShard":{"ref":{"name":"root"}}}`
	)
	runComposeCases(t, map[string]composeCase{
		"NamespaceNamedSystem": {
			reason: "A team whose namespace is called system names its identities tenant:system:..., never system:masters or system:kcp:admin.",
			tenant: tenantFor("system", "system", 100),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, quotaIn("system"),
					teamKubeconfig("root", 1, inNamespace[*v1alpha1.Kubeconfig]("system"), func(kc *v1alpha1.Kubeconfig) {
						kc.Spec.Username, kc.Spec.Groups = "system:masters", []string{"system:kcp:admin"}
					}),
					teamKubeconfig("ok", 2, inNamespace[*v1alpha1.Kubeconfig]("system"), func(kc *v1alpha1.Kubeconfig) {
						kc.Spec.Username, kc.Spec.Groups = "tenant:system:alice", nil
					}))
			},
			composed: []string{
				`Kubeconfig system.ok {"secretRef":{"name":"system.ok-kubeconfig"},"target":{"frontProxyRef":{"name":"front"}},"targetWorkspace":"root:system","username":"tenant:system:alice","validity":"720h0m0s"}`,
				systemTeam,
			},
			members: []v1alpha1.TenantMember{
				{Kind: "Kubeconfig", Name: "ok", Granted: true, Message: "Kubeconfig kcp/system.ok is not Ready yet"},
				{Kind: "Kubeconfig", Name: "root", Message: `Kubeconfig system/root is refused: [` +
					`spec.username: Invalid value: "system:masters": a Kubeconfig of namespace system for a shared installation must name a user of its team: tenant:system:<name>, ` +
					`spec.groups[0]: Invalid value: "system:kcp:admin": a Kubeconfig of namespace system for a shared installation may name only groups of its team: tenant:system:<name>]`},
			},
		},
		"NamespaceNamedKubeconfig": {
			reason: "A team whose namespace is called kubeconfig cannot claim kubeconfig:team-b.bob, the group kcp grants team-b's Kubeconfig bob.",
			tenant: tenantFor("kubeconfig", "kubeconfig", 100),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, quotaIn("kubeconfig"), teamKubeconfig("bob", 1, inNamespace[*v1alpha1.Kubeconfig]("kubeconfig"), func(kc *v1alpha1.Kubeconfig) {
					kc.Spec.Username, kc.Spec.Groups = "kubeconfig:bob", []string{"kubeconfig:team-b.bob"}
				}))
			},
			composed: []string{kcTeam},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "bob", Message: `Kubeconfig kubeconfig/bob is refused: [` +
				`spec.username: Invalid value: "kubeconfig:bob": a Kubeconfig of namespace kubeconfig for a shared installation must name a user of its team: tenant:kubeconfig:<name>, ` +
				`spec.groups[0]: Invalid value: "kubeconfig:team-b.bob": a Kubeconfig of namespace kubeconfig for a shared installation may name only groups of its team: tenant:kubeconfig:<name>]`}},
		},
		"TeamNamedLikeAPrefixOfAnother": {
			reason: "Team team's prefix tenant:team: starts none of team-a's identities (tenant:team-a:...): the colon ends it.",
			tenant: tenantFor("team", "team", 200),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, quotaIn("team"), teamKubeconfig("dev", 1, inNamespace[*v1alpha1.Kubeconfig]("team"))).Object(grant())
			},
			composed: []string{`Workspace team {"name":"team","parent":"root","rootShard":{"ref":{"name":"root"}}}`},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: `Kubeconfig team/dev is refused: [` +
				`spec.username: Invalid value: "tenant:team-a:alice": a Kubeconfig of namespace team for a shared installation must name a user of its team: tenant:team:<name>, ` +
				`spec.groups[0]: Invalid value: "tenant:team-a:devs": a Kubeconfig of namespace team for a shared installation may name only groups of its team: tenant:team:<name>]`}},
		},
		"PrefixOfAnOlderTenant": {
			reason: "A platform that gives a newer Tenant a prefix an older Tenant's identities start with is refused: its team could name the other team's users.",
			tenant: tenantFor("team-b", "team-b", 200, func(t *v1alpha1.Tenant) { t.Spec.IdentityPrefix = "tenant:" }),
			world:  func(t *v1alpha1.Tenant) *testworld.World { return installation(t).Object(grant()) },
			errs: []string{`spec.identityPrefix: Invalid value: "tenant:": overlaps the identities of Tenant kcp/team-a, created before this one, grants (tenant:team-a:): ` +
				"one team could name the other's users and groups; choose a prefix neither starts with"},
		},
		"NewerOverlappingTenantChangesNothing": {
			reason: "The older Tenant keeps its grant whatever a newer one claims.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t).Object(tenantFor("team-b", "team-b", 200, func(t *v1alpha1.Tenant) { t.Spec.IdentityPrefix = "tenant:" }))
			},
			composed: []string{teamWorkspaceXR},
		},
		"WorkspaceInsideAnother": {
			reason: "A team's workspace inside an older Tenant's would be administered by that team too.",
			tenant: tenantFor("team-b", "team-b", 200, func(t *v1alpha1.Tenant) { t.Spec.Workspace = "root:team-a:b" }),
			world:  func(t *v1alpha1.Tenant) *testworld.World { return installation(t).Object(grant()) },
			errs: []string{`spec.workspace: Invalid value: "root:team-a:b": overlaps workspace root:team-a, which Tenant kcp/team-a, created before this one, grants: ` +
				"the administrators of one would reach the other; choose a workspace outside it"},
		},
		"OIDCGroupsWithoutPrefix": {
			reason: "kcp takes OIDC groups as the identity provider names them when groupsPrefix is unset: a group tenant:team-a:admins there would be the team's.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t)
				withOIDC("oidc:", "")(w)
				return w
			},
			errs: []string{`spec.identityPrefix: Invalid value: "tenant:team-a:": kcp would also take identities under this prefix from RootShard root: OIDC groups of https://sso.example.com ` +
				"(spec.auth.oidc.groupsPrefix), under no prefix; set spec.auth.oidc.groupsPrefix to a prefix no Tenant's starts with, such as oidc:"},
		},
		"OIDCPrefixOverlaps": {
			reason: "An OIDC prefix that starts the team's identities lets the identity provider's users pose as the team.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t)
				withOIDC("tenant:", "oidc:")(w)
				return w
			},
			errs: []string{`spec.identityPrefix: Invalid value: "tenant:team-a:": kcp would also take identities under this prefix from RootShard root: OIDC users of https://sso.example.com ` +
				`(spec.auth.oidc.usernamePrefix), under "tenant:"; set spec.auth.oidc.usernamePrefix to a prefix no Tenant's starts with, such as oidc:`},
		},
		"OIDCPrefixesApart": {
			reason: "OIDC identities under their own prefixes leave the team's alone.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t)
				withOIDC("oidc:", "oidc:")(w)
				return w
			},
			composed: []string{teamWorkspaceXR},
		},
		"PrefixOfThePlatformsChoice": {
			reason: "A Tenant's spec.identityPrefix replaces tenant:<namespace>:.",
			tenant: grant(func(t *v1alpha1.Tenant) { t.Spec.IdentityPrefix = "red:" }),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("dev", 1, func(kc *v1alpha1.Kubeconfig) { kc.Spec.Username, kc.Spec.Groups = "red:alice", nil }))
			},
			composed: []string{
				`Kubeconfig team-a.dev {"secretRef":{"name":"team-a.dev-kubeconfig"},"target":{"frontProxyRef":{"name":"front"}},"targetWorkspace":"root:team-a","username":"red:alice","validity":"720h0m0s"}`,
				teamWorkspaceXR,
			},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Granted: true, Message: "Kubeconfig kcp/team-a.dev is not Ready yet"}},
		},
	})
}

// TestHostileWorkspaces plays teams that try to use the platform's WorkspaceTypes, or to share
// a kcp workspace with an XR they do not own.
func TestHostileWorkspaces(t *testing.T) {
	typed := func(name, path string) func(*v1alpha1.Workspace) {
		return func(ws *v1alpha1.Workspace) {
			ws.Spec.ClusterRoleBindings = nil
			ws.Spec.Type = &v1alpha1.WorkspaceTypeReference{Name: name, Path: path}
		}
	}
	noBindings := func(ws *v1alpha1.Workspace) { ws.Spec.ClusterRoleBindings = nil }
	named := func(n string) func(*v1alpha1.Workspace) { return func(ws *v1alpha1.Workspace) { ws.Spec.Name = n } }
	platformWorkspace := &v1alpha1.Workspace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Workspace"},
		ObjectMeta: metav1.ObjectMeta{Name: "audit", Namespace: "kcp"},
		Spec:       v1alpha1.WorkspaceSpec{RootShard: v1alpha1.WorkspaceRootShard{Ref: &v1alpha1.SharedReference{Name: "root"}}, Parent: "root:team-a", Name: "audit"},
	}
	runComposeCases(t, map[string]composeCase{
		"PlatformTypeOfRoot": {
			reason: "A WorkspaceType of root the Tenant does not list (one with the platform's initializers, say) is refused: kcp's own check is skipped for admin credentials.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamWorkspace("a", 1, typed("platform-internal", "root")), teamWorkspace("b", 2, typed("platform-internal", "")))
			},
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{
				{Kind: "Workspace", Name: "a", Message: "Workspace team-a/a is refused: spec.type.name: Forbidden: WorkspaceType platform-internal of root is not one Tenant team-a allows " +
					"(spec.workspaceTypes: organization, team, universal); use one of those, set spec.type.path to root:team-a for a type of the team's own, or ask the platform team"},
				{Kind: "Workspace", Name: "b", Message: "Workspace team-a/b is refused: spec.type.name: Forbidden: WorkspaceType platform-internal of root is not one Tenant team-a allows " +
					"(spec.workspaceTypes: organization, team, universal); use one of those, set spec.type.path to root:team-a for a type of the team's own, or ask the platform team"},
			},
		},
		"TypesTheTenantAllows": {
			reason: "The Tenant's list replaces kcp's defaults; the team's own types are always usable.",
			tenant: grant(func(t *v1alpha1.Tenant) { t.Spec.WorkspaceTypes = []string{"platform-internal"} }),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamWorkspace("a", 1, typed("platform-internal", "root")), teamWorkspace("b", 2, typed("mine", "root:team-a")), teamWorkspace("c", 3, typed("universal", "")))
			},
			composed: []string{
				teamWorkspaceXR,
				`Workspace team-a.a {"name":"a","parent":"root:team-a","rootShard":{"ref":{"name":"root"}},"type":{"name":"platform-internal","path":"root"}}`,
				`Workspace team-a.b {"name":"b","parent":"root:team-a","rootShard":{"ref":{"name":"root"}},"type":{"name":"mine","path":"root:team-a"}}`,
			},
			members: []v1alpha1.TenantMember{
				{Kind: "Workspace", Name: "a", Granted: true, Message: "Workspace kcp/team-a.a is not Ready yet"},
				{Kind: "Workspace", Name: "b", Granted: true, Message: "Workspace kcp/team-a.b is not Ready yet"},
				{Kind: "Workspace", Name: "c", Message: "Workspace team-a/c is refused: spec.type.name: Forbidden: WorkspaceType universal of root is not one Tenant team-a allows " +
					"(spec.workspaceTypes: platform-internal); use one of those, set spec.type.path to root:team-a for a type of the team's own, or ask the platform team"},
			},
		},
		"TwoWorkspacesOnePath": {
			reason: "Two team Workspaces creating one kcp workspace would both report it, and deleting one with deletionPolicy Delete would delete it under the other: the older keeps it.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamWorkspace("second", 2, noBindings, named("app")), teamWorkspace("first", 1, noBindings, named("app")))
			},
			composed: []string{
				teamWorkspaceXR,
				`Workspace team-a.first {"name":"app","parent":"root:team-a","rootShard":{"ref":{"name":"root"}}}`,
			},
			members: []v1alpha1.TenantMember{
				{Kind: "Workspace", Name: "first", Granted: true, Message: "Workspace kcp/team-a.first is not Ready yet"},
				{Kind: "Workspace", Name: "second", Message: "Workspace team-a/second is refused: spec.name: Duplicate value: \"workspace root:team-a:app is already created for the team's older Workspace first; give this one another spec.name\""},
			},
		},
		"PathThePlatformHolds": {
			reason: "A kcp workspace the platform's own Workspace creates in the team's workspace is not the team's to create, report or delete.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamWorkspace("audit", 1, noBindings)).Object(platformWorkspace)
			},
			composed: []string{teamWorkspaceXR},
			members:  []v1alpha1.TenantMember{{Kind: "Workspace", Name: "audit", Message: "Workspace team-a/audit is refused: spec.name: Forbidden: workspace root:team-a:audit is already created by Workspace kcp/audit, which this Tenant does not compose; give this one another spec.name"}},
		},
		"PathRefusedKeepsWhatRuns": {
			reason: "A granted Workspace renamed onto a path the platform holds keeps what was composed for it, unchanged.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t, teamWorkspace("app", 1, noBindings))
				r, _ := Compose(t, w.State(), validate)
				w.Exists(r.Desired)
				return w.Object(requestOf(teamWorkspace("app", 1, noBindings, named("audit")))).Object(platformWorkspace)
			},
			composed: []string{teamWorkspaceXR, "kept Workspace team-a.app"},
			members: []v1alpha1.TenantMember{{Kind: "Workspace", Name: "app", Message: "Workspace team-a/app is refused: spec.name: Forbidden: workspace root:team-a:audit is already created by Workspace kcp/audit, " +
				"which this Tenant does not compose; give this one another spec.name; what was composed for it before is kept unchanged"}},
		},
	})
}

func TestValidateIdentityPrefix(t *testing.T) {
	cases := map[string]struct {
		reason string
		prefix string
		want   []string
	}{
		"Default":     {reason: "Without a prefix the Tenant uses tenant:<namespace>:."},
		"Own":         {reason: "A prefix of the platform's own choice.", prefix: "teams:red:"},
		"System":      {reason: "Kubernetes' and kcp's identities are never a team's.", prefix: "system:", want: []string{`spec.identityPrefix: Invalid value: "system:": overlaps system:, the prefix of Kubernetes' and kcp's own users and groups (system:masters, system:kcp:admin, system:authenticated, service accounts); choose a prefix such as tenant:team-a:`}},
		"UnderSystem": {reason: "Nor anything below them.", prefix: "system:kcp:", want: []string{`spec.identityPrefix: Invalid value: "system:kcp:": overlaps system:, the prefix of Kubernetes' and kcp's own users and groups (system:masters, system:kcp:admin, system:authenticated, service accounts); choose a prefix such as tenant:team-a:`}},
		"Kubeconfig":  {reason: "kcp grants each Kubeconfig's roles to group kubeconfig:<name>.", prefix: "kubeconfig:", want: []string{`spec.identityPrefix: Invalid value: "kubeconfig:": overlaps kubeconfig:, the prefix of the groups this package gives every Kubeconfig (kubeconfig:<name>), which kcp grants that Kubeconfig's roles; choose a prefix such as tenant:team-a:`}},
		"NoColon":     {reason: "Without a closing colon, prefix team would start team-b's identities too.", prefix: "team", want: []string{`spec.identityPrefix: Invalid value: "team": must end with a colon, e.g. tenant:team-a:, so that no other team's identities start with it`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(grant(func(t *v1alpha1.Tenant) { t.Spec.IdentityPrefix = tc.prefix })) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
