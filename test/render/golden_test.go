package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current renders")

const goldenDir = "testdata/golden"

// TestGolden compares every example's fresh and converged render with its reviewed golden
// file. After an intended change run `go test ./test/render -update` and review the diff.
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range renderExamples(t) {
		seen[r.Example] = true
		for _, s := range states(r) {
			t.Run(r.Example+"/"+s.name, func(t *testing.T) {
				got, err := Golden(s.outs)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(goldenDir, r.Example, s.name+".yaml")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v: run `go test ./test/render -update` to write it, then review it", err)
				}
				if !bytes.Equal(want, got) {
					diff := cmp.Diff(documents(want), documents(got))
					if diff == "" {
						diff = "the same documents in another order\n"
					}
					t.Errorf("render of examples/%s (%s) differs from %s (-want +got):\n%s\n"+
						"If the change is intended, run `go test ./test/render -update` and review the diff of %s.",
						r.Example, s.name, path, diff, goldenDir)
				}
			})
		}
	}

	// Golden files of a removed or renamed example would otherwise linger unnoticed.
	dirs, err := os.ReadDir(goldenDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if seen[d.Name()] {
			continue
		}
		path := filepath.Join(goldenDir, d.Name())
		if *update {
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s has no example under examples/: run `go test ./test/render -update` to remove it", path)
	}
}

// documents splits a golden file into its documents' lines, keyed by kind and name, so a
// diff says which object changed and shows changed lines rather than changed bytes.
func documents(b []byte) map[string][]string {
	out := map[string][]string{}
	for _, doc := range strings.Split(string(b), "---\n") {
		if doc == "" {
			continue
		}
		key := "unparsable"
		if objs, err := ParseObjects([]byte(doc)); err == nil && len(objs) == 1 {
			o := objs[0]
			key = fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
		}
		// Results have no name, and several XRs may compose equal names.
		for n := 2; out[key] != nil; n++ {
			key = strings.TrimSuffix(key, fmt.Sprintf(" (%d)", n-1)) + fmt.Sprintf(" (%d)", n)
		}
		out[key] = strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	}
	return out
}
