package markdown

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShellBlocks(t *testing.T) {
	cases := map[string]struct {
		reason  string
		doc     string
		want    []Block
		wantErr string // a part of the error; "" for none
	}{
		"Demo": {
			reason: "A block under <!-- against: demo --> runs against the demo.",
			doc:    "# T\n\n<!-- against: demo -->\n```shell\nkubectl get xrds\n```\n",
			want:   []Block{{Line: 4, Lang: "shell", Demo: true, Text: "kubectl get xrds\n"}},
		},
		"Needs": {
			reason: "A needs marker's reason is kept, trimmed.",
			doc:    "<!--  needs: a second cluster  -->\n```bash\nmake e2e\n```\n",
			want:   []Block{{Line: 2, Lang: "bash", Needs: "a second cluster", Text: "make e2e\n"}},
		},
		"IndentedFence": {
			reason: "A fence in a list item, its marker at the same indentation: its indentation is removed from its lines, a deeper one kept.",
			doc:    "1. Apply:\n   <!-- against: demo -->\n   ```sh\n   kubectl apply -f x.yaml \\\n     -n kcp\n   ```\n",
			want:   []Block{{Line: 3, Lang: "sh", Demo: true, Text: "kubectl apply -f x.yaml \\\n  -n kcp\n"}},
		},
		"Unmarked": {
			reason: "A block without a marker is returned unmarked: the style test says how to mark it.",
			doc:    "Run:\n\n```console\nmake demo\n```\n",
			want:   []Block{{Line: 3, Lang: "console", Text: "make demo\n"}},
		},
		"MarkerNotDirectlyAbove": {
			reason: "A blank line parts the marker from the fence: the marker is of nothing.",
			doc:    "<!-- against: demo -->\n\n```shell\nls\n```\n",
			want:   []Block{{Line: 3, Lang: "shell", Text: "ls\n"}},
		},
		"BothKinds": {
			reason: "Both markers are read, so that the style test can reject a block with two.",
			doc:    "<!-- against: demo -->\n<!-- needs: a registry you can push to -->\n```shell\nmake push\n```\n",
			want:   []Block{{Line: 3, Lang: "shell", Demo: true, Needs: "a registry you can push to", Text: "make push\n"}},
		},
		"OtherComment": {
			reason: "A comment that is no marker is not one.",
			doc:    "<!-- plan: end -->\n```shell\nls\n```\n",
			want:   []Block{{Line: 2, Lang: "shell", Text: "ls\n"}},
		},
		"OtherLanguages": {
			reason: "Only shell blocks; a shell fence inside another block is that block's text.",
			doc:    "```yaml\na: 1\n```\n\n````markdown\n```shell\nls\n```\n````\n\n```\nplain\n```\n",
		},
		"UnknownTarget": {
			reason:  "Only the demo is a target: anything else is an error naming the marker's line.",
			doc:     "text\n<!-- against: prod -->\n```shell\nls\n```\n",
			wantErr: "doc.md:2: the block at line 3 is marked against \"prod\"",
		},
		"NeedsNothing": {
			reason:  "A needs marker must say what is needed.",
			doc:     "<!-- needs: -->\n```shell\nls\n```\n",
			wantErr: "doc.md:1: the block at line 2 needs nothing named",
		},
		"Unclosed": {
			reason:  "A fence never closed would swallow the rest of the file.",
			doc:     "```shell\nls\n",
			wantErr: "a fenced block is never closed",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "doc.md")
			if err := os.WriteFile(path, []byte(tc.doc), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ShellBlocks(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nShellBlocks(...): error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.want {
				tc.want[i].File = path
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nShellBlocks(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDocFiles(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"README.md", "Makefile", "docs/install.md", "docs/topologies/sharded.md", "docs/reference/rootshard.md",
		"examples/README.md", "examples/basic/rootshard.yaml", "test/e2e/README.md", "test/render/README.md",
	} {
		path := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	// The generated reference and the test harnesses' own notes are not what users follow.
	want := []string{"README.md", "docs/install.md", "docs/topologies/sharded.md", "examples/README.md", "test/e2e/README.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DocFiles(...): -want, +got:\n%s", diff)
	}
}
