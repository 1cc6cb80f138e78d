package tenant

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// frontProxyOf is FrontProxy name of namespace kcp in front of RootShard rootShard, with auth.
func frontProxyOf(name, rootShard string, mod func(*v1alpha1.FrontProxySpec)) *v1alpha1.FrontProxy {
	fp := &v1alpha1.FrontProxy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "FrontProxy"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp"},
		Spec:       v1alpha1.FrontProxySpec{RootShard: v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: rootShard}}},
	}
	if mod != nil {
		mod(&fp.Spec)
	}
	return fp
}

// shardOf is Shard name of namespace kcp joining RootShard root, with auth.
func shardOf(name string, mod func(*v1alpha1.CommonShardSpec)) *v1alpha1.Shard {
	sh := &v1alpha1.Shard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp"},
		Spec:       v1alpha1.ShardSpec{RootShard: v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}}, CommonShardSpec: homeOff},
	}
	mod(&sh.Spec.CommonShardSpec)
	return sh
}

// oidc is an OIDC issuer taking e-mail addresses as users, with the given group prefix.
func oidc(groupsPrefix string) *v1alpha1.AuthSpec {
	return &v1alpha1.AuthSpec{OIDC: &v1alpha1.OIDCConfiguration{IssuerURL: "https://edge-sso.example.com", ClientID: "kcp", UsernameClaim: "email", UsernamePrefix: "edge:", GroupsPrefix: groupsPrefix}}
}

// structured is a structured authentication configuration in ConfigMap sso, key config.
var structured = &v1alpha1.AuthSpec{AuthenticationConfiguration: &v1alpha1.LocalDataKeyReference{Name: "sso", Key: "config"}}

// withObjects adds objects to the installation of Tenant t and answers what it then reads.
func withObjects(objects ...any) func(*v1alpha1.Tenant) *testworld.World {
	return func(t *v1alpha1.Tenant) *testworld.World {
		w := installation(t)
		for _, o := range objects {
			w.Object(o)
		}
		return answerAll(t, w)
	}
}

// ssoConfig is ConfigMap sso holding a structured authentication configuration whose one
// issuer maps users and groups as given.
func ssoConfig(username, groups string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "sso", "namespace": "kcp"}, "data": map[string]any{
		"config": "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: https://sso.example.com, audiences: [kcp]}\n  claimMappings:\n    username: " + username + "\n    groups: " + groups + "\n",
	}}
}

