package style

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/semver"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/kcpstandin"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// TestSupportMatrix holds docs/support.md's table to where each version is decided: what make
// builds and the end-to-end tests run (make/tools.mk, make/e2e-tools.mk, the stack's
// constants), the root go.mod, the function's default kcp tag, and crossplane.yaml's ranges,
// which Crossplane enforces. Each oldest tested version must be in its supported range.
func TestSupportMatrix(t *testing.T) {
	mk := makeVariables(t, "make/tools.mk", "make/e2e-tools.mk")
	meta := packageMeta(t)
	kcpTag := submatch(t, "functions/kcp/internal/kcpimage/kcpimage.go", `DefaultTag\s*=\s*"(v[^"]+)"`)
	agentTag := submatch(t, "functions/kcp/internal/names/publishedapi.go", `AgentImage\s*=\s*"ghcr.io/kcp-dev/api-syncagent:(v[^"]+)"`)

	// stack's constants name the packages the e2e pushes: they are make's pins.
	if diff := cmp.Diff([]string{mk["E2E_PROVIDER_KUBERNETES_OLDEST_VERSION"], mk["E2E_PROVIDER_KUBERNETES_VERSION"]},
		[]string{stack.ProviderKubernetesOldestVersion, stack.ProviderKubernetesVersion}); diff != "" {
		t.Errorf("test/e2e/stack's provider-kubernetes versions differ from make/e2e-tools.mk's (-make +stack):\n%s", diff)
	}
	if kcpstandin.KCPVersion != kcpTag {
		t.Errorf("the kcp stand-in loads kcp %s's CRDs, the function defaults to kcp %s", kcpstandin.KCPVersion, kcpTag)
	}

	certManagerOldest := regexp.MustCompile(`^cert-manager >= (v[0-9.]+) `).FindStringSubmatch(meta.Metadata.Annotations[requiresAnnotation])
	if certManagerOldest == nil {
		t.Fatalf("crossplane.yaml's %s does not start with cert-manager >= <version>: %q", requiresAnnotation, meta.Metadata.Annotations[requiresAnnotation])
	}
	providerOldest := ""
	for _, d := range meta.Spec.DependsOn {
		if d.Package == stack.ProviderKubernetesRepository {
			providerOldest, _, _ = strings.Cut(strings.TrimPrefix(d.Version, ">="), " ")
		}
	}
	if providerOldest == "" {
		t.Fatalf("crossplane.yaml's dependsOn has no range >=<version> for %s", stack.ProviderKubernetesRepository)
	}
	k8sMinor := semver.MajorMinor(mk["E2E_KUBERNETES_VERSION"])
	want := []supportRow{
		{"Crossplane", strings.TrimPrefix(meta.Spec.Crossplane.Version, ">="), []string{mk["CROSSPLANE_CORE_VERSION"], mk["CROSSPLANE_CORE_NEXT_VERSION"]}},
		{"cert-manager", certManagerOldest[1], []string{mk["E2E_CERT_MANAGER_OLDEST_VERSION"], mk["E2E_CERT_MANAGER_VERSION"]}},
		{"provider-kubernetes", providerOldest, []string{mk["E2E_PROVIDER_KUBERNETES_OLDEST_VERSION"], mk["E2E_PROVIDER_KUBERNETES_VERSION"]}},
		// Gateway API's oldest is the docs' own decision (TLSRoute v1's first release).
		{"Gateway API", "", []string{goModVersion(t, "sigs.k8s.io/gateway-api")}},
		{"Kubernetes", k8sMinor, []string{mk["E2E_KUBERNETES_VERSION"], mk["E2E_KUBERNETES_NEXT_VERSION"]}},
		{"kcp", kcpTag, []string{kcpTag}},
		{"api-syncagent (for PublishedAPI)", agentTag, []string{mk["E2E_API_SYNCAGENT_VERSION"]}},
		{"prometheus-operator (optional)", semver.MajorMinor(goModVersion(t, "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring")),
			[]string{goModVersion(t, "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring")}},
	}
	got := supportTable(t)
	for i := range want {
		if want[i].oldest == "" && i < len(got) && got[i].name == want[i].name {
			want[i].oldest = got[i].oldest
		}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(supportRow{})); diff != "" {
		t.Errorf("docs/support.md's table differs from what make, go.mod and crossplane.yaml decide (-decided +docs):\n%s", diff)
	}
	for _, r := range got {
		if semver.Compare(r.tested[0], r.oldest) < 0 {
			t.Errorf("%s: the oldest tested version %s is older than the oldest supported %s", r.name, r.tested[0], r.oldest)
		}
	}

	// Every XRD's spec.image.tag names the default it states.
	if !strings.Contains(string(readFile(t, "apis/rootshards/definition.yaml")), "Defaults to "+kcpTag+", the kcp version") {
		t.Errorf("apis/v1alpha1's ImageSpec.Tag does not say it defaults to %s (kcpimage.DefaultTag): change its comment and run make generate", kcpTag)
	}

	// What the registry shows: the tested versions, as the table gives them.
	wantTested := fmt.Sprintf("Crossplane %s, Kubernetes %s, cert-manager %s, provider-kubernetes %s, kcp %s",
		strings.Join(want[0].tested, " and "), strings.Join(want[4].tested, " and "), strings.Join(want[1].tested, " and "),
		strings.Join(want[2].tested, " and "), kcpTag)
	if got := meta.Metadata.Annotations[testedAnnotation]; got != wantTested {
		t.Errorf("crossplane.yaml's %s is %q, want %q", testedAnnotation, got, wantTested)
	}
}

