package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// publishedAPIXR is PublishedAPI databases in namespace ns with resources, its agent in
// namespace agents of the cluster ProviderConfig service-cluster reaches.
func publishedAPIXR(ns, resources string) string {
	return `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "PublishedAPI", "metadata": {"name": "databases", "namespace": "` + ns + `", "uid": "pa-uid"},
		"spec": {"rootShard": {"name": "root"}, "workspace": "root:providers", "resources": ` + resources + `,
			"serviceCluster": {"providerConfigRef": {"name": "service-cluster"}, "namespace": "agents"}}}`
}

// databasesResource publishes Databases with their connection Secret.
const databasesResource = `[{"name": "database", "group": "platform.example.org", "kind": "Database", "plural": "databases", "versions": ["v1alpha1"],
	"related": [{"identifier": "connection", "origin": "Service", "kind": "Secret", "nameTemplate": "{{ .Object.metadata.name }}-connection"}]}]`

// publishingWorld is what a PublishedAPI in namespace kcp reads: a policy making kcp the
// platform's namespace, and RootShard root.
func publishingWorld(t testing.TB) []map[string]any {
	// The agent's kubeconfig, as its Kubeconfig writes it.
	return append(rootShardWorld(t), policyWith(map[string]any{"platformNamespaces": []any{"kcp"}}), secretWith("databases-syncagent-kubeconfig"))
}

// TestHostilePublishedAPIs drives edits of a running PublishedAPI that would widen what its
// agent may do in the service cluster, or publish from where the platform did not allow:
// each is refused with a Fatal result naming the field, and desires nothing, so Crossplane
// applies nothing new and deletes nothing the PublishedAPI composed.
//
// PublishedAPI's fields. Who sets them: the platform (install/tenant-role.yaml grants no
// publishedapis) in a namespace the policy allows (data.platformNamespaces or
// data.features.apiPublishing). Largest: 16 resources of 8 related kinds each, every string
// bounded by the schema. What they cost shared objects: none; the RootShard reads the two
// Objects acting in the provider workspace, as any Workspace's. Certificates: one client
// certificate, of its Kubeconfig, in group kubeconfig:<name>-syncagent, bound to the agent's
// ClusterRole in the provider workspace only.
func TestHostilePublishedAPIs(t *testing.T) {
	runFn := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }
	running, err := fnrequest.ConvergedAnswered(runFn, publishedAPIXR("kcp", databasesResource), publishingWorld(t)...)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(running.GetObserved().GetResources()); n < 10 {
		t.Fatalf("the PublishedAPI composed %d resources before the edit, want its export, agent, RBAC and PublishedResources", n)
	}
	cases := map[string]struct {
		reason    string
		ns        string
		resources string
		want      []string
	}{
		"FromATenantNamespace": {
			reason: "A namespace the policy does not allow may not publish: its agent's ClusterRole in the service cluster reaches every namespace there.",
			ns:     "team-a",
			want:   []string{"metadata.namespace: Forbidden: namespace team-a may not publish APIs", "data.features.apiPublishing"},
		},
		"ThisPackagesOwnGroup": {
			reason: "Publishing kcp.crossplane.io would let the agent, and every consumer through it, write RootShards and Tenants in every namespace: agent RBAC wider than an API.",
			resources: strings.Replace(databasesResource, `"group": "platform.example.org", "kind": "Database", "plural": "databases"`,
				`"group": "kcp.crossplane.io", "kind": "Tenant", "plural": "tenants"`, 1),
			want: []string{"spec.resources[0].group: Forbidden: kcp.crossplane.io is a group Kubernetes or kcp serves itself"},
		},
		"KubernetesRBAC": {
			reason: "rbac.authorization.k8s.io would give the agent every ClusterRole of the service cluster.",
			resources: strings.Replace(databasesResource, `"group": "platform.example.org", "kind": "Database", "plural": "databases"`,
				`"group": "rbac.authorization.k8s.io", "kind": "ClusterRole", "plural": "clusterroles"`, 1),
			want: []string{"spec.resources[0].group: Forbidden: rbac.authorization.k8s.io is a group"},
		},
		"TheCoreGroup": {
			reason: "The core group (Secrets, Pods) is no CRD's: refused naming the group.",
			resources: strings.Replace(databasesResource, `"group": "platform.example.org", "kind": "Database", "plural": "databases"`,
				`"group": "v1", "kind": "Secret", "plural": "secrets"`, 1),
			want: []string{"spec.resources[0].group: Invalid value: \"v1\": name the API group of a CRD"},
		},
		"RelatedServiceAccounts": {
			reason:    "A related kind becomes a cluster-wide rule of the agent: only Secrets and ConfigMaps may travel.",
			resources: strings.Replace(databasesResource, `"kind": "Secret"`, `"kind": "ServiceAccount"`, 1),
			want:      []string{`spec.resources[0].related[0].kind: Unsupported value: "ServiceAccount"`},
		},
		"SameResourceTwice": {
			reason:    "One resource published twice would be two PublishedResources fighting over one CRD.",
			resources: "[" + strings.Trim(databasesResource, "[]") + ", " + strings.Replace(strings.Trim(databasesResource, "[]"), `"name": "database"`, `"name": "again"`, 1) + "]",
			want:      []string{"spec.resources[1].kind: Duplicate value"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ns, resources := "kcp", databasesResource
			if tc.ns != "" {
				ns = tc.ns
			}
			if tc.resources != "" {
				resources = tc.resources
			}
			req := proto.Clone(running).(*fnv1.RunFunctionRequest)
			req.Observed.Composite = &fnv1.Resource{Resource: fnrequest.StructJSON(publishedAPIXR(ns, resources))}
			observedBefore := proto.Clone(req.GetObserved()).(*fnv1.State)
			rsp := run(t, req)
			checkRefusedXR(t, "PublishedAPI "+ns+"/databases", tc.reason, req, observedBefore, rsp, tc.want)
		})
	}
}