// TestHostileRoutes plays a platform that shares an installation whose components take
// identities from elsewhere, and the teams that would profit: every route into the
// installation (each front-proxy, the root shard, each shard, each virtual workspace
// server) is held to the Tenant's prefix, and a refusal names the component and its field.
func TestHostileRoutes(t *testing.T) {
	const refused = `spec.identityPrefix: Invalid value: "tenant:team-a:": kcp would also take identities under this prefix from `
	cases := map[string]composeCase{
		"SecondFrontProxyWithoutGroupsPrefix": {
			reason: "The team uses FrontProxy front, but an identity provider group tenant:team-a:admins through FrontProxy edge of the same RootShard is cluster-admin of root:team-a all the same.",
			tenant: grant(),
			world:  withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = oidc("") })),
			errs: []string{refused + "FrontProxy edge: OIDC groups of https://edge-sso.example.com (spec.auth.oidc.groupsPrefix), under no prefix; " +
				"set spec.auth.oidc.groupsPrefix to a prefix no Tenant's starts with, such as oidc:"},
		},
		"SecondFrontProxyPrefixed": {
			reason:   "A second front-proxy whose identities have prefixes of their own is no way into the team's.",
			tenant:   grant(),
			world:    withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = oidc("oidc:") })),
			composed: []string{teamWorkspaceXR},
		},
		"FrontProxyOfAnotherRootShard": {
			reason:   "A front-proxy of another installation of the namespace leads into that kcp, not this one.",
			tenant:   grant(),
			world:    withObjects(frontProxyOf("other", "another-root", func(s *v1alpha1.FrontProxySpec) { s.Auth = oidc("") })),
			composed: []string{teamWorkspaceXR},
		},
		"FrontProxyThroughTheReferenceSecret": {
			reason: "A front-proxy that names the RootShard by its reference Secret leads into it all the same.",
			tenant: grant(),
			world: withObjects(frontProxyOf("edge", "", func(s *v1alpha1.FrontProxySpec) {
				s.RootShard = v1alpha1.RootShardConfig{SecretRef: &corev1.LocalObjectReference{Name: "root-reference"}}
				s.Auth = &v1alpha1.AuthSpec{TokenAuthFile: &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"}}
			})),
			errs: []string{refused + "FrontProxy edge: a token file, whose lines name any user and groups (spec.auth.tokenAuthFile), under no prefix; " + unboundedFix},
		},
		"ShardWithATokenWebhook": {
			reason: "A token webhook on a shard answers with any user and groups: a client reaching the shard directly could be the team.",
			tenant: grant(),
			world: withObjects(shardOf("s1", func(s *v1alpha1.CommonShardSpec) {
				s.Auth = &v1alpha1.AuthSpec{Webhook: &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn"}}
			})),
			errs: []string{refused + "Shard s1: a token webhook (Secret authn), which answers with any user and groups (spec.auth.webhook), under no prefix; " + unboundedFix},
		},
		"ExtraClientCAOnAFrontProxy": {
			reason: "A certificate of another CA the front-proxy trusts can carry O=tenant:team-a:admins.",
			tenant: grant(),
			world: withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) {
				s.ClientCABundleRef = &corev1.LocalObjectReference{Name: "corp-ca"}
			})),
			errs: []string{refused + "FrontProxy edge: client certificates of the CAs in Secret corp-ca (spec.clientCABundleRef), under no prefix; " + unboundedFix},
		},
		"ExtraClientCAOnAVirtualWorkspace": {
			reason: "A virtual workspace server trusting another CA serves the team's APIExports to whoever that CA names.",
			tenant: grant(),
			world: withObjects(&v1alpha1.VirtualWorkspace{
				TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "VirtualWorkspace"},
				ObjectMeta: metav1.ObjectMeta{Name: "vw", Namespace: "kcp"},
				Spec:       v1alpha1.VirtualWorkspaceSpec{ClientCABundleRef: &corev1.LocalObjectReference{Name: "corp-ca"}},
			}),
			errs: []string{refused + "VirtualWorkspace vw: client certificates of the CAs in Secret corp-ca (spec.clientCABundleRef), under no prefix; " + unboundedFix},
		},
		"ServiceAccountsOfAnotherIssuer": {
			reason: "Service account tokens name system:serviceaccount:... users in system:... groups, which no Tenant's prefix may overlap.",
			tenant: grant(),
			world: withObjects(shardOf("s1", func(s *v1alpha1.CommonShardSpec) {
				s.Auth = &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{}}
			})),
			composed: []string{teamWorkspaceXR},
		},
		"StructuredGroupsWithoutPrefix": {
			reason: "A structured configuration mapping the groups claim with an empty prefix names groups as the issuer does.",
			tenant: grant(),
			world:  withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = structured }), ssoConfig("{claim: email, prefix: 'sso:'}", "{claim: groups, prefix: ''}")),
			errs: []string{refused + "FrontProxy edge: groups of ConfigMap sso's jwt[0] (https://sso.example.com) (spec.auth.authenticationConfiguration), under no prefix; " +
				"give jwt[0].claimMappings.groups of ConfigMap sso a prefix no Tenant's starts with, such as sso:"},
		},
		"StructuredExpressionOfAnyName": {
			reason: "A CEL expression can make any user name, the team's included.",
			tenant: grant(),
			world:  withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = structured }), ssoConfig("{expression: 'claims.sub'}", "{claim: groups, prefix: 'sso:'}")),
			errs: []string{refused + `FrontProxy edge: users of ConfigMap sso's jwt[0] (https://sso.example.com), mapped by the CEL expression "claims.sub" (spec.auth.authenticationConfiguration), under no prefix; ` +
				"give jwt[0].claimMappings.username of ConfigMap sso a prefix no Tenant's starts with, such as sso: (an expression counts as prefixed when it starts with a quoted prefix and +)"},
		},
		"StructuredExpressionWithAPrefix": {
			reason: "An expression that starts every name with a literal prefix is as bounded as a prefixed claim.",
			tenant: grant(),
			world: withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = structured }),
				ssoConfig(`{expression: '"sso:" + claims.email'}`, "{claim: groups, prefix: 'sso:'}")),
			composed: []string{teamWorkspaceXR},
		},
		"StructuredExpressionWithAnEscape": {
			reason: "A literal with an escape could spell a colon or a quote in ways a prefix check would miss: counted as unbounded.",
			tenant: grant(),
			world: withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = structured }),
				ssoConfig(`{expression: '"ten\\x61nt:" + claims.email'}`, "{claim: groups, prefix: 'sso:'}")),
			errs: []string{refused + `FrontProxy edge: users of ConfigMap sso's jwt[0] (https://sso.example.com), mapped by the CEL expression "\"ten\\\\x61nt:\" + claims.email" (spec.auth.authenticationConfiguration), under no prefix; ` +
				"give jwt[0].claimMappings.username of ConfigMap sso a prefix no Tenant's starts with, such as sso: (an expression counts as prefixed when it starts with a quoted prefix and +)"},
		},
		"StructuredConfigurationMissing": {
			reason: "A configuration that cannot be read maps nobody knows what: refused until it exists.",
			tenant: grant(),
			world:  withObjects(frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = structured })),
			errs:   []string{refused + "FrontProxy edge: the structured authentication configuration in ConfigMap sso (key config), which cannot be read (spec.auth.authenticationConfiguration), under no prefix; create the ConfigMap"},
		},
		"EveryRouteNamed": {
			reason: "Each route that reaches the team is named, so the platform fixes them in one pass.",
			tenant: grant(),
			world: withObjects(
				frontProxyOf("edge", "root", func(s *v1alpha1.FrontProxySpec) { s.Auth = oidc("") }),
				shardOf("s1", func(s *v1alpha1.CommonShardSpec) { s.ClientCABundleRef = &corev1.LocalObjectReference{Name: "corp-ca"} }),
			),
			errs: []string{
				refused + "Shard s1: client certificates of the CAs in Secret corp-ca (spec.clientCABundleRef), under no prefix; " + unboundedFix,
				refused + "FrontProxy edge: OIDC groups of https://edge-sso.example.com (spec.auth.oidc.groupsPrefix), under no prefix; set spec.auth.oidc.groupsPrefix to a prefix no Tenant's starts with, such as oidc:",
			},
		},
	}
	runComposeCases(t, cases)
}

// unboundedFix is what a refusal says of a route that names any identity.
const unboundedFix = "a route that names any identity cannot serve an installation a Tenant shares: remove it, or serve it from an installation no Tenant shares"
