package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// The function's packages in layers, lowest first. A package may import packages of a lower
// layer and of its own group; a kind imports no other kind, only its own subpackages. So
// the tree reads from the bottom up: the request and response (core), names and shared
// checks, renderers of kcp's parts, the machinery every kind composes with, the kinds, and
// fn.go's table over them.
var layers = []struct {
	group string
	rank  int
}{
	{"core", 0},
	{"names", 1},
	{"kcpversion", 1},
	{"kcpimage", 1},
	{"check", 1},
	{"testworld", 1},
	{"parts", 2},
	{"compose", 3},
	{"kinds", 4},
}

// internalPrefix is the import path prefix of the function's own packages.
const internalPrefix = "github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/"

// place is where a package sits: its group, its rank, and for a kind the kind's directory.
type place struct {
	group string
	rank  int
	kind  string
}

// placeOf places a package given by its path below internal/.
func placeOf(pkg string) (place, bool) {
	parts := strings.Split(pkg, "/")
	for _, l := range layers {
		if parts[0] != l.group {
			continue
		}
		p := place{group: l.group, rank: l.rank}
		if l.group == "kinds" && len(parts) > 1 {
			p.kind = parts[1]
		}
		return p, true
	}
	return place{}, false
}

// shapeViolations lists every import among the function's internal packages (paths below
// internal/, non-test files only) that breaks the layering.
func shapeViolations(imports map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		from, ok := placeOf(pkg)
		if !ok {
			out = append(out, fmt.Sprintf("%s belongs to no layer: put it in a group of shape_test.go's layers", pkg))
			continue
		}
		for _, imp := range imports[pkg] {
			to, ok := placeOf(imp)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s imports %s, which belongs to no layer", pkg, imp))
			case to.group == "testworld":
				out = append(out, fmt.Sprintf("%s imports %s: only tests may", pkg, imp))
			case from.group == "kinds" && to.group == "kinds" && from.kind != to.kind:
				out = append(out, fmt.Sprintf("%s imports %s: a kind imports no other kind; move what both need into names, check, parts or compose", pkg, imp))
			case to.rank > from.rank || (to.rank == from.rank && to.group != from.group):
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): a package imports only lower layers and its own group", pkg, from.group, imp, to.group))
			}
		}
	}
	return out
}

