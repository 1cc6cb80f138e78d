package render

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const namesDir = "testdata/names"

// TestComposedNamesStable holds every composed object's identity to the record of what earlier
// versions composed: its XR, its composition resource name (how Crossplane matches desired to
// observed) and its kind and name. A new function version that renamed one would make
// Crossplane delete the running object and create another: a new Deployment, a new CA.
// `-update` adds new identities to testdata/names; it never removes one. Removing a line is
// the deliberate, reviewed act of renaming (and needs a migration note for users).
func TestComposedNamesStable(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join(goldenDir, "*", "converged.yaml"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden renders in %s: %v", goldenDir, err)
	}
	for _, g := range goldens {
		example := filepath.Base(filepath.Dir(g))
		t.Run(example, func(t *testing.T) {
			b, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			got, err := composedIdentities(b)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(namesDir, example+".txt")
			recorded := map[string]bool{}
			if b, err := os.ReadFile(path); err == nil {
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if l != "" && !strings.HasPrefix(l, "#") {
						recorded[l] = true
					}
				}
			} else if !*update {
				t.Fatalf("%v: run `go test ./test/render -update` to record the names", err)
			}
			current := map[string]bool{}
			for _, id := range got {
				current[id] = true
			}
			for _, id := range slices.Sorted(maps.Keys(recorded)) {
				if !current[id] {
					t.Errorf("examples/%s no longer composes %s: Crossplane would delete it on upgrade. "+
						"If the rename is intended, remove the line from %s and document the migration.", example, id, path)
				}
			}
			if *update {
				for id := range current {
					recorded[id] = true
				}
				var out bytes.Buffer
				fmt.Fprintf(&out, "# What examples/%s composes, once converged: XR, composition resource name, object.\n", example)
				fmt.Fprintf(&out, "# Checked by TestComposedNamesStable; -update only adds lines.\n")
				for _, id := range slices.Sorted(maps.Keys(recorded)) {
					fmt.Fprintln(&out, id)
				}
				if err := os.MkdirAll(namesDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// composedIdentities lists "<XR kind>/<XR name> <composition resource name> <kind>/<name>" for
// every composed object of a golden render.
func composedIdentities(golden []byte) ([]string, error) {
	var out []string
	for _, doc := range bytes.Split(golden, []byte("\n---\n")) {
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name            string            `json:"name"`
				Annotations     map[string]string `json:"annotations"`
				OwnerReferences []struct {
					Kind       string `json:"kind"`
					Name       string `json:"name"`
					Controller bool   `json:"controller"`
				} `json:"ownerReferences"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return nil, err
		}
		rn := o.Metadata.Annotations["crossplane.io/composition-resource-name"]
		if rn == "" {
			continue // An XR, or something the example applies itself.
		}
		owner := "?"
		for _, r := range o.Metadata.OwnerReferences {
			if r.Controller {
				owner = r.Kind + "/" + r.Name
			}
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s", owner, rn, o.Kind, o.Metadata.Name))
	}
	return out, nil
}
