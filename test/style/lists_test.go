package style

import (
	"errors"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// internalDir is where the function's packages are.
var internalDir = filepath.Join(root, "functions", "kcp", "internal")

// TestGroupDocsNameEverySubpackage holds the comment of each directory under
// functions/kcp/internal that only groups packages (doc.go is its only Go file: parts,
// compose, core, kinds) to the packages below it: its list names each of them, and nothing
// else, as the first word of an item.
func TestGroupDocsNameEverySubpackage(t *testing.T) {
	groups := 0
	err := filepath.WalkDir(internalDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() == "testdata" {
			return err
		}
		goFiles := nonTestGoFiles(t, path)
		if len(goFiles) != 1 || goFiles[0] != "doc.go" {
			return nil
		}
		groups++
		rel, _ := filepath.Rel(root, path)
		doc := filepath.Join(rel, "doc.go")
		listed, err := listedPackages(filepath.Join(path, "doc.go"))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			return nil
		}
		if len(listed) == 0 {
			t.Errorf("%s has no list of the packages in %s: end its comment with a list, one item per package: //   - <package> <what it holds>", doc, rel)
			return nil
		}
		var subpackages []string
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() && e.Name() != "testdata" && len(nonTestGoFiles(t, filepath.Join(path, e.Name()))) > 0 {
				subpackages = append(subpackages, e.Name())
			}
		}
		for _, p := range subpackages {
			if !slices.Contains(listed, p) {
				t.Errorf("%s does not name package %s/: add //   - %s <what it holds> to the list in its comment", doc, filepath.Join(rel, p), p)
			}
		}
		for _, p := range listed {
			if !slices.Contains(subpackages, p) {
				t.Errorf("%s names %s, which is no package in %s/: remove its item from the list (or correct its first word)", doc, p, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if groups == 0 {
		t.Fatalf("no directory under %s holds only doc.go: is this test looking in the wrong place?", internalDir)
	}
}

// nonTestGoFiles are the names of the Go files in dir that are not tests.
func nonTestGoFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			out = append(out, filepath.Base(f))
		}
	}
	return out
}

// listedPackages reads the package comment of a Go file and returns the first word of each
// item of its lists, as go doc shows them: the packages a grouping directory names.
func listedPackages(file string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if f.Doc == nil {
		return nil, errors.New("no package comment")
	}
	return listedWords(f.Doc.Text()), nil
}

// listedWords is the first word of each list item of a doc comment's text.
func listedWords(text string) []string {
	var p comment.Parser
	var out []string
	for _, b := range p.Parse(text).Content {
		list, ok := b.(*comment.List)
		if !ok {
			continue
		}
		for _, item := range list.Items {
			if len(item.Content) == 0 {
				continue
			}
			para, ok := item.Content[0].(*comment.Paragraph)
			if !ok || len(para.Text) == 0 {
				continue
			}
			if plain, ok := para.Text[0].(comment.Plain); ok {
				if word, _, _ := strings.Cut(strings.TrimSpace(string(plain)), " "); word != "" {
					out = append(out, word)
				}
			}
		}
	}
	return out
}

