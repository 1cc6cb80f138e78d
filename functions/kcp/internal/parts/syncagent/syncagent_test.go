package syncagent

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// database is a published resource with a connection Secret.
func database(related ...v1alpha1.PublishedAPIRelated) v1alpha1.PublishedAPIResource {
	return v1alpha1.PublishedAPIResource{Name: "database", Group: "platform.example.org", Kind: "Database", Plural: "databases", Versions: []string{"v1alpha1"}, Related: related}
}

var connection = v1alpha1.PublishedAPIRelated{Identifier: "connection", Origin: v1alpha1.RelatedOriginService, Kind: "Secret", NameTemplate: "{{ .Object.metadata.name }}-connection"}

// rules renders rules as "group resources verbs [names]" lines, to compare at a glance.
func rules(t *testing.T, in []any) []string {
	t.Helper()
	var out []string
	for _, r := range in {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestServiceRules(t *testing.T) {
	base := []string{
		`{"apiGroups":["apiextensions.k8s.io"],"resources":["customresourcedefinitions"],"verbs":["get","list","watch"]}`,
		`{"apiGroups":["syncagent.kcp.io"],"resources":["publishedresources"],"verbs":["get","list","watch"]}`,
		`{"apiGroups":["syncagent.kcp.io"],"resources":["publishedresources/status"],"verbs":["get","patch","update"]}`,
		`{"apiGroups":[""],"resources":["namespaces"],"verbs":["get","list","watch","create"]}`,
		`{"apiGroups":[""],"resources":["events"],"verbs":["create","patch"]}`,
	}
	readSecrets := `{"apiGroups":[""],"resources":["secrets"],"verbs":["get","list","watch"]}`
	manage := `"verbs":["get","list","watch","create","update","patch","delete"]}`
	cases := map[string]struct {
		reason    string
		resources []v1alpha1.PublishedAPIResource
		want      []string
	}{
		"OneResource": {
			reason:    "The agent manages exactly the published resource and its status, besides what every agent reads (Secrets: its state store is read through a cluster-wide cache).",
			resources: []v1alpha1.PublishedAPIResource{database()},
			want:      append(slices.Clone(base), readSecrets, `{"apiGroups":["platform.example.org"],"resources":["databases","databases/status"],`+manage),
		},
		"Related": {
			reason:    "A related Secret makes secrets managed rather than read, and adds nothing else: the kinds of related objects are the agent's only other rights.",
			resources: []v1alpha1.PublishedAPIResource{database(connection)},
			want: append(slices.Clone(base), `{"apiGroups":["platform.example.org"],"resources":["databases","databases/status"],`+manage,
				`{"apiGroups":[""],"resources":["secrets"],`+manage),
		},
		"TwoGroups": {
			reason: "Resources are grouped by API group, groups and resources sorted, so the ClusterRole is the same whatever the order of spec.resources.",
			resources: []v1alpha1.PublishedAPIResource{
				{Name: "queue", Group: "queues.example.org", Kind: "Queue", Plural: "queues", Versions: []string{"v1"}, Related: []v1alpha1.PublishedAPIRelated{{Identifier: "c", Origin: v1alpha1.RelatedOriginKCP, Kind: "ConfigMap", NamePath: "spec.config"}}},
				database(connection),
				{Name: "cache", Group: "platform.example.org", Kind: "Cache", Plural: "caches", Versions: []string{"v1"}},
			},
			want: append(slices.Clone(base),
				`{"apiGroups":["platform.example.org"],"resources":["caches","caches/status","databases","databases/status"],`+manage,
				`{"apiGroups":["queues.example.org"],"resources":["queues","queues/status"],`+manage,
				`{"apiGroups":[""],"resources":["configmaps","secrets"],`+manage),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rules(t, ServiceRules(tc.resources))); diff != "" {
				t.Errorf("%s\nServiceRules(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestKCPRules(t *testing.T) {
	want := []string{
		`{"nonResourceURLs":["/"],"verbs":["access"]}`,
		`{"apiGroups":["core.kcp.io"],"resourceNames":["cluster"],"resources":["logicalclusters"],"verbs":["get"]}`,
		`{"apiGroups":["apis.kcp.io"],"resourceNames":["databases"],"resources":["apiexports"],"verbs":["get","list","watch","patch","update"]}`,
		`{"apiGroups":["apis.kcp.io"],"resourceNames":["databases"],"resources":["apiexports/content"],"verbs":["*"]}`,
		`{"apiGroups":["apis.kcp.io"],"resources":["apiexportendpointslices"],"verbs":["get","list","watch"]}`,
		`{"apiGroups":["apis.kcp.io"],"resources":["apiresourceschemas"],"verbs":["get","list","watch","create"]}`,
		`{"apiGroups":[""],"resources":["events"],"verbs":["get","create","patch","update"]}`,
	}
	if diff := cmp.Diff(want, rules(t, KCPRules("databases"))); diff != "" {
		t.Errorf("In the provider workspace the agent reaches its own export and nothing else named.\nKCPRules(databases): -want, +got:\n%s", diff)
	}
}

func TestClaims(t *testing.T) {
	all := []string{"*"}
	cases := map[string]struct {
		reason    string
		resources []v1alpha1.PublishedAPIResource
		want      []v1alpha1.APIPermissionClaim
	}{
		"NoRelated": {
			reason:    "api-syncagent always claims events.",
			resources: []v1alpha1.PublishedAPIResource{database()},
			want:      []v1alpha1.APIPermissionClaim{{Resource: "events", Verbs: all}},
		},
		"Related": {
			reason:    "A related object adds namespaces and its own resource, as api-syncagent's APIExport reconciler does.",
			resources: []v1alpha1.PublishedAPIResource{database(connection)},
			want:      []v1alpha1.APIPermissionClaim{{Resource: "events", Verbs: all}, {Resource: "namespaces", Verbs: all}, {Resource: "secrets", Verbs: all}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Claims(tc.resources)); diff != "" {
				t.Errorf("%s\nClaims(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPublishedResource(t *testing.T) {
	r := database(connection, v1alpha1.PublishedAPIRelated{Identifier: "config", Origin: v1alpha1.RelatedOriginKCP, Kind: "ConfigMap", NamePath: "spec.configName"})
	r.Projection = &v1alpha1.PublishedAPIProjection{Kind: "PostgreSQL", ShortNames: []string{"pg"}}
	got, err := json.Marshal(PublishedResource("databases-database", map[string]string{"kcp.crossplane.io/published-api": "a"}, r))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"syncagent.kcp.io/v1alpha1","kind":"PublishedResource","metadata":{"labels":{"kcp.crossplane.io/published-api":"a"},"name":"databases-database"},"spec":{` +
		`"projection":{"kind":"PostgreSQL","shortNames":["pg"]},` +
		`"related":[{"cleanup":true,"identifier":"connection","object":{"template":{"template":"{{ .Object.metadata.name }}-connection"}},"origin":"service","resource":"secrets","version":"v1"},` +
		`{"cleanup":true,"identifier":"config","object":{"reference":{"path":"spec.configName"}},"origin":"kcp","resource":"configmaps","version":"v1"}],` +
		`"resource":{"apiGroup":"platform.example.org","kind":"Database","versions":["v1alpha1"]}}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("The agent's defaults name the copies (no naming); related objects by GVR, cleaned up with their object.\nPublishedResource(...): -want, +got:\n%s", diff)
	}
}

func TestArgs(t *testing.T) {
	want := []string{
		"--namespace=agents", "--agent-name=syncagent-kcp-databases", "--apiexportendpointslice-ref=databases",
		"--kcp-kubeconfig=/etc/api-syncagent/kcp/kubeconfig", "--published-resource-selector=kcp.crossplane.io/published-api=syncagent-kcp-databases",
		"--enable-leader-election", "--metrics-address=0.0.0.0:8085", "--health-address=0.0.0.0:8086",
	}
	got := Args(Agent{Name: "syncagent-kcp-databases", Namespace: "agents", Export: "databases", Selector: "kcp.crossplane.io/published-api=syncagent-kcp-databases"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("The agent serves its export's endpoint slice, only its own PublishedResources, with leader election.\nArgs(...): -want, +got:\n%s", diff)
	}
}

func TestBuildRunsRestricted(t *testing.T) {
	dep, svc := Workload{
		Agent:      Agent{Name: "a", Namespace: "agents", Export: "e", Selector: "k=v"},
		Deployment: "databases-syncagent", Labels: map[string]string{"app": "x"}, Replicas: 2, Image: "img", Mounts: Mounts("databases-syncagent-kubeconfig"),
	}.Build()
	pod := dep.Spec.Template.Spec
	c := pod.Containers[0]
	for _, check := range []struct {
		what string
		ok   bool
	}{
		{"runs as a number (the image's user is the name nobody)", pod.SecurityContext.RunAsUser != nil && *pod.SecurityContext.RunAsUser == 65534},
		{"runs as non-root", pod.SecurityContext.RunAsNonRoot != nil && *pod.SecurityContext.RunAsNonRoot},
		{"carries its ServiceAccount's token: it talks to the service cluster", pod.AutomountServiceAccountToken != nil && *pod.AutomountServiceAccountToken && pod.ServiceAccountName == "databases-syncagent"},
		{"drops every capability", c.SecurityContext != nil && len(c.SecurityContext.Capabilities.Drop) == 1 && c.SecurityContext.Capabilities.Drop[0] == "ALL"},
		{"escalates no privilege", c.SecurityContext.AllowPrivilegeEscalation != nil && !*c.SecurityContext.AllowPrivilegeEscalation},
		{"mounts its kubeconfig read-only", len(c.VolumeMounts) == 1 && c.VolumeMounts[0].MountPath == DirKCPKubeconfig && c.VolumeMounts[0].ReadOnly},
		{"probes its health port", c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet.Port.StrVal == "health"},
		{"exposes metrics on a Service", len(svc.Spec.Ports) == 1 && svc.Spec.Ports[0].Port == MetricsPort},
	} {
		if !check.ok {
			t.Errorf("the agent's pod %s: it does not", check.what)
		}
	}
}

func TestNamespaceRules(t *testing.T) {
	want := []string{
		`{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get","list","watch","create","update","patch","delete"]}`,
		`{"apiGroups":[""],"resources":["secrets"],"verbs":["get","list","watch","create","update","patch","delete"]}`,
	}
	if diff := cmp.Diff(want, rules(t, NamespaceRules())); diff != "" {
		t.Errorf("In its namespace the agent elects a leader and writes its objects' last states.\nNamespaceRules(): -want, +got:\n%s", diff)
	}
}
