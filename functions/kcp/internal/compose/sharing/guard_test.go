package sharing

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// tenant is Tenant name of namespace kcp for namespace name, through FrontProxy front, whose
// status names rootShard ("" before its first reconcile).
func tenant(name, rootShard string) map[string]any {
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant",
		"metadata": map[string]any{"name": name, "namespace": "kcp", "creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec":     map[string]any{"frontProxy": map[string]any{"ref": map[string]any{"name": "front"}}},
		"status":   map[string]any{"rootShard": rootShard}}
}

// xr is an XR of kind and name in namespace kcp with the given spec, as JSON.
func xr(kind, name, spec string) map[string]any {
	var s map[string]any
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		panic(err)
	}
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": "kcp"}, "spec": s}
}

// TestGuardRoutes plays a platform adding, after its Tenants are granted, a way into the
// installation for identities it did not issue: a second front-proxy, an identity provider,
// a webhook, another CA. Each that could name a Tenant's identities is refused at its own
// field, naming the Tenant; one that cannot, or one into another installation, is not.
func TestGuardRoutes(t *testing.T) {
	const oidcFree = `{"rootShard": {"ref": {"name": "root"}}, "auth": {"oidc": {"issuerURL": "https://sso.example.com", "clientID": "kcp", "usernameClaim": "email", "usernamePrefix": "oidc:"}}}`
	cases := map[string]struct {
		reason  string
		kind    string
		xr      map[string]any
		tenants []map[string]any
		// unanswered leaves the Tenants unread.
		unanswered bool
		errs       []string
		reqs       []string
	}{
		"SecondFrontProxyAddedLater": {
			reason:  "A front-proxy added to a shared installation with an identity provider's groups unprefixed would make group tenant:team-a:admins cluster-admin of root:team-a.",
			kind:    "FrontProxy",
			xr:      xr("FrontProxy", "edge", oidcFree),
			tenants: []map[string]any{tenant("team-a", "root")},
			errs: []string{`spec.auth.oidc.groupsPrefix: Forbidden: OIDC groups of https://sso.example.com (spec.auth.oidc.groupsPrefix), under no prefix could name the identities of Tenant kcp/team-a, ` +
				"which shares this installation with namespace team-a under tenant:team-a:: one of its users or groups named so would be the team's in kcp; " +
				"set spec.auth.oidc.groupsPrefix to a prefix no Tenant's starts with, such as oidc:"},
			reqs: []string{"tenant/kcp/*"},
		},
		"FrontProxyOfAnotherInstallation": {
			reason:  "The Tenants of the namespace share RootShard root; a front-proxy of another RootShard leads elsewhere.",
			kind:    "FrontProxy",
			xr:      xr("FrontProxy", "edge", `{"rootShard": {"ref": {"name": "other"}}, "auth": {"webhook": {"configSecretName": "authn"}}}`),
			tenants: []map[string]any{tenant("team-a", "root")},
			reqs:    []string{"tenant/kcp/*"},
		},
		"TenantNotReconciledYet": {
			reason:  "A Tenant whose status names no RootShard yet may share any installation of its namespace: the route waits for it.",
			kind:    "Shard",
			xr:      xr("Shard", "s1", `{"rootShard": {"ref": {"name": "other"}}, "auth": {"tokenAuthFile": {"secretName": "tokens"}}}`),
			tenants: []map[string]any{tenant("team-a", "")},
			errs: []string{"spec.auth.tokenAuthFile: Forbidden: a token file, whose lines name any user and groups (spec.auth.tokenAuthFile), under no prefix could name the identities of Tenant kcp/team-a, " +
				"which shares this installation with namespace team-a under tenant:team-a:: one of its users or groups named so would be the team's in kcp; " + unbounded},
			reqs: []string{"tenant/kcp/*"},
		},
		"RootShardWithAnotherCA": {
			reason:  "The RootShard a Tenant shares trusting another CA's client certificates.",
			kind:    "RootShard",
			xr:      xr("RootShard", "root", `{"clientCABundleRef": {"name": "corp-ca"}}`),
			tenants: []map[string]any{tenant("team-a", "root")},
			errs: []string{"spec.clientCABundleRef: Forbidden: client certificates of the CAs in Secret corp-ca (spec.clientCABundleRef), under no prefix could name the identities of Tenant kcp/team-a, " +
				"which shares this installation with namespace team-a under tenant:team-a:: one of its users or groups named so would be the team's in kcp; " + unbounded},
			reqs: []string{"tenant/kcp/*"},
		},
		"VirtualWorkspaceServesAnyShard": {
			reason:  "A VirtualWorkspace names a shard, not a RootShard: every Tenant of the namespace counts.",
			kind:    "VirtualWorkspace",
			xr:      xr("VirtualWorkspace", "vw", `{"clientCABundleRef": {"name": "corp-ca"}}`),
			tenants: []map[string]any{tenant("team-a", "root")},
			errs: []string{"spec.clientCABundleRef: Forbidden: client certificates of the CAs in Secret corp-ca (spec.clientCABundleRef), under no prefix could name the identities of Tenant kcp/team-a, " +
				"which shares this installation with namespace team-a under tenant:team-a:: one of its users or groups named so would be the team's in kcp; " + unbounded},
			reqs: []string{"tenant/kcp/*"},
		},
		"PrefixedRoutesPass": {
			reason:  "An identity provider whose users and groups carry a prefix of their own reaches no Tenant.",
			kind:    "FrontProxy",
			xr:      xr("FrontProxy", "edge", `{"rootShard": {"ref": {"name": "root"}}, "auth": {"oidc": {"issuerURL": "https://sso.example.com", "clientID": "kcp", "usernameClaim": "email", "usernamePrefix": "oidc:", "groupsPrefix": "oidc:"}}}`),
			tenants: []map[string]any{tenant("team-a", "root")},
			reqs:    []string{"tenant/kcp/*"},
		},
		"NoRouteReadsNothing": {
			reason: "A component that takes no identity from elsewhere does not read the Tenants: the installations no one shares pay nothing.",
			kind:   "FrontProxy",
			xr:     xr("FrontProxy", "front", `{"rootShard": {"ref": {"name": "root"}}, "auth": {"serviceAccount": {"enabled": true}}}`),
		},
		"RefusesNothingUnread": {
			reason:     "Until Crossplane answers, nothing is known of the Tenants, and nothing is refused.",
			kind:       "FrontProxy",
			xr:         xr("FrontProxy", "edge", oidcFree),
			tenants:    []map[string]any{tenant("team-a", "root")},
			unanswered: true,
			reqs:       []string{"tenant/kcp/*"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := testworld.New().InNamespace("kcp")
			for _, o := range tc.tenants {
				w.Object(o)
			}
			if !tc.unanswered {
				w.Answer("tenant/kcp/*")
			}
			reqs, errs := GuardRoutes(tc.kind, tc.xr, w.State())
			var gotErrs, gotReqs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			for _, r := range reqs {
				gotReqs = append(gotReqs, r.Key())
			}
			if diff := cmp.Diff(tc.errs, gotErrs); diff != "" {
				t.Errorf("%s\nGuardRoutes(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.reqs, gotReqs); diff != "" {
				t.Errorf("%s\nGuardRoutes(...) requirements: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
