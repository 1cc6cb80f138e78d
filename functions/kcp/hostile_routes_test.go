package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// TestHostileRouteKeepsWhatRuns drives, through RunFunction and Crossplane's requirement loop,
// a platform that adds a way into a shared installation for identities it did not issue: the
// running front-proxy fp of RootShard root, which Tenant team-a shares, gets an identity
// provider whose groups carry no prefix, a webhook, a token file or another CA. Each is refused
// with a Fatal result naming the FrontProxy's field and the Tenant, so Crossplane applies
// nothing new and deletes nothing fp runs. Without the Tenant the same edit is composed.
func TestHostileRouteKeepsWhatRuns(t *testing.T) {
	tenant := fnrequest.StructJSON(benchTenantXR).AsMap()
	tenant["metadata"].(map[string]any)["creationTimestamp"] = "2026-01-01T00:00:00Z"
	tenant["status"] = map[string]any{"rootShard": "root"}
	shared := append(rootShardWorld(t), tenant)
	running := convergedRequest(t, benchFrontProxyXR, shared...)
	cases := map[string]struct {
		reason string
		spec   string
		want   string
	}{
		"IdentityProviderGroupsUnprefixed": {
			reason: "An identity provider group tenant:team-a:admins would be cluster-admin of root:team-a through fp.",
			spec:   `"auth": {"oidc": {"issuerURL": "https://sso.example.com", "clientID": "kcp", "usernameClaim": "email", "usernamePrefix": "oidc:"}, "serviceAccount": {"enabled": true}}`,
			want:   "spec.auth.oidc.groupsPrefix: Forbidden: OIDC groups of https://sso.example.com (spec.auth.oidc.groupsPrefix), under no prefix could name the identities of Tenant kcp/team-a",
		},
		"IdentityProviderUsersUnderTheTenantsPrefix": {
			reason: "A username prefix tenant: starts every team's identities.",
			spec:   `"auth": {"oidc": {"issuerURL": "https://sso.example.com", "clientID": "kcp", "usernamePrefix": "tenant:", "groupsPrefix": "oidc:"}, "serviceAccount": {"enabled": true}}`,
			want:   `spec.auth.oidc.usernamePrefix: Forbidden: OIDC users of https://sso.example.com (spec.auth.oidc.usernamePrefix), under "tenant:" could name the identities of Tenant kcp/team-a`,
		},
		"TokenWebhook": {
			reason: "A token webhook answers with any user and groups.",
			spec:   `"auth": {"webhook": {"configSecretName": "authn"}}`,
			want:   "spec.auth.webhook: Forbidden: a token webhook (Secret authn)",
		},
		"TokenFile": {
			reason: "A token file's lines name any user and groups.",
			spec:   `"auth": {"tokenAuthFile": {"secretName": "tokens"}}`,
			want:   "spec.auth.tokenAuthFile: Forbidden: a token file",
		},
		"AnotherClientCA": {
			reason: "Another CA's client certificates carry whatever organization it signs.",
			spec:   `"clientCABundleRef": {"name": "corp-ca"}`,
			want:   "spec.clientCABundleRef: Forbidden: client certificates of the CAs in Secret corp-ca",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			xr := strings.Replace(benchFrontProxyXR, `"spec":{`, `"spec":{`+tc.spec+`,`, 1)
			hostile := proto.Clone(running).(*fnv1.RunFunctionRequest)
			hostile.Observed.Composite = fnrequest.New(xr).GetObserved().GetComposite()
			rsp := reconcile(t, hostile, shared)
			if !isFatal(rsp) || !strings.Contains(rsp.GetResults()[0].GetMessage(), tc.want) {
				t.Fatalf("%s\nwant a Fatal result containing %q, got %v", tc.reason, tc.want, rsp.GetResults())
			}
			if !strings.Contains(rsp.GetResults()[0].GetMessage(), "nothing was changed") {
				t.Errorf("%s\nthe refusal must say nothing was changed: %v", tc.reason, rsp.GetResults())
			}
			if n := len(rsp.GetDesired().GetResources()); n != 0 {
				t.Errorf("%s\na Fatal result desires nothing, so Crossplane deletes nothing; got %d desired resources", tc.reason, n)
			}

			alone := proto.Clone(running).(*fnv1.RunFunctionRequest)
			alone.Observed.Composite = hostile.Observed.Composite
			if rsp := reconcile(t, alone, rootShardWorld(t)); isFatal(rsp) && strings.Contains(rsp.GetResults()[0].GetMessage(), "Tenant") {
				t.Errorf("%s\nwithout a Tenant in the namespace the route serves no one else's identities, got %v", tc.reason, rsp.GetResults())
			}
		})
	}
}
