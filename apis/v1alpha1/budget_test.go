package v1alpha1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestXRDSchemaBudget holds every XRD's schema under a budget: the JSON bytes of each
// version's openAPIV3Schema in apis/<plural>/definition.yaml (compact, as encoding/json writes
// it without HTML escaping). Crossplane creates a CRD of about that size for every XRD, two
// for one offering a claim, and the API server pays for each (docs/performance.md, "What the
// CRDs cost the API server": each CRD with a KcpInstallation's 255 KB schema took about
// 22 MiB of the API server's heap and 1.2 to 6.7 s to Established on a loaded 2-core machine;
// installing the package once hit 60 s timeouts writing them).
//
// Each budget is the size when it was last set plus about 5%, rounded up to a kilobyte: room
// for a field or two, not for another copy of a component. To change one deliberately, run
// `go test ./apis/v1alpha1 -run TestXRDSchemaBudget -v`, which logs every XRD's size, its
// largest subtrees and the subschemas it repeats, and set the budget to the new size plus 5%
// in the same commit as the change that needs it, saying why in its reason. The test also
// fails when a schema shrinks more than 10% under its budget, so that what a cut saves is not
// quietly spent again: lower the budget to the figure the failure gives.
func TestXRDSchemaBudget(t *testing.T) {
	cases := map[string]struct {
		reason string
		budget int
	}{
		"cacheservers/v1alpha1": {
			reason: "kcp-operator's CacheServer spec, with the pod template overrides (volumes, affinity) as in kcp-operator; 42,000 since the pod's user and groups (issue 57; was 41,000).",
			budget: 42_000,
		},
		"certificatesets/v1alpha1": {
			reason: "Internal: the certificates a RootShard or Shard composes.",
			budget: 4_000,
		},
		"claimedkcpinstallations/v1alpha1": {
			reason: "The whole KcpInstallation spec and status again, for claims; Crossplane makes it two CRDs (XR and claim). k8s.io/api v0.37 added bindMountOptions to every volume mount (was 225,000); 244,000 since etcd.embedded and a managed etcd's restore, 249,000 since the pods' user and groups in each extra (issue 57).",
			budget: 249_000,
		},
		"frontproxies/v1alpha1": {
			reason: "kcp-operator's FrontProxy spec; 51,000 since the pod's user and groups (issue 57; was 50,000).",
			budget: 51_000,
		},
		"kcpinstallations/v1alpha1": {
			reason: "Every component of an installation: scheduling nine times and extra six times make three quarters of it (was 268,000 before extra.volumes offered only the types an installation may mount; k8s.io/api v0.37 added bindMountOptions to the six extra.volumeMounts: was 225,000); 244,000 since etcd.embedded and a managed etcd's restore (issue 57), whose descriptions are already short; 249,000 since the pods' user and groups in each extra (issue 57).",
			budget: 249_000,
		},
		"kubeconfigs/v1alpha1": {
			reason: "kcp-operator's Kubeconfig spec.",
			budget: 10_000,
		},
		"rootshards/v1alpha1": {
			reason: "kcp-operator's RootShard spec, the largest of the per-kind XRs, with home workspaces, batteries, profiling and the audit log (issue 42; was 90,000). k8s.io/api v0.37 added file owners to the volumes, emptyDir.mode and bindMountOptions (was 94,000).",
			budget: 99_000,
		},
		"shards/v1alpha1": {
			reason: "kcp-operator's Shard spec, with home workspaces, batteries, profiling, the audit log and encryption at rest (issue 42; was 52,000). k8s.io/api v0.37 added file owners to the volumes, emptyDir.mode and bindMountOptions (was 58,000).",
			budget: 61_000,
		},
		"publishedapis/v1alpha1": {
			reason: "An APIExport, the resources it publishes (projection, related objects) and its agent.",
			budget: 11_000,
		},
		"tenantrequests/v1alpha1": {
			reason: "Internal: a team's XR as its Tenant reads it, the XR itself kept opaque.",
			budget: 3_000,
		},
		"tenants/v1alpha1": {
			reason: "A team's grants and limits, and the APIExports it may bind with their claims (spec.apis, 2.2 KB).",
			budget: 12_000,
		},
		"virtualworkspaces/v1alpha1": {
			reason: "kcp-operator's VirtualWorkspace spec, with a Service's load balancer settings and a disruption budget, as every kind (issue 57; was 61,000).",
			budget: 62_000,
		},
		"workspaces/v1alpha1": {
			reason: "A workspace, its role bindings and its API bindings (spec.apiBindings, 2.5 KB).",
			budget: 8_000,
		},
	}

	schemas := xrdSchemas(t, filepath.Join("..", "*", "definition.yaml"))
	if diff := cmp.Diff(slices.Sorted(maps.Keys(cases)), slices.Sorted(maps.Keys(schemas))); diff != "" {
		t.Errorf("every XRD version has one budget, and every budget an XRD version: -budgets, +XRD versions in apis/*/definition.yaml:\n%s", diff)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x, ok := schemas[name]
			if !ok {
				t.Skip("no such XRD version")
			}
			w := weigh(x.schema)
			if testing.Verbose() {
				t.Logf("%s %s: %d bytes (budget %d)\nlargest subtrees: %s\nrepeated: %s", x.name, x.version, w.bytes, tc.budget, w.largest(3), w.repeated(3))
			}
			if w.bytes > tc.budget {
				t.Errorf("%s\nXRD %s (%s), version %s: its openAPIV3Schema is %d bytes of JSON, over its budget of %d bytes by %d.\n"+
					"Its three largest subtrees: %s.\nSubschemas it repeats: %s.\n"+
					"Every byte is paid again by each CRD Crossplane makes of it. Make the schema smaller, or raise the budget "+
					"deliberately (see TestXRDSchemaBudget's comment).",
					tc.reason, x.name, x.file, x.version, w.bytes, tc.budget, w.bytes-tc.budget, w.largest(3), w.repeated(3))
			}
			if roundUp(w.bytes*110/100) < tc.budget {
				t.Errorf("%s\nXRD %s (%s), version %s: its openAPIV3Schema is %d bytes of JSON, more than 10%% under its budget of %d bytes: "+
					"lower the budget to %d so the saving stays saved.", tc.reason, x.name, x.file, x.version, w.bytes, tc.budget, roundUp(w.bytes*105/100))
			}
		})
	}
}

