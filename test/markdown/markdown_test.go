package markdown

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlocks(t *testing.T) {
	doc := "# Title\n\n```yaml\na: 1\n```\n\n- item\n  ```shell\n  make test\n  ```\n\n```go\nignored\n```\n\n```\nlayout\n```\n"
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		langs  []string
		want   []string
	}{
		"OneLanguage":   {reason: "Only blocks of the language.", langs: []string{"yaml"}, want: []string{"a: 1\n"}},
		"IndentedFence": {reason: "A fence inside a list item counts, its lines as written.", langs: []string{"shell", "sh"}, want: []string{"  make test\n"}},
		"None":          {reason: "No block of the language.", langs: []string{"bash"}},
		"Bare":          {reason: "A bare fence is a block of its own, never another block's closing fence.", langs: []string{""}, want: []string{"layout\n"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Blocks(path, tc.langs...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nBlocks(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMakeTargets(t *testing.T) {
	got, err := MakeTargets("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"test", "demo", "unit", "bench", "e2e"} {
		if !got[want] {
			t.Errorf("MakeTargets() misses %s, a target of the Makefile", want)
		}
	}
	for _, notATarget := range []string{"SHELL", "BIN", "GO_TOOLCHAIN", "export GOTOOLCHAIN"} {
		if got[notATarget] {
			t.Errorf("MakeTargets() names %q, which is an assignment, not a target", notATarget)
		}
	}
}
