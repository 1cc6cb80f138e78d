package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// reconcile runs the function as Crossplane's requirement loop does: call, fetch what the
// response requires from world, call again until the requirements stop changing or a result
// is Fatal, and returns the last response, the one Crossplane acts on.
func reconcile(t *testing.T, req *fnv1.RunFunctionRequest, world []map[string]any) *fnv1.RunFunctionResponse {
	t.Helper()
	var last *fnv1.Requirements
	for calls := 1; calls <= 6; calls++ {
		rsp := run(t, req)
		for _, r := range rsp.GetResults() {
			if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
				return rsp
			}
		}
		if proto.Equal(rsp.GetRequirements(), last) {
			return rsp
		}
		last = rsp.GetRequirements()
		req.RequiredResources = map[string]*fnv1.Resources{}
		for key, sel := range last.GetResources() {
			req.RequiredResources[key] = fetch(t, world, sel)
		}
	}
	t.Fatalf("the requirements still change after six calls: %v", last)
	return nil
}

// tenantXR is a tenant's KcpInstallation whose root CA comes from ClusterIssuer issuer.
func tenantXR(issuer string) string {
	return `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "metadata": {"name": "dev", "namespace": "team-a", "uid": "dev-uid"},
		"spec": {"external": {"hostname": "kcp.team-a.example.com"}, "certificates": {"issuerRef": {"name": "` + issuer + `", "kind": "ClusterIssuer", "group": "cert-manager.io"}}}}`
}

// selfServicePolicy allows ClusterIssuer kcp-selfsigned in every namespace.
var selfServicePolicy = map[string]any{
	"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
	"metadata": map[string]any{"name": "kcp-self-service"},
	"data":     map[string]any{"issuers": []any{map[string]any{"kind": "ClusterIssuer", "name": "kcp-selfsigned", "namespaces": []any{"*"}}}},
}

// TestSelfServiceThroughTheRequirementLoop drives a tenant's KcpInstallation through
// Crossplane's requirement loop, as on a cluster: the installation reads the platform's
// policy and the XRs that could hold its children's names before anything is applied, so a
// refusal happens on the response Crossplane acts on, and never before the policy is read.
func TestSelfServiceThroughTheRequirementLoop(t *testing.T) {
	platformRootShard := fnrequest.StructJSON(`{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard", "metadata": {"name": "dev", "namespace": "team-a"}, "spec": {}}`).AsMap()
	cases := map[string]struct {
		reason string
		xr     string
		world  []map[string]any
		fatal  string // a substring of the Fatal result; "" for none
	}{
		"AllowedClusterIssuer": {
			reason: "The platform allows the self-signed ClusterIssuer everywhere: the installation composes.",
			xr:     tenantXR("kcp-selfsigned"),
			world:  []map[string]any{selfServicePolicy},
		},
		"ClusterIssuerNotAllowed": {
			reason: "The platform's CA ClusterIssuer is not in the policy: refused once the policy is read, naming the field and the policy.",
			xr:     tenantXR("corp-root-ca"),
			world:  []map[string]any{selfServicePolicy},
			fatal:  "invalid KcpInstallation team-a/dev, nothing was changed: spec.certificates.issuerRef: Forbidden: ClusterIssuer corp-root-ca (group cert-manager.io) is not allowed for installations in namespace team-a by the platform's policy (EnvironmentConfig kcp-self-service, data.issuers)",
		},
		"NoPolicy": {
			reason: "Without a policy only the namespace's own Issuers may be used.",
			xr:     tenantXR("kcp-selfsigned"),
			fatal:  "spec.certificates.issuerRef: Forbidden: ClusterIssuer kcp-selfsigned",
		},
		"PlatformRootShardOfTheSameName": {
			reason: "The platform's RootShard dev, which has no controller, is not adopted by the tenant's installation dev.",
			xr:     tenantXR("kcp-selfsigned"),
			world:  []map[string]any{selfServicePolicy, platformRootShard},
			fatal:  "the RootShard team-a/dev this would compose is taken: RootShard team-a/dev exists and is not controlled by this KcpInstallation (it has no controller)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := reconcile(t, fnrequest.New(tc.xr), tc.world)
			var fatal string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatal = r.GetMessage()
				}
			}
			switch {
			case tc.fatal == "" && fatal != "":
				t.Errorf("%s\nfatal result: %s", tc.reason, fatal)
			case tc.fatal != "" && !strings.Contains(fatal, tc.fatal):
				t.Errorf("%s\nfatal result:\n got: %q\nwant: ...%q...", tc.reason, fatal, tc.fatal)
			case tc.fatal == "" && rsp.GetDesired().GetResources()["rootshard"] == nil:
				t.Errorf("%s\nno RootShard composed: %v", tc.reason, rsp.GetDesired().GetResources())
			}
			if sel := rsp.GetRequirements().GetResources()["environmentconfig/kcp-self-service"]; tc.fatal == "" && (sel == nil || sel.Namespace != nil) {
				t.Errorf("%s\nthe policy must be required cluster-wide (no namespace): %v", tc.reason, sel)
			}
		})
	}
}
