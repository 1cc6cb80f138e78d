// Package pkg checks the packages `make build` writes: the Configuration holds exactly the
// repository's XRDs and Compositions and pins the function at VERSION, and every Function
// package embeds a runtime image of its architecture whose entrypoint is the function.
//
// Run it with `make package-test`, which builds the packages first and names them in
// E2E_FUNCTION_XPKG (comma-separated) and E2E_CONFIGURATION_XPKG.
package pkg

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// root is the repository root, relative to this package.
const root = "../.."

func env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run this test through make package-test, which builds the packages", name)
	}
	return v
}

// packageYAML returns the package.yaml stream of an xpkg file and its image.
func packageYAML(t *testing.T, path string) ([]byte, v1.Image) {
	t.Helper()
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := fileFromImage(img, "package.yaml")
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b, img
}

// fileFromImage reads a file of the image's flattened filesystem.
func fileFromImage(img v1.Image, name string) ([]byte, error) {
	rc := mutate.Extract(img)
	defer rc.Close() //nolint:errcheck // Read-only.
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New(name + " not found in the image")
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimPrefix(h.Name, "/") == name {
			return io.ReadAll(tr)
		}
	}
}

type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		DependsOn []struct {
			Package string `json:"package"`
			Version string `json:"version"`
		} `json:"dependsOn"`
	} `json:"spec"`
}

// docs splits a YAML stream into JSON documents.
func docs(t *testing.T, stream []byte) [][]byte {
	t.Helper()
	f := filepath.Join(t.TempDir(), "stream.yaml")
	if err := os.WriteFile(f, stream, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := stack.ReadManifests(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConfigurationPackage(t *testing.T) {
	stream, _ := packageYAML(t, env(t, "E2E_CONFIGURATION_XPKG"))
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}

	// What the package must hold: crossplane.yaml, then every apis/*/ file, as JSON objects.
	want := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(root, "apis", "*", "*.yaml"))
	files = append(files, filepath.Join(root, "crossplane.yaml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs(t, b) {
			var o object
			if err := json.Unmarshal(d, &o); err != nil {
				t.Fatal(err)
			}
			want[o.Kind+"/"+o.Metadata.Name] = d
		}
	}

	got := map[string][]byte{}
	var meta object
	for _, d := range docs(t, stream) {
		var o object
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		got[o.Kind+"/"+o.Metadata.Name] = d
		if o.Kind == "Configuration" {
			meta = o
		}
	}
	if diff := cmp.Diff(sortedKeys(want), sortedKeys(got)); diff != "" {
		t.Fatalf("the Configuration package's objects differ from crossplane.yaml and apis/ (-want +got):\n%s", diff)
	}
	// xpkg build re-serialises every object (adding an empty status, for one): compare what
	// the objects say, their spec, labels and annotations.
	for k, w := range want {
		a, b := essence(t, w), essence(t, got[k])
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s in the package differs from the repository's (-repo +package):\n%s", k, diff)
		}
	}
	// The function at exactly VERSION, and provider-kubernetes from the oldest version the e2e
	// runs (TestCrossplaneNext) to any later v1 (its namespaced kinds are what the function
	// composes inside kcp).
	wantDeps := map[string]string{
		"xpkg.crossplane.io/configuration-kcp/function-kcp":         strings.TrimSpace(string(version)),
		"xpkg.crossplane.io/crossplane-contrib/provider-kubernetes": ">=" + stack.ProviderKubernetesOldestVersion + " <v2.0.0",
	}
	gotDeps := map[string]string{}
	for _, d := range meta.Spec.DependsOn {
		gotDeps[d.Package] = d.Version
	}
	if diff := cmp.Diff(wantDeps, gotDeps); diff != "" {
		t.Errorf("dependsOn (-want +got):\n%s", diff)
	}
	for _, a := range []string{"meta.crossplane.io/description", "meta.crossplane.io/readme", "meta.crossplane.io/source", "meta.crossplane.io/license", "meta.crossplane.io/maintainer"} {
		if strings.TrimSpace(meta.Metadata.Annotations[a]) == "" {
			t.Errorf("the Configuration's metadata lacks annotation %s, which registries show", a)
		}
	}
}

func TestFunctionPackages(t *testing.T) {
	for _, path := range strings.Split(env(t, "E2E_FUNCTION_XPKG"), ",") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			stream, img := packageYAML(t, path)
			var metas []string
			for _, d := range docs(t, stream) {
				var o object
				if err := json.Unmarshal(d, &o); err != nil {
					t.Fatal(err)
				}
				metas = append(metas, o.APIVersion+" "+o.Kind+"/"+o.Metadata.Name)
			}
			if diff := cmp.Diff([]string{"meta.pkg.crossplane.io/v1 Function/function-kcp"}, metas); diff != "" {
				t.Errorf("package.yaml objects (-want +got):\n%s", diff)
			}
			cfg, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			arch := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "function-kcp-"), ".xpkg")
			if cfg.OS != "linux" || cfg.Architecture != arch {
				t.Errorf("image platform %s/%s, want linux/%s", cfg.OS, cfg.Architecture, arch)
			}
			if diff := cmp.Diff([]string{"/function"}, cfg.Config.Entrypoint); diff != "" {
				t.Errorf("entrypoint (-want +got):\n%s", diff)
			}
			if cfg.Config.User != "65532:65532" {
				t.Errorf("user %q, want the non-root 65532:65532", cfg.Config.User)
			}
			bin, err := fileFromImage(img, "function")
			if err != nil {
				t.Fatal(err)
			}
			// An ELF executable for the right machine: e_machine at offset 18.
			machines := map[string]uint16{"amd64": 62, "arm64": 183}
			if len(bin) < 20 || !bytes.Equal(bin[:4], []byte("\x7fELF")) || uint16(bin[18])|uint16(bin[19])<<8 != machines[arch] {
				t.Errorf("/function is not a linux/%s ELF executable", arch)
			}
		})
	}
}

// essence is an object's spec, labels and annotations.
func essence(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var o struct {
		Metadata struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec any `json:"spec"`
	}
	if err := json.Unmarshal(doc, &o); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"labels": o.Metadata.Labels, "annotations": o.Metadata.Annotations, "spec": o.Spec}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