// teamWorkspace is the team's Workspace app of the shared installation with apiBindings.
func teamWorkspace(apiBindings string) map[string]any {
	var bindings []any
	if err := json.Unmarshal([]byte(apiBindings), &bindings); err != nil {
		panic(err)
	}
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Workspace",
		"metadata": map[string]any{"name": "app", "namespace": "team-a", "uid": "team-a-app", "creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec":     map[string]any{"rootShard": map[string]any{"ref": map[string]any{"name": "root", "namespace": "kcp"}}, "apiBindings": bindings}}
}

// grantedBinding binds the databases export accepting what api-syncagent asks.
const grantedBinding = `[{"export": {"path": "root:providers", "name": "databases"}, "permissionClaims": [
	{"resource": "events", "verbs": ["*"]}, {"resource": "namespaces", "verbs": ["*"]}, {"resource": "secrets", "verbs": ["*"]}]}]`

// apiTenantXR is Tenant team-a granting the databases export and its claims, read-only
// namespaces.
const apiTenantXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"Tenant","metadata":{"name":"team-a","namespace":"kcp","uid":"tenant-uid"},"spec":{"frontProxy":{"ref":{"name":"fp"}},
	"apis":[{"export":{"path":"root:providers","name":"databases"},"permissionClaims":[{"resource":"events","verbs":["*"]},{"resource":"namespaces","verbs":["*"]},{"resource":"secrets","verbs":["*"]}]}]}}`

// TestHostileAPIBindingsKeepWhatRuns drives a team's edits of a granted Workspace through
// its TenantRequest to the Tenant: binding an export the Tenant does not grant (another
// team's provider workspace among them), accepting a claim or verbs beyond the grant. Each
// is refused naming the team's field in the Tenant's status, and the Workspace the Tenant
// composed for it before, with its granted binding, is kept unchanged: a team cannot make
// the platform drop what runs, nor reach further.
func TestHostileAPIBindingsKeepWhatRuns(t *testing.T) {
	world := func(bindings string) []map[string]any {
		w := tenantWorld(t)[:2] // the FrontProxy and RootShard
		return append(append(w, quotaOf("team-a")), teamRequests(t, []map[string]any{teamWorkspace(bindings)})...)
	}
	runFn := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }
	req, err := fnrequest.ConvergedAnswered(runFn, apiTenantXR, world(grantedBinding)...)
	if err != nil {
		t.Fatal(err)
	}
	converged := run(t, req)
	granted, ok := converged.GetDesired().GetResources()["workspace-app"]
	if !ok {
		t.Fatalf("the Tenant composed no Workspace for the team's granted one: %v; status %v", keysOf(converged), converged.GetDesired().GetComposite().GetResource().AsMap()["status"])
	}
	if b, _ := json.Marshal(granted.GetResource().AsMap()["spec"]); !strings.Contains(string(b), `"apiBindings":[{"export":{"name":"databases","path":"root:providers"}`) {
		t.Fatalf("the Workspace the Tenant composed does not carry the team's granted binding: %s", b)
	}
	cases := map[string]struct {
		reason   string
		bindings string
		want     string
	}{
		"ExportNotGranted": {
			reason:   "An export the Tenant does not list.",
			bindings: `[{"export": {"path": "root:providers", "name": "queues"}}]`,
			want:     "spec.apiBindings[0].export: Forbidden: APIExport queues of workspace root:providers is not one Tenant team-a lets the team bind",
		},
		"AnotherTeamsProviderWorkspace": {
			reason:   "The same export name in another team's workspace: binding it would give that team's provider what the binding accepts.",
			bindings: `[{"export": {"path": "root:team-b", "name": "databases"}, "permissionClaims": [{"resource": "secrets", "verbs": ["*"]}]}]`,
			want:     "spec.apiBindings[0].export: Forbidden: APIExport databases of workspace root:team-b is not one Tenant team-a lets the team bind",
		},
		"ClaimBeyondThePolicy": {
			reason:   "Accepting configmaps would let the provider read the team's ConfigMaps.",
			bindings: strings.Replace(grantedBinding, `{"resource": "events", "verbs": ["*"]}`, `{"resource": "configmaps", "verbs": ["*"]}`, 1),
			want:     "spec.apiBindings[0].permissionClaims[0]: Forbidden: Tenant team-a does not let the team accept a claim on configmaps",
		},
		"ClaimOfAnotherGroup": {
			reason:   "secrets of another group are another resource than the Secrets granted.",
			bindings: strings.Replace(grantedBinding, `{"resource": "secrets", "verbs": ["*"]}`, `{"group": "example.org", "resource": "secrets", "verbs": ["*"]}`, 1),
			want:     "spec.apiBindings[0].permissionClaims[2]: Forbidden: Tenant team-a does not let the team accept a claim on secrets.example.org",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, err := fnrequest.NextAnswered(apiTenantXR, converged, world(tc.bindings)...)
			if err != nil {
				t.Fatal(err)
			}
			observed := proto.Clone(req.GetObserved().GetResources()["workspace-app"]).(*fnv1.Resource)
			rsp := run(t, req)
			status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)
			var member map[string]any
			for _, m := range status["members"].([]any) {
				if m := m.(map[string]any); m["kind"] == "Workspace" && m["name"] == "app" {
					member = m
				}
			}
			if member == nil || member["granted"] == true || !strings.Contains(fmt.Sprint(member["message"]), tc.want) {
				t.Errorf("%s\nthe Tenant's member for Workspace app: %v, want refused saying %q", tc.reason, member, tc.want)
			}
			kept, ok := rsp.GetDesired().GetResources()["workspace-app"]
			if !ok || !proto.Equal(kept.GetResource().GetFields()["spec"], observed.GetResource().GetFields()["spec"]) {
				t.Errorf("%s\nthe Workspace composed for the team before is not kept unchanged: desired %v", tc.reason, kept.GetResource().AsMap()["spec"])
			}
		})
	}
}

// keysOf lists the desired resources' names.
func keysOf(rsp *fnv1.RunFunctionResponse) []string {
	var out []string
	for k := range rsp.GetDesired().GetResources() {
		out = append(out, k)
	}
	return out
}

// TestPublishedAPINotATenantKind holds that teams cannot write PublishedAPIs: the policy's
// table of tenant kinds has no row for it, so neither tenant role may grant it (TestTenantKinds
// holds the roles to the table).
func TestPublishedAPINotATenantKind(t *testing.T) {
	for _, k := range policy.TenantKinds {
		if k.Resource == "publishedapis" {
			t.Errorf("PublishedAPI is a tenant kind: its agent's ClusterRole reaches every namespace of the service cluster; only the platform may write it")
		}
	}
}

// TestNarrowedGrantKeepsWhatRuns: the platform takes the export out of the Tenant's
// spec.apis. The team's Workspace that binds it is refused, naming the field, and the
// Workspace composed for it before, with its APIBinding, is kept: a grant narrowed by mistake
// deletes nothing (docs/publishing-apis.md, "Taking a grant back").
func TestNarrowedGrantKeepsWhatRuns(t *testing.T) {
	world := append(append(tenantWorld(t)[:2], quotaOf("team-a")), teamRequests(t, []map[string]any{teamWorkspace(grantedBinding)})...)
	runFn := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }
	req, err := fnrequest.ConvergedAnswered(runFn, apiTenantXR, world...)
	if err != nil {
		t.Fatal(err)
	}
	converged := run(t, req)
	narrowed := strings.Replace(apiTenantXR, `"apis":[{"export":{"path":"root:providers","name":"databases"},"permissionClaims":[{"resource":"events","verbs":["*"]},{"resource":"namespaces","verbs":["*"]},{"resource":"secrets","verbs":["*"]}]}]`, `"apis":[]`, 1)
	if narrowed == apiTenantXR {
		t.Fatal("the Tenant's spec.apis was not narrowed")
	}
	req, err = fnrequest.NextAnswered(narrowed, converged, world...)
	if err != nil {
		t.Fatal(err)
	}
	observed := req.GetObserved().GetResources()["workspace-app"]
	rsp := run(t, req)
	kept, ok := rsp.GetDesired().GetResources()["workspace-app"]
	if observed == nil || !ok || !proto.Equal(kept.GetResource().GetFields()["spec"], observed.GetResource().GetFields()["spec"]) {
		t.Errorf("the Workspace composed for the team is not kept unchanged once the grant is narrowed")
	}
	status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)
	if !strings.Contains(fmt.Sprint(status["members"]), "spec.apiBindings[0].export: Forbidden") {
		t.Errorf("the Tenant's members do not name the refused binding: %v", status["members"])
	}
}