func TestListedWords(t *testing.T) {
	cases := map[string]struct {
		text string
		want []string
	}{
		"NoList": {
			text: "Package parts groups renderers: pki renders certificates.\n",
		},
		"Items": {
			text: "Package parts groups renderers. Its packages:\n\n  - pki renders Certificates\n  - workload renders Deployments,\n    Services and flags\n\nThis directory holds only this comment.\n",
			want: []string{"pki", "workload"},
		},
		"ItemsWithoutBlankLineBefore": {
			text: "Its packages:\n  - pki renders Certificates\n  - proxy renders kcp-front-proxy\n",
			want: []string{"pki", "proxy"},
		},
		"NumberedAndTwoLists": {
			text: "First:\n\n 1. builder composes\n\nThen:\n\n  - inputs knows\n",
			want: []string{"builder", "inputs"},
		},
		"IndentedCodeIsNoList": {
			text: "An example:\n\n\tpki renders\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, listedWords(tc.text)); diff != "" {
				t.Errorf("listedWords (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadmeNamesEveryScenario holds the README's table of TestKCP's scenarios to
// test/e2e/scenarios/plan.go's Plan: one row per scenario, in Plan's order, each saying what
// the scenario proves.
func TestReadmeNamesEveryScenario(t *testing.T) {
	const begin, end = "<!-- scenarios: begin (scenarios.Plan) -->\n", "<!-- scenarios: end -->"
	_, rest, ok := strings.Cut(string(readFile(t, "README.md")), begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("README.md has no %q ... %q block: add one holding a table | Scenario | What it proves | with a row per scenario of test/e2e/scenarios/plan.go's Plan",
			strings.TrimSpace(begin), end)
	}
	rows := tableRows(table)
	var got, want []string
	for _, r := range rows {
		got = append(got, r[0])
		if len(r) < 2 || r[1] == "" {
			t.Errorf("README.md: the scenario %s's row does not say what it proves", r[0])
		}
	}
	for _, s := range scenarios.Plan {
		want = append(want, s.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README.md's table of scenarios is not test/e2e/scenarios/plan.go's Plan (-plan +README): "+
			"add a row | <scenario> | <what it proves> | for each scenario it lacks, remove those Plan does not have, in Plan's order:\n%s", diff)
	}
}

// tableRows are the rows of the Markdown tables in text, header and separator rows left out,
// each a list of its trimmed cells. A cell's link or code is its text: [a](b) is a, `a` is a.
func tableRows(text string) [][]string {
	link := regexp.MustCompile(`^\[([^\]]*)\]\([^)]*\)$`)
	var rows [][]string
	header := true
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			header = true
			continue
		}
		if header || strings.HasPrefix(line, "|---") {
			header = false
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			c = strings.TrimSpace(c)
			if m := link.FindStringSubmatch(c); m != nil {
				c = m[1]
			}
			cells = append(cells, strings.Trim(c, "`"))
		}
		rows = append(rows, cells)
	}
	return rows
}

func TestTableRows(t *testing.T) {
	text := "Intro.\n\n| Package | What | Run by |\n|---|---|---|\n| [e2e/stack](e2e/stack) | the stack | `make e2e` |\n| `pkg` | packages | `make package-test` |\n\nMore.\n\n| Module | What |\n|---|---|\n| tools | tools |\n"
	want := [][]string{{"e2e/stack", "the stack", "make e2e"}, {"pkg", "packages", "make package-test"}, {"tools", "tools"}}
	if diff := cmp.Diff(want, tableRows(text)); diff != "" {
		t.Errorf("tableRows (-want +got):\n%s", diff)
	}
}

// TestTestReadmeMapsEveryPackage holds test/README.md to what is under test/: its first
// table names every Go package of the root module and of the test/tools module, its second
// every other module (each pins a tool), by path from test/; and every make target it names
// exists.
func TestTestReadmeMapsEveryPackage(t *testing.T) {
	testDir := filepath.Join(root, "test")
	var packages, modules []string
	err := filepath.WalkDir(testDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && path != testDir) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(testDir, path)
		rel = filepath.ToSlash(rel)
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
			modules = append(modules, rel)
		}
		// A package is one of the root module's or test/tools': no other go.mod between.
		if files, _ := filepath.Glob(filepath.Join(path, "*.go")); len(files) > 0 && ownModule(testDir, path) {
			packages = append(packages, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	readme := string(readFile(t, "test/README.md"))
	var listedPackages, listedModules []string
	for _, r := range tableRows(readme) {
		if len(r) < 3 || r[1] == "" || r[2] == "" {
			t.Errorf("test/README.md: the row of %s does not say what it is for and what runs it", r[0])
		}
		if slices.Contains(modules, r[0]) {
			listedModules = append(listedModules, r[0])
		} else {
			listedPackages = append(listedPackages, r[0])
		}
	}
	for _, c := range []struct {
		name         string
		have, listed []string
	}{{"package", packages, listedPackages}, {"module", modules, listedModules}} {
		name, have, listed := c.name, c.have, c.listed
		for _, p := range have {
			if !slices.Contains(listed, p) {
				t.Errorf("test/README.md does not map the %s test/%s: add a row | [%s](%s) | <what it is for> | <what runs it> |", name, p, p, p)
			}
		}
		for _, p := range listed {
			if !slices.Contains(have, p) {
				t.Errorf("test/README.md maps %s, which is no %s under test/: remove its row", p, name)
			}
		}
	}

	targets := makeTargets(t)
	for _, m := range regexp.MustCompile("`make ([a-z0-9-]+)").FindAllStringSubmatch(readme, -1) {
		if !targets[m[1]] {
			t.Errorf("test/README.md names make %s, which the Makefile has no target for", m[1])
		}
	}
}

// ownModule reports whether the package in dir belongs to the root module or to test/tools:
// no go.mod lies between them and dir, but test/tools' own.
func ownModule(testDir, dir string) bool {
	tools := filepath.Join(testDir, "tools")
	for d := dir; d != testDir && d != tools; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return false
		}
	}
	return true
}

// makeTargets are the targets the Makefile and its includes define.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	targets, err := markdown.MakeTargets(root)
	if err != nil {
		t.Fatal(err)
	}
	return targets
}
