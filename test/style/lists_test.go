package style

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/scenarios"
	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

// The lists in prose that repeat the code: each is held to the code here, so that a new kind
// or package cannot be left out of them.

// userKinds are the kinds a user reads about: every XR kind, a claimed kind under its claim's
// name.
func userKinds() []string {
	var out []string
	for _, k := range v1alpha1.Kinds {
		if claim, ok := v1alpha1.ClaimKinds[k]; ok {
			k = claim
		}
		out = append(out, k)
	}
	return out
}

// TestReadmesNameEveryKind holds the README and the package's readme (crossplane.yaml's
// meta.crossplane.io/readme, which the package registry shows) to v1alpha1.Kinds.
func TestReadmesNameEveryKind(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "crossplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"README.md": string(readme),
		"crossplane.yaml's meta.crossplane.io/readme": meta.Metadata.Annotations["meta.crossplane.io/readme"],
	}
	for name, text := range docs {
		for _, k := range userKinds() {
			if !strings.Contains(text, "`"+k+"`") {
				t.Errorf("%s does not name the kind %s: say what it is for", name, k)
			}
		}
	}
}

// TestReadmeLayoutNamesEveryPackage holds the README's layout to the function's packages:
// every directory of Go files under functions/kcp/internal is named there.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	blocks, err := markdown.Blocks(filepath.Join(root, "README.md"), "")
	if err != nil {
		t.Fatal(err)
	}
	var layout string
	for _, b := range blocks {
		if strings.Contains(b, "functions/kcp/") {
			layout = b
		}
	}
	if layout == "" {
		t.Fatal("README.md has no layout block naming functions/kcp/")
	}
	internal := filepath.Join(root, "functions", "kcp", "internal")
	err = filepath.WalkDir(internal, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == internal || d.Name() == "testdata" {
			return err
		}
		goFiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if len(goFiles) > 0 && !strings.Contains(layout, d.Name()+"/") {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("README.md's layout does not name %s/: add a line saying what it holds", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestE2EReadmeShowsThePlan holds test/e2e/README.md to the scenarios TestKCP runs: its
// table is scenarios.PlanTable, and its prose describes every scenario by name.
func TestE2EReadmeShowsThePlan(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "test", "e2e", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	const begin, end = "<!-- plan: begin (scenarios.PlanTable) -->\n", "<!-- plan: end -->"
	_, rest, ok := strings.Cut(readme, begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("test/e2e/README.md has no %q ... %q block: add one holding:\n%s", strings.TrimSpace(begin), end, scenarios.PlanTable())
	}
	if want := scenarios.PlanTable(); table != want {
		t.Errorf("test/e2e/README.md's plan table is not test/e2e/scenarios/plan.go's Plan; replace it with:\n%s", want)
	}
	for _, s := range scenarios.Plan {
		if !strings.Contains(readme, "**"+s.Name+"**") {
			t.Errorf("test/e2e/README.md does not describe scenario %s (**%s**)", s.Name, s.Name)
		}
	}
}