func TestShapeViolations(t *testing.T) {
	cases := map[string]struct {
		reason  string
		imports map[string][]string
		want    []string
	}{
		"Downwards": {
			reason:  "A kind may import the machinery, parts, names and core.",
			imports: map[string][]string{"kinds/shard": {"compose/builder", "parts/pki", "names", "core/desired"}},
		},
		"OwnGroup": {
			reason:  "Packages of one group may import each other.",
			imports: map[string][]string{"parts/proxy": {"parts/workload"}, "core/desired": {"core/resource"}},
		},
		"OwnSubpackage": {
			reason:  "A kind may import its own subpackages.",
			imports: map[string][]string{"kinds/kcpinstallation": {"kinds/kcpinstallation/exposure"}},
		},
		"KindImportsKind": {
			reason:  "A kind importing another kind is what the layering exists to prevent.",
			imports: map[string][]string{"kinds/cacheserver": {"kinds/rootshard"}},
			want:    []string{"kinds/cacheserver imports kinds/rootshard: a kind imports no other kind; move what both need into names, check, parts or compose"},
		},
		"KindImportsOthersSubpackage": {
			reason:  "Another kind's subpackage is that kind too.",
			imports: map[string][]string{"kinds/shard": {"kinds/kcpinstallation/exposure"}},
			want:    []string{"kinds/shard imports kinds/kcpinstallation/exposure: a kind imports no other kind; move what both need into names, check, parts or compose"},
		},
		"PointsUp": {
			reason:  "A renderer of kcp's parts must not depend on the composition machinery above it.",
			imports: map[string][]string{"parts/kcpserver": {"compose/inputs"}},
			want:    []string{"parts/kcpserver (parts) imports compose/inputs (compose): a package imports only lower layers and its own group"},
		},
		"Sideways": {
			reason:  "Groups of one layer do not import each other.",
			imports: map[string][]string{"check": {"names"}},
			want:    []string{"check (check) imports names (names): a package imports only lower layers and its own group"},
		},
		"TestWorldInCode": {
			reason:  "testworld is for tests.",
			imports: map[string][]string{"kinds/shard": {"testworld"}},
			want:    []string{"kinds/shard imports testworld: only tests may"},
		},
		"UnknownGroup": {
			reason:  "A new top-level package must be given a layer.",
			imports: map[string][]string{"helpers": nil},
			want:    []string{"helpers belongs to no layer: put it in a group of shape_test.go's layers"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, shapeViolations(tc.imports)); diff != "" {
				t.Errorf("%s\nshapeViolations(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// internalImports reads, with go/parser, the imports among the function's internal packages
// of every non-test Go file below dir, by package path below internal/.
func internalImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if rest, ok := strings.CutPrefix(ip, internalPrefix); ok && !slices.Contains(out[pkg], rest) {
				out[pkg] = append(out[pkg], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShape holds the function's import graph to its layers: no kind imports another, and
// nothing imports a package above it.
func TestShape(t *testing.T) {
	imports := internalImports(t, "internal")
	if len(imports) == 0 {
		t.Fatal("no packages found below internal/")
	}
	for _, v := range shapeViolations(imports) {
		t.Error(v)
	}
	depth := map[string]int{}
	var depthOf func(string) int
	depthOf = func(pkg string) int {
		if d, ok := depth[pkg]; ok {
			return d
		}
		d := 1
		for _, imp := range imports[pkg] {
			d = max(d, 1+depthOf(imp))
		}
		depth[pkg] = d
		return d
	}
	deepest := 0
	for pkg := range imports {
		deepest = max(deepest, depthOf(pkg))
	}
	t.Logf("%d packages below internal/, at most %d deep (fn.go's package adds one)", len(imports), deepest)
}

// TestEveryKindHasARow holds the table of kinds in fn.go, internal/kinds and the API's kinds
// to each other: every kind package has a row, named like its directory, every row a
// package, and every kind of v1alpha1.Kinds a row.
func TestEveryKindHasARow(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("internal", "kinds"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	var rows []string
	for k := range newTable() {
		rows = append(rows, strings.ToLower(k))
	}
	slices.Sort(rows)
	if diff := cmp.Diff(dirs, rows); diff != "" {
		t.Errorf("internal/kinds/<kind> and the rows of fn.go's kinds (lower case) must match: -directories, +rows:\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(v1alpha1.Kinds)), slices.Sorted(maps.Keys(newTable()))); diff != "" {
		t.Errorf("v1alpha1.Kinds (the XRDs' kinds) and the rows of fn.go's table must match: -kinds, +rows:\n%s", diff)
	}
}

// packageNames reads, with go/parser, the package name of every non-test Go file below dir,
// by package path below dir.
func packageNames(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(p))
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = f.Name.Name
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sharedNames lists every package name that more than one of the packages (name by path)
// carries: a reader of `encryption.Compose` must not have to look up which encryption.
func sharedNames(names map[string]string) []string {
	byName := map[string][]string{}
	for _, pkg := range slices.Sorted(maps.Keys(names)) {
		byName[names[pkg]] = append(byName[names[pkg]], pkg)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if pkgs := byName[name]; len(pkgs) > 1 {
			out = append(out, fmt.Sprintf("package name %s is taken by %s: rename all but one after what each does", name, strings.Join(pkgs, ", ")))
		}
	}
	return out
}

func TestSharedNames(t *testing.T) {
	got := sharedNames(map[string]string{"compose/encryption": "encryption", "parts/encryption": "encryption", "parts/pki": "pki"})
	want := []string{"package name encryption is taken by compose/encryption, parts/encryption: rename all but one after what each does"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Two packages of one name are named, the others not.\nsharedNames(...): -want, +got:\n%s", diff)
	}
}

// TestOnePackagePerName holds the function's packages to one package per name.
func TestOnePackagePerName(t *testing.T) {
	names := packageNames(t, "internal")
	if len(names) == 0 {
		t.Fatal("no packages found below internal/")
	}
	for _, v := range sharedNames(names) {
		t.Error(v)
	}
}

// untypedEntries lists, in the file f of the package at pkg (a path below internal/),
// every exported function, method and function type that takes an XR or a spec (a parameter
// named xr or spec) as any or interface{}.
func untypedEntries(pkg string, f *ast.File) []string {
	var out []string
	check := func(name string, ft *ast.FuncType) {
		if !ast.IsExported(name) || ft.Params == nil {
			return
		}
		for _, p := range ft.Params.List {
			if !isAny(p.Type) {
				continue
			}
			for _, n := range p.Names {
				if strings.EqualFold(n.Name, "xr") || strings.EqualFold(n.Name, "spec") {
					out = append(out, fmt.Sprintf("%s.%s takes %s as any: take a v1alpha1.XR or a v1alpha1.Spec (apis/v1alpha1/xr.go), so that no map or unrelated value can stand for one", pkg, name, n.Name))
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			check(d.Name.Name, d.Type)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					if ft, ok := ts.Type.(*ast.FuncType); ok {
						check(ts.Name.Name, ft)
					}
				}
			}
		}
	}
	return out
}

// isAny says whether a parameter's type is any or interface{}.
func isAny(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "any"
	case *ast.InterfaceType:
		return len(e.Methods.List) == 0
	}
	return false
}

func TestUntypedEntries(t *testing.T) {
	cases := map[string]struct {
		reason string
		src    string
		want   []string
	}{
		"Typed": {
			reason: "An XR or a spec taken as its type is what the rule asks for.",
			src:    "package p\nfunc Budget(spec v1alpha1.Spec) {}\ntype Validate func(kind string, xr v1alpha1.XR)",
		},
		"Internal": {
			reason: "Unexported walkers may take what they walk as any.",
			src:    "package p\nfunc walk(spec any) {}",
		},
		"OtherNames": {
			reason: "Only parameters named xr or spec are XRs or specs; a decoding target is not.",
			src:    "package p\nfunc Get(into any) {}",
		},
		"Untyped": {
			reason: "Exported functions, methods and function types taking an XR or a spec as any are named.",
			src:    "package p\nfunc Budget(spec any) {}\nfunc (b *B) XR(kind string, spec interface{}) {}\ntype ValidateXR func(kind string, xr any)",
			want: []string{
				"p.Budget takes spec as any: take a v1alpha1.XR or a v1alpha1.Spec (apis/v1alpha1/xr.go), so that no map or unrelated value can stand for one",
				"p.XR takes spec as any: take a v1alpha1.XR or a v1alpha1.Spec (apis/v1alpha1/xr.go), so that no map or unrelated value can stand for one",
				"p.ValidateXR takes xr as any: take a v1alpha1.XR or a v1alpha1.Spec (apis/v1alpha1/xr.go), so that no map or unrelated value can stand for one",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, untypedEntries("p", f)); diff != "" {
				t.Errorf("%s\nuntypedEntries(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestXRsAndSpecsAreTyped holds the function's packages to passing XRs and specs to each
// other as v1alpha1.XR and v1alpha1.Spec, never as any.
func TestXRsAndSpecsAreTyped(t *testing.T) {
	dir := "internal"
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, v := range untypedEntries(pkg, f) {
			t.Error(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
