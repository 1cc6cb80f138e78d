package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// writeFiles creates files (path relative to dir → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadExample(t *testing.T) {
	type want struct {
		xrs         []string
		environment []string
		expectFatal bool
		err         bool
	}
	cases := map[string]struct {
		reason string
		files  map[string]string
		want   want
	}{
		"SortedFilesAndDocuments": {
			reason: "XRs are kcp.crossplane.io documents in sorted file and document order; the rest, testdata fixtures last, is the environment.",
			files: map[string]string{
				"b.yaml":          "{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: b1}}\n---\n{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: b2}}",
				"a.yaml":          "{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: a}}\n---\n{apiVersion: v1, kind: Namespace, metadata: {name: kcp}}",
				"notes.md":        "not YAML",
				"testdata/x.yaml": "{apiVersion: v1, kind: Secret, metadata: {name: fixture}}",
			},
			want: want{
				xrs: []string{
					"{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: a}}",
					"{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: b1}}",
					"{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: b2}}",
				},
				environment: []string{
					"{apiVersion: v1, kind: Namespace, metadata: {name: kcp}}",
					"{apiVersion: v1, kind: Secret, metadata: {name: fixture}}",
				},
			},
		},
		"ExpectFatal": {
			reason: "An expect-fatal file marks the example.",
			files: map[string]string{
				"xr.yaml":      "{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: a}}",
				"expect-fatal": "",
			},
			want: want{xrs: []string{"{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: a}}"}, expectFatal: true},
		},
		"NoXR": {
			reason: "An example without an XR renders nothing, which is a mistake.",
			files:  map[string]string{"ns.yaml": "{apiVersion: v1, kind: Namespace, metadata: {name: kcp}}"},
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			got, err := LoadExample(dir)
			if (err != nil) != tc.want.err {
				t.Fatalf("%s\nLoadExample(...): want error %t, got %v", tc.reason, tc.want.err, err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(contents(objects(tc.want.xrs...)), contents(got.XRs)); diff != "" {
				t.Errorf("%s\nLoadExample(...).XRs: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(contents(objects(tc.want.environment...)), contents(got.Environment)); diff != "" {
				t.Errorf("%s\nLoadExample(...).Environment: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.expectFatal, got.ExpectFatal); diff != "" {
				t.Errorf("%s\nLoadExample(...).ExpectFatal: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestLoadAPIs(t *testing.T) {
	xrd := `
apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: rootshards.kcp.crossplane.io}
spec:
  group: kcp.crossplane.io
  names: {kind: RootShard, plural: rootshards}
`
	cases := map[string]struct {
		reason string
		files  map[string]string
		want   map[schema.GroupKind]API
		err    bool
	}{
		"KindToPlural": {
			reason: "A kind's composition lives next to its XRD, in the directory named after its plural.",
			files:  map[string]string{"rootshards/definition.yaml": xrd, "rootshards/composition.yaml": "{}"},
			want: map[schema.GroupKind]API{{Group: "kcp.crossplane.io", Kind: "RootShard"}: {
				Plural: "rootshards", XRD: "rootshards/definition.yaml", Composition: "rootshards/composition.yaml",
			}},
		},
		"MissingComposition": {
			reason: "An XRD without a composition cannot be rendered.",
			files:  map[string]string{"rootshards/definition.yaml": xrd},
			err:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			got, err := LoadAPIs(dir)
			if (err != nil) != tc.err {
				t.Fatalf("%s\nLoadAPIs(...): want error %t, got %v", tc.reason, tc.err, err)
			}
			for gk, api := range got {
				api.XRD, _ = filepath.Rel(dir, api.XRD)
				api.Composition, _ = filepath.Rel(dir, api.Composition)
				got[gk] = api
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nLoadAPIs(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