// roundUp rounds n up to a multiple of 1,000.
func roundUp(n int) int { return (n + 999) / 1000 * 1000 }

// xrdSchema is the schema of one version of an XRD, and the kinds the XRD names.
type xrdSchema struct {
	name, file, version string
	// kind is the XR's kind; claimKind its claim's, if the XRD offers claims.
	kind, claimKind string
	schema          *apiextensionsv1.JSONSchemaProps
}

// xrdSchemas reads the openAPIV3Schema of every version of the XRDs matching glob, keyed by
// <plural>/<version> (the XRD's directory and the version's name).
func xrdSchemas(t *testing.T, glob string) map[string]xrdSchema {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no XRDs match %s: %v", glob, err)
	}
	out := map[string]xrdSchema{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var xrd struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Names      struct{ Kind string }  `json:"names"`
				ClaimNames *struct{ Kind string } `json:"claimNames"`
				Versions   []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema *apiextensionsv1.JSONSchemaProps `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(raw, &xrd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		claimKind := ""
		if c := xrd.Spec.ClaimNames; c != nil {
			claimKind = c.Kind
		}
		for _, v := range xrd.Spec.Versions {
			if v.Schema.OpenAPIV3Schema != nil {
				plural := filepath.Base(filepath.Dir(f))
				out[plural+"/"+v.Name] = xrdSchema{
					name: xrd.Metadata.Name, file: "apis/" + plural + "/definition.yaml", version: v.Name,
					kind: xrd.Spec.Names.Kind, claimKind: claimKind, schema: v.Schema.OpenAPIV3Schema,
				}
			}
		}
	}
	return out
}

// weight is a schema's size and where it comes from.
type weight struct {
	// bytes is the schema's size as compact JSON.
	bytes int
	// nodes are every subschema (properties, items and additionalProperties, at every
	// depth), by path: spec.shards[].extra, spec.nodeSelector{}.
	nodes map[string]node
}

// node is one subschema.
type node struct {
	depth int
	json  string
	// shape is json without the subschema's own description: the same type under fields
	// described differently (every component's scheduling) has the same shape.
	shape string
}

// weigh measures s and every subschema of it.
func weigh(s *apiextensionsv1.JSONSchemaProps) weight {
	w := weight{nodes: map[string]node{}}
	w.bytes = len(compact(s))
	var walk func(path string, depth int, s *apiextensionsv1.JSONSchemaProps)
	walk = func(path string, depth int, s *apiextensionsv1.JSONSchemaProps) {
		if path != "" {
			bare := *s
			bare.Description = ""
			w.nodes[path] = node{depth: depth, json: compact(s), shape: compact(&bare)}
		}
		for k, p := range s.Properties {
			walk(strings.TrimPrefix(path+"."+k, "."), depth+1, &p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(path+"[]", depth, s.Items.Schema)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(path+"{}", depth, s.AdditionalProperties.Schema)
		}
	}
	walk("", 0, s)
	return w
}

// largest names the n largest fields of spec and status (spec.shards, status.components),
// with their bytes and share of the schema.
func (w weight) largest(n int) string {
	var fields []string
	for path, nd := range w.nodes {
		if nd.depth == 2 && !strings.HasSuffix(path, "[]") && !strings.HasSuffix(path, "{}") {
			fields = append(fields, path)
		}
	}
	slices.SortFunc(fields, func(a, b string) int {
		if d := len(w.nodes[b].json) - len(w.nodes[a].json); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, f := range fields[:min(n, len(fields))] {
		out = append(out, fmt.Sprintf("%s %d bytes (%d%%)", f, len(w.nodes[f].json), 100*len(w.nodes[f].json)/w.bytes))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// repeated names the n subschemas of at least 1,000 bytes that the schema holds more than
// once (the same shape, whatever their own descriptions), by the bytes all their copies
// weigh, with the paths of their copies. A repeated subschema inside a larger repeated one is
// left out (every copy of scheduling.affinity is inside a copy of scheduling).
func (w weight) repeated(n int) string {
	byShape := map[string][]string{}
	for path, nd := range w.nodes {
		if len(nd.shape) >= 1000 {
			byShape[nd.shape] = append(byShape[nd.shape], path)
		}
	}
	type group struct {
		size  int // of the largest copy
		paths []string
	}
	var groups []group
	for _, paths := range byShape {
		if len(paths) > 1 {
			slices.Sort(paths)
			g := group{paths: paths}
			for _, p := range paths {
				g.size = max(g.size, len(w.nodes[p].json))
			}
			groups = append(groups, g)
		}
	}
	inside := func(g, h group) bool { // every copy of g lies in a copy of h
		for _, p := range g.paths {
			if !slices.ContainsFunc(h.paths, func(q string) bool { return strings.HasPrefix(p, q+".") || strings.HasPrefix(p, q+"[") }) {
				return false
			}
		}
		return true
	}
	var top []group
	for _, g := range groups {
		if !slices.ContainsFunc(groups, func(h group) bool { return h.size > g.size && inside(g, h) }) {
			top = append(top, g)
		}
	}
	slices.SortFunc(top, func(a, b group) int {
		if d := b.size*len(b.paths) - a.size*len(a.paths); d != 0 {
			return d
		}
		return strings.Compare(a.paths[0], b.paths[0])
	})
	var out []string
	for _, g := range top[:min(n, len(top))] {
		out = append(out, fmt.Sprintf("%d copies of up to %d bytes, %d bytes (%d%%): %s",
			len(g.paths), g.size, g.size*len(g.paths), 100*g.size*len(g.paths)/w.bytes, strings.Join(g.paths, ", ")))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}

// compact is s as compact JSON without HTML escaping (a CEL rule's && stays two bytes).
func compact(s *apiextensionsv1.JSONSchemaProps) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
