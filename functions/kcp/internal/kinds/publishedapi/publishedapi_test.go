package publishedapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// Result is what Compose returns.
type Result = result.Result[v1alpha1.PublishedAPIStatus]

// databases is PublishedAPI databases of RootShard root (namespace kcp), publishing
// Databases with their connection Secret from root:providers, its agent in namespace agents
// of the cluster ProviderConfig service-cluster reaches.
func databases(mods ...func(*v1alpha1.PublishedAPI)) *v1alpha1.PublishedAPI {
	pa := &v1alpha1.PublishedAPI{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: v1alpha1.KindPublishedAPI},
		ObjectMeta: metav1.ObjectMeta{Name: "databases", Namespace: testworld.Namespace},
		Spec: v1alpha1.PublishedAPISpec{
			RootShard: corev1.LocalObjectReference{Name: "root"},
			Workspace: "root:providers",
			Resources: []v1alpha1.PublishedAPIResource{{
				Name: "database", Group: "platform.example.org", Kind: "Database", Plural: "databases", Versions: []string{"v1alpha1"},
				Related: []v1alpha1.PublishedAPIRelated{{Identifier: "connection", Origin: v1alpha1.RelatedOriginService, Kind: "Secret", NameTemplate: "{{ .Object.metadata.name }}-connection"}},
			}},
			ServiceCluster: v1alpha1.Placement{ProviderConfigRef: v1alpha1.PlacementProviderConfigRef{Name: "service-cluster"}, Namespace: "agents"},
		},
	}
	for _, m := range mods {
		m(pa)
	}
	return pa
}

// policyData is the platform's policy with data.
func policyData(data map[string]any) map[string]any {
	return map[string]any{"apiVersion": policy.APIVersion, "kind": policy.Kind, "metadata": map[string]any{"name": policy.Name}, "data": data}
}

// platform is a world whose policy makes namespace kcp the platform's, with RootShard root.
func platform() *testworld.World {
	return testworld.New().Object(policyData(map[string]any{"platformNamespaces": []any{testworld.Namespace}})).
		Answer(policy.Requirement.Key()).Object(testworld.RootShard())
}

// keys lists the composed resource names, sorted.
func keys(r Result) []string {
	var out []string
	for _, o := range r.Desired.Objects() {
		out = append(out, string(o.Name))
	}
	slices.Sort(out)
	return out
}

// inServiceCluster observes every desired Object as provider-kubernetes applied it, and the
// agent's kubeconfig Secret as its Kubeconfig wrote it.
func inServiceCluster(t *testing.T, w *testworld.World) *testworld.World {
	t.Helper()
	r, errs := Compose(databases(), w.State())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	w.Exists(r.Desired).Secret("databases-syncagent-kubeconfig")
	for _, k := range w.State().ComposedNames() {
		w.Condition(k, "Ready", true, "Available", "")
	}
	return w
}

// kcpSide and serviceSide are what the XR composes before its agent can run.
var (
	kcpSide     = []string{"apiexport", "kubeconfig-syncagent", "syncagent-kcp-role"}
	serviceSide = []string{"placed-namespace", "publishedresource-database", "syncagent-clusterrole", "syncagent-clusterrolebinding", "syncagent-role", "syncagent-rolebinding", "syncagent-serviceaccount"}
	agent       = []string{"deployment-syncagent", "placed-secret-databases-syncagent-kubeconfig", "poddisruptionbudget-syncagent", "service-syncagent"}
)

func sorted(lists ...[]string) []string {
	out := slices.Concat(lists...)
	slices.Sort(out)
	return out
}

