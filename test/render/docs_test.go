package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/gomod"
	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

// yamlBlocks returns the ```yaml fenced blocks of a Markdown file.
func yamlBlocks(t *testing.T, path string) []string {
	t.Helper()
	return fencedBlocks(t, path, "yaml")
}

// fencedBlocks returns the fenced blocks of a Markdown file in one of langs.
func fencedBlocks(t *testing.T, path string, langs ...string) []string {
	t.Helper()
	blocks, err := markdown.Blocks(path, langs...)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// docFiles are the Markdown files users read (markdown.DocFiles), as paths.
func docFiles(t *testing.T) []string {
	t.Helper()
	rel, err := markdown.DocFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(rel))
	for _, f := range rel {
		files = append(files, filepath.Join(repoRoot, f))
	}
	return files
}

// TestDocsManifests validates every manifest in the docs' yaml blocks, offline, against the
// XRDs, cert-manager's and Crossplane's CRDs and Kubernetes' own types: a manifest a user
// copies from the docs must be accepted.
func TestDocsManifests(t *testing.T) {
	tools, err := FindTools(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := extensions()
	if err != nil {
		t.Fatal(err)
	}
	xp, err := crossplaneCRDs()
	if err != nil {
		t.Fatal(err)
	}
	ext = append(ext, xp)
	cache := t.TempDir()
	for _, f := range docFiles(t) {
		rel, _ := filepath.Rel(repoRoot, f)
		for i, block := range yamlBlocks(t, f) {
			t.Run(strings.ReplaceAll(rel, "/", "_")+"#"+string(rune('0'+i)), func(t *testing.T) {
				file := filepath.Join(t.TempDir(), "block.yaml")
				if err := os.WriteFile(file, []byte(block), 0o600); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(tools.Crossplane, "resource", "validate", strings.Join(ext, ","), file,
					"--crossplane-image=", "--cache-dir="+cache, "--error-on-missing-schemas", "--skip-success-results")
				out, err := cmd.CombinedOutput()
				if err != nil || !strings.Contains(string(out), " 0 missing schemas") || !strings.Contains(string(out), " 0 failure cases") {
					t.Fatalf("yaml block %d of %s does not validate: %v\n%s\n%s", i, rel, err, out, block)
				}
			})
		}
	}
}

// TestDocsClusterRoleIsInstalls checks that the ClusterRole the install guide shows is the
// one in install/clusterrole.yaml.
func TestDocsClusterRoleIsInstalls(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(repoRoot, "install", "clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var w any
	if err := yaml.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	for _, block := range yamlBlocks(t, filepath.Join(repoRoot, "docs", "install.md")) {
		if !strings.Contains(block, "kind: ClusterRole") {
			continue
		}
		var g any
		if err := yaml.Unmarshal([]byte(block), &g); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("docs/install.md shows a ClusterRole other than install/clusterrole.yaml (-install +docs):\n%s", diff)
		}
		return
	}
	t.Error("docs/install.md shows no ClusterRole")
}

// crossplaneCRDs is the CRD directory of the Crossplane core module test/tools pins (for
// ImageConfig and the package kinds the docs show).
func crossplaneCRDs() (string, error) {
	dir, err := gomod.Dir(filepath.Join(repoRoot, "test", "tools"), "github.com/crossplane/crossplane/v2")
	return filepath.Join(dir, "cluster", "crds"), err
}
