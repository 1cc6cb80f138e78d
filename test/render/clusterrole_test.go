package render

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/gomod"
)

// composingVerbs are what Crossplane does to a composed resource: watch and list it (realtime
// composition), get it, create and patch it (server-side apply), update its metadata and
// delete it when the function stops returning it.
var composingVerbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}

// xrGroup is the API group of configuration-kcp's own XRs, which a KcpInstallation composes:
// Crossplane's RBAC manager grants Crossplane every type an installed XRD defines.
const xrGroup = "kcp.crossplane.io"

// groupResource is an API group and a resource, "group/resource" ("/secrets" for the core
// group).
type groupResource string

func newGroupResource(group, resource string) groupResource {
	return groupResource(group + "/" + resource)
}

// TestClusterRoleIsTheLeastThatComposes holds install/clusterrole.yaml to what the golden
// renders compose, rule by rule: every kind any example composes is granted, by Crossplane's
// own ClusterRole (as the e2e installs it, from Crossplane's Helm chart) or by ours, with the
// verbs composition needs; and every resource our ClusterRole grants is composed by some
// example and not already granted by Crossplane's role, with exactly those verbs, no
// wildcards and no resource names. The e2e then runs Crossplane with exactly these two roles.
func TestClusterRoleIsTheLeastThatComposes(t *testing.T) {
	composed := composedResources(t)
	crossplane := clusterRoleRules(t, filepath.Join("..", "e2e", "stack", "manifests", "crossplane-rbac.yaml"))
	ours := clusterRoleRules(t, filepath.Join("..", "..", "install", "clusterrole.yaml"))

	providers := providerGroups(t)
	for _, gr := range slices.Sorted(maps.Keys(composed)) {
		if strings.HasPrefix(string(gr), xrGroup+"/") {
			continue
		}
		if group, _, _ := strings.Cut(string(gr), "/"); providers[group] {
			// A kind of a provider package this Configuration depends on: the RBAC manager's
			// crossplane:provider:<revision>:aggregate-to-edit role grants Crossplane every
			// verb on every kind the provider defines.
			continue
		}
		if !grants(crossplane, gr, composingVerbs) && !grants(ours, gr, composingVerbs) {
			t.Errorf("examples %v compose %s, which neither Crossplane's ClusterRole nor install/clusterrole.yaml grants with verbs %v: add a rule",
				composed[gr], gr, composingVerbs)
		}
	}
	for i, r := range ours {
		if readOnly(r) {
			continue
		}
		if !slices.Equal(slices.Sorted(slices.Values(r.Verbs)), composingVerbs) {
			t.Errorf("install/clusterrole.yaml rule %d: verbs %v, want exactly %v", i, r.Verbs, composingVerbs)
		}
		if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
			t.Errorf("install/clusterrole.yaml rule %d: resourceNames or nonResourceURLs are never needed to compose", i)
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				gr := newGroupResource(g, res)
				switch {
				case g == "*" || res == "*":
					t.Errorf("install/clusterrole.yaml rule %d: wildcard %s grants more than configuration-kcp composes", i, gr)
				case len(composed[gr]) == 0:
					t.Errorf("install/clusterrole.yaml rule %d grants %s, which no example composes: remove it", i, gr)
				case grants(crossplane, gr, composingVerbs):
					t.Errorf("install/clusterrole.yaml rule %d grants %s, which Crossplane's own ClusterRole already grants: remove it", i, gr)
				}
			}
		}
	}
}

// readResources are what the function reads and Crossplane composes none of: a Tenant reads
// the ResourceQuotas of its team's namespace before it reads the team's XRs.
var readResources = []groupResource{"/resourcequotas"}

// readVerbs are what reading a required resource takes: get and list it, and watch it for
// Crossplane's tracking of required resources.
var readVerbs = []string{"get", "list", "watch"}

// readOnly reports whether a rule of install/clusterrole.yaml grants exactly the reading of
// resources in readResources, and nothing else.
func readOnly(r rbacv1.PolicyRule) bool {
	if !slices.Equal(slices.Sorted(slices.Values(r.Verbs)), readVerbs) || len(r.ResourceNames) > 0 {
		return false
	}
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			if !slices.Contains(readResources, newGroupResource(g, res)) {
				return false
			}
		}
	}
	return true
}

// providerGroups are the API groups of the provider packages crossplane.yaml depends on, read
// from the CRDs of the pinned provider module: provider-kubernetes.
func providerGroups(t *testing.T) map[string]bool {
	t.Helper()
	meta, err := os.ReadFile(filepath.Join(repoRoot, "crossplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(meta, []byte("kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-kubernetes\n")) {
		t.Fatalf("crossplane.yaml does not depend on provider-kubernetes, whose kinds the examples compose")
	}
	dir, err := gomod.Dir(filepath.Join(repoRoot, "test", "e2e", "tools", "provider-kubernetes"), "github.com/crossplane-contrib/provider-kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	crds, err := filepath.Glob(filepath.Join(dir, "package", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in %s: %v", dir, err)
	}
	out := map[string]bool{}
	for _, f := range crds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatal(err)
		}
		out[crd.Spec.Group] = true
	}
	return out
}

// composedResources maps every resource the golden renders compose to the examples composing
// it.
func composedResources(t *testing.T) map[groupResource][]string {
	t.Helper()
	goldens, err := filepath.Glob(filepath.Join(goldenDir, "*", "converged.yaml"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden renders in %s: %v", goldenDir, err)
	}
	out := map[groupResource][]string{}
	for _, g := range goldens {
		example := filepath.Base(filepath.Dir(g))
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(b, []byte("\n---\n")) {
			var o struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(doc, &o); err != nil {
				t.Fatal(err)
			}
			if o.Metadata.Annotations["crossplane.io/composition-resource-name"] == "" {
				continue // An XR, or something the example applies itself.
			}
			group, _, _ := strings.Cut(o.APIVersion, "/")
			if !strings.Contains(o.APIVersion, "/") {
				group = "" // The core group: apiVersion v1.
			}
			gr := newGroupResource(group, plural(o.Kind))
			if !slices.Contains(out[gr], example) {
				out[gr] = append(out[gr], example)
			}
		}
	}
	return out
}

// plural is the resource name of a kind, as the API server names the kinds composed here.
func plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y"):
		return strings.TrimSuffix(k, "y") + "ies"
	case strings.HasSuffix(k, "s"):
		return k + "es"
	}
	return k + "s"
}

// clusterRoleRules reads the rules of every ClusterRole in a manifest file.
func clusterRoleRules(t *testing.T, path string) []rbacv1.PolicyRule {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []rbacv1.PolicyRule
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &role); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if role.Kind == "ClusterRole" {
			out = append(out, role.Rules...)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no ClusterRole rules", path)
	}
	return out
}

// grants reports whether the rules together allow every verb on a resource.
func grants(rules []rbacv1.PolicyRule, gr groupResource, verbs []string) bool {
	group, resource, _ := strings.Cut(string(gr), "/")
	for _, v := range verbs {
		allowed := false
		for _, r := range rules {
			if matches(r.APIGroups, group) && matches(r.Resources, resource) && matches(r.Verbs, v) && len(r.ResourceNames) == 0 {
				allowed = true
				break
			}
		}
		if !allowed {
			return false
		}
	}
	return true
}

func matches(list []string, s string) bool {
	return slices.Contains(list, s) || slices.Contains(list, "*")
}
