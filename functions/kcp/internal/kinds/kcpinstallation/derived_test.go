package kcpinstallation

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// TestPartsListEveryGoldenObject checks parts against what the installation examples really
// compose (test/render's golden names): a name parts misses is a collision no check sees.
func TestPartsListEveryGoldenObject(t *testing.T) {
	const examples, goldenNames = "../../../../../examples", "../../../../../test/render/testdata/names"
	// The child XRs are named by the installation, not composed under the names parts lists.
	xrKinds := []string{"RootShard", "Shard", "CacheServer", "FrontProxy", "Kubeconfig", "VirtualWorkspace"}
	manifests, err := filepath.Glob(filepath.Join(examples, "*", "kcpinstallation.yaml"))
	if err != nil || len(manifests) < 4 {
		t.Fatalf("want the four installation examples, got %v (%v)", manifests, err)
	}
	for _, m := range manifests {
		example := filepath.Base(filepath.Dir(m))
		inst := readInstallation(t, m)
		var listed []string
		for _, p := range namers(inst) {
			listed = append(listed, p.names...)
		}
		raw, err := os.ReadFile(filepath.Join(goldenNames, example+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		// XRs the example applies beside the installation (examples/authentication's
		// FrontProxy extensions and Shard sso): the installation names neither them nor what
		// its RootShard composes for them (a Shard's registration Object).
		lines := strings.Split(string(raw), "\n")
		var beside []string
		for _, line := range lines {
			fields := strings.Fields(line)
			if len(fields) != 3 || strings.HasPrefix(line, "#") {
				continue
			}
			if _, xr, _ := strings.Cut(fields[0], "/"); xr != inst.Name && !strings.HasPrefix(xr, inst.Name+"-") {
				beside = append(beside, xr)
			}
		}
		checked := 0
		for _, line := range lines {
			fields := strings.Fields(line)
			if len(fields) != 3 || strings.HasPrefix(line, "#") {
				continue
			}
			kind, name, _ := strings.Cut(fields[2], "/")
			if slices.Contains(xrKinds, kind) {
				continue
			}
			_, xr, _ := strings.Cut(fields[0], "/")
			if slices.Contains(beside, xr) || slices.ContainsFunc(beside, func(b string) bool { return name == names.RootShard(inst.Name).Registration(b) }) {
				continue
			}
			checked++
			if !slices.Contains(listed, name) {
				t.Errorf("%s: %s composes %s, which namers() does not list", example, fields[0], fields[2])
			}
		}
		if checked == 0 {
			t.Errorf("%s: no golden object checked", example)
		}
	}
}

// readInstallation returns the KcpInstallation of an example's manifest.
func readInstallation(t *testing.T, path string) *v1alpha1.KcpInstallation {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(raw), "\n---") {
		inst := &v1alpha1.KcpInstallation{}
		if err := yaml.Unmarshal([]byte(doc), inst); err == nil && inst.Kind == "KcpInstallation" {
			return inst
		}
	}
	t.Fatalf("%s holds no KcpInstallation", path)
	return nil
}