const (
	requiresAnnotation = "configuration-kcp.crossplane.io/requires"
	testedAnnotation   = "configuration-kcp.crossplane.io/tested-with"
)

// supportRow is a row of docs/support.md's table: a dependency, its oldest supported version
// and the versions tested, oldest first.
type supportRow struct {
	name, oldest string
	tested       []string
}

// supportTable reads the first table of docs/support.md.
func supportTable(t *testing.T) []supportRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "support.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []supportRow
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| Dependency | Oldest supported | Tested |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			t.Fatalf("docs/support.md: a row with fewer than 3 cells: %q", line)
		}
		r := supportRow{name: strings.TrimSpace(cells[0]), oldest: strings.TrimSpace(cells[1])}
		for v := range strings.SplitSeq(cells[2], ",") {
			r.tested = append(r.tested, strings.TrimSpace(v))
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("docs/support.md has no table headed | Dependency | Oldest supported | Tested |")
	}
	return rows
}

// makeVariables reads the NAME := value lines of makefiles.
func makeVariables(t *testing.T, files ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	assign := regexp.MustCompile(`(?m)^([A-Z0-9_]+)\s*:=\s*(v\S+)\s*$`)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range assign.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = m[2]
		}
	}
	return out
}

// goModVersion is the version the root go.mod requires of module.
func goModVersion(t *testing.T, module string) string {
	t.Helper()
	return submatch(t, "go.mod", `(?m)^\s+`+regexp.QuoteMeta(module)+` (v\S+)`)
}

// readFile reads a file of the repository.
func readFile(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// submatch is the first group of re in a file of the repository.
func submatch(t *testing.T, file, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindSubmatch(readFile(t, file))
	if m == nil {
		t.Fatalf("%s: nothing matches %s", file, re)
	}
	return string(m[1])
}

// packageMeta is what crossplane.yaml says of the versions it needs.
func packageMeta(t *testing.T) (meta struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Crossplane struct {
			Version string `json:"version"`
		} `json:"crossplane"`
		DependsOn []struct {
			Package string `json:"package"`
			Version string `json:"version"`
		} `json:"dependsOn"`
	} `json:"spec"`
}) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "crossplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	return meta
}
