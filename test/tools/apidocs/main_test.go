package main

import (
	"strings"
	"testing"
)

// The xrdgen golden XRDs serve as input: they are generated from test types whose fields
// and doc comments are known.
func TestGenerate(t *testing.T) {
	files, err := Generate("../xrdgen/testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		file string
		want []string
	}{
		"IndexListsEveryKind": {file: "README.md", want: []string{"| [Widget](widget.md) |", "| [Gadget](gadget.md) |"}},
		"KindHeader":          {file: "widget.md", want: []string{"# Widget\n", "`kind: Widget`"}},
		"SpecTable":           {file: "widget.md", want: []string{"## spec\n", "| Field | Type | Required | Description |"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := files[tc.file]
			if !ok {
				t.Fatalf("no %s generated; files: %v", tc.file, keys(files))
			}
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("%s lacks %q:\n%s", tc.file, w, got)
				}
			}
		})
	}
}

func TestGenerateNoXRDs(t *testing.T) {
	if _, err := Generate(t.TempDir()); err == nil {
		t.Error("Generate of a directory without XRDs: no error")
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