func TestCompose(t *testing.T) {
	cases := map[string]struct {
		reason string
		pa     *v1alpha1.PublishedAPI
		world  func() *testworld.World
		keys   []string
		// errs are substrings of the refusal; none when it composes.
		errs []string
		// inputs is a substring of InputsReady's message.
		inputs string
	}{
		"PolicyUnread": {
			reason: "Until Crossplane answers the policy nothing is composed: it decides whether the namespace may publish.",
			pa:     databases(),
			world:  func() *testworld.World { return testworld.New().Object(testworld.RootShard()) },
			inputs: "Reading the platform's policy",
		},
		"TenantNamespace": {
			reason: "A namespace the policy lists neither as the platform's nor in data.features.apiPublishing is refused naming the field and the fix.",
			pa:     databases(),
			world: func() *testworld.World {
				return testworld.New().Object(policyData(map[string]any{})).Answer(policy.Requirement.Key()).Object(testworld.RootShard())
			},
			errs: []string{"metadata.namespace", "may not publish APIs", "data.features.apiPublishing"},
		},
		"AllowedByFeature": {
			reason: "data.features.apiPublishing lets a namespace that is not the platform's publish.",
			pa:     databases(),
			world: func() *testworld.World {
				return testworld.New().Object(policyData(map[string]any{"features": map[string]any{"apiPublishing": []any{testworld.Namespace}}})).
					Answer(policy.Requirement.Key()).Object(testworld.RootShard())
			},
			keys: sorted(kcpSide, serviceSide),
		},
		"NoRootShard": {
			reason: "Without its RootShard nothing can be composed, and what exists is kept.",
			pa:     databases(),
			world: func() *testworld.World {
				return testworld.New().Object(policyData(map[string]any{"platformNamespaces": []any{testworld.Namespace}})).Answer(policy.Requirement.Key())
			},
			inputs: "RootShard root (spec.rootShard.name) does not exist",
		},
		"Fresh": {
			reason: "The export, the agent's role in kcp and its Kubeconfig, its RBAC and PublishedResources in the service cluster; no agent before its kubeconfig and RBAC exist.",
			pa:     databases(),
			world:  platform,
			keys:   sorted(kcpSide, serviceSide),
			inputs: "Waiting for Secret databases-syncagent-kubeconfig (written by Kubeconfig databases-syncagent); the agent's ClusterRole in namespace agents",
		},
		"NamespaceFirst": {
			reason: "The agent's namespace is created before what lives in it, and the agent waits for it.",
			pa:     databases(),
			world:  platform,
			keys:   sorted(kcpSide, serviceSide),
			inputs: "the agent's Namespace agents in the cluster ProviderConfig service-cluster reaches",
		},
		"Converged": {
			reason: "With its kubeconfig and RBAC there, the agent runs in the service cluster, with a copy of its kubeconfig.",
			pa:     databases(),
			world:  func() *testworld.World { return inServiceCluster(t, platform()) },
			keys:   sorted(kcpSide, serviceSide, agent),
			inputs: "Every Secret and ConfigMap the spec references exists.",
		},
		"KubeconfigGone": {
			reason: "A kubeconfig Secret gone (say, while its Kubeconfig is recreated) keeps the running agent and its copy as they are.",
			pa:     databases(),
			world: func() *testworld.World {
				w := inServiceCluster(t, platform())
				r, _ := Compose(databases(), w.State())
				w.Exists(r.Desired)
				return w.Drop("Secret", "databases-syncagent-kubeconfig")
			},
			keys:   sorted(kcpSide, serviceSide, agent),
			inputs: "Deployment kcp/databases-syncagent is kept unchanged meanwhile.",
		},
		"MovingTheAgent": {
			reason: "A running agent is not moved to another service cluster: its objects would be deleted where they run first.",
			pa: databases(func(pa *v1alpha1.PublishedAPI) {
				pa.Spec.ServiceCluster.ProviderConfigRef.Name = "elsewhere"
			}),
			world: func() *testworld.World {
				w := inServiceCluster(t, platform())
				r, _ := Compose(databases(), w.State())
				return w.Exists(r.Desired)
			},
			errs: []string{"spec.serviceCluster", "cannot move"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.pa, tc.world().State())
			if len(tc.errs) > 0 {
				if len(errs) == 0 {
					t.Fatalf("%s\nCompose(...): composed, want refused with %q", tc.reason, tc.errs)
				}
				for _, s := range tc.errs {
					if !strings.Contains(errs.ToAggregate().Error(), s) {
						t.Errorf("%s\nCompose(...): %v, want it to say %q", tc.reason, errs, s)
					}
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("%s\nCompose(...): %v", tc.reason, errs)
			}
			if diff := cmp.Diff(tc.keys, keys(r)); diff != "" {
				t.Errorf("%s\nCompose(...): composed resources: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.inputs != "" {
				i := slices.IndexFunc(r.Conditions, func(c condition.Condition) bool { return c.Type == "InputsReady" })
				if i < 0 || !strings.Contains(r.Conditions[i].Message, tc.inputs) {
					t.Errorf("%s\nCompose(...): conditions %v, want InputsReady to say %q", tc.reason, r.Conditions, tc.inputs)
				}
			}
		})
	}
}

func TestStatus(t *testing.T) {
	r, errs := Compose(databases(), platform().State())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := v1alpha1.PublishedAPIStatus{
		Phase: "Provisioning", Export: "root:providers:databases", AgentName: "syncagent-kcp-databases",
		PermissionClaims: []v1alpha1.APIPermissionClaim{{Resource: "events", Verbs: []string{"*"}}, {Resource: "namespaces", Verbs: []string{"*"}}, {Resource: "secrets", Verbs: []string{"*"}}},
	}
	if diff := cmp.Diff(want, r.Status); diff != "" {
		t.Errorf("Status says what teams bind and the claims they accept.\n-want, +got:\n%s", diff)
	}
	if !r.NotReady {
		t.Error("A PublishedAPI without its export and agent is not Ready")
	}
}

// TestAgentRunsInTheServiceCluster holds where each object lands: the agent and what it
// needs through the service cluster's config, kcp's objects through the RootShard's.
func TestAgentRunsInTheServiceCluster(t *testing.T) {
	w := inServiceCluster(t, platform())
	r, errs := Compose(databases(), w.State())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[string]string{}
	for _, o := range r.Desired.Objects() {
		u, ok := o.Resource.(*resource.Unstructured)
		if !ok || u.GetKind() != "Object" {
			continue
		}
		spec := u.Object["spec"].(map[string]any)
		got[string(o.Name)] = spec["providerConfigRef"].(map[string]any)["name"].(string)
	}
	for key, config := range got {
		want := "service-cluster"
		if key == "apiexport" || key == "syncagent-kcp-role" {
			want = "root-kcp-operator.root.providers"
		}
		if config != want {
			t.Errorf("Object %s acts through %s, want %s", key, config, want)
		}
	}
	if len(got) < len(serviceSide)+len(agent)-1+2 {
		t.Errorf("Objects composed: %v, want the kcp side, the service side and the placed agent", got)
	}
}

func TestPublishedSaysTheCRDIsMissing(t *testing.T) {
	w := platform()
	r, _ := Compose(databases(), w.State())
	w.Exists(r.Desired).Condition("publishedresource-database", "Synced", false, "ReconcileError",
		`cannot create object: no matches for kind "PublishedResource" in version "syncagent.kcp.io/v1alpha1"`)
	r, errs := Compose(databases(), w.State())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	i := slices.IndexFunc(r.Conditions, func(c condition.Condition) bool { return c.Type == TypePublished })
	want := "Publishing in namespace agents of the cluster ProviderConfig service-cluster reaches: databases-database: the service cluster has no PublishedResource CRD; install api-syncagent's"
	if i < 0 || r.Conditions[i].Status || !strings.Contains(r.Conditions[i].Message, want) {
		t.Errorf("A service cluster without api-syncagent's CRD is named, with the fix: conditions %v, want Published to say %q", r.Conditions, want)
	}
	if !r.NotReady {
		t.Error("A PublishedAPI whose resources are not published is not Ready")
	}
}
