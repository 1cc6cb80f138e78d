package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rendered are the Kubernetes objects only parts/ builds: kinds decide what is composed and
// when; the renderers below them say what it looks like, one factory per object.
var rendered = map[string][]string{
	"k8s.io/api/core/v1":  {"Secret", "Service", "ConfigMap", "Container"},
	"k8s.io/api/apps/v1":  {"Deployment", "StatefulSet"},
	"k8s.io/api/batch/v1": {"Job", "CronJob"},
}

// constructedObjects lists, as "file: pkg.Type", the composite literals of rendered objects
// in the Go file src.
func constructedObjects(name, src string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	alias := map[string]string{} // local name of each import of rendered's packages
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := rendered[path]; !ok {
			continue
		}
		local := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		alias[local] = path
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		sel, ok := lit.Type.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		for _, typ := range rendered[alias[pkg.Name]] {
			if sel.Sel.Name == typ {
				out = append(out, name+": "+pkg.Name+"."+typ)
			}
		}
		return true
	})
	return out, nil
}

func TestConstructedObjects(t *testing.T) {
	cases := map[string]struct {
		reason string
		src    string
		want   []string
	}{
		"Renamed": {
			reason: "An import under another name is still the package.",
			src:    `package k; import corev1 "k8s.io/api/core/v1"; var _ = &corev1.Secret{}; var _ = []corev1.Container{{}}`,
			want:   []string{"k.go: corev1.Secret"},
		},
		"Pointers": {
			reason: "A field of a rendered type is no construction: a literal of the type is.",
			src:    `package k; import appsv1 "k8s.io/api/apps/v1"; type x struct{ s *appsv1.StatefulSet }; var _ = appsv1.StatefulSet{}`,
			want:   []string{"k.go: appsv1.StatefulSet"},
		},
		"OtherTypes": {
			reason: "A spec, a probe or an object of another package is the kind's to build.",
			src:    `package k; import corev1 "k8s.io/api/core/v1"; var _ = corev1.ServiceSpec{}; var _ = corev1.Probe{}`,
		},
		"ContainerList": {
			reason: "A list of containers is a container literal each.",
			src:    `package k; import corev1 "k8s.io/api/core/v1"; var _ = corev1.Container{Name: "a"}`,
			want:   []string{"k.go: corev1.Container"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := constructedObjects("k.go", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nconstructedObjects(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestKindsRenderThroughParts: no kind builds a Secret, Service, ConfigMap, Container,
// Deployment, StatefulSet, Job or CronJob itself; each comes from a renderer in parts/.
func TestKindsRenderThroughParts(t *testing.T) {
	var found []string
	err := filepath.WalkDir("internal/kinds", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		objs, err := constructedObjects(path, string(src))
		found = append(found, objs...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: a kind decides what is composed; build the object in a renderer under internal/parts (one factory per object) and call it", f)
	}
}
