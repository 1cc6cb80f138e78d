package pkg

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestXpkgBuildMatchesTheCLI builds each package again with `crossplane xpkg build`, from the
// same inputs make/package.mk gives bin/xpkgbuild, and wants the same image digest: make build
// uses xpkgbuild (crossplane-runtime's package builder, without the CLI's gigabyte of modules)
// so that make demo needs no CLI, and a package it writes must be the one the CLI would.
// make package-test exports CROSSPLANE, the CLI's path.
func TestXpkgBuildMatchesTheCLI(t *testing.T) {
	cli := env(t, "CROSSPLANE")
	dir := filepath.Join(root, "_output", "package")
	noExamples := t.TempDir()
	type buildCase struct {
		reason string
		built  string   // what make build wrote
		args   []string // the CLI's flags for the same inputs
	}
	cases := map[string]buildCase{
		"Configuration": {
			reason: "the Configuration: XRDs, Compositions and an examples layer",
			built:  env(t, "E2E_CONFIGURATION_XPKG"),
			args:   []string{"--package-root=" + filepath.Join(dir, "configuration"), "--examples-root=" + filepath.Join(dir, "examples")},
		},
	}
	for _, arch := range []string{"amd64", "arm64"} {
		built := filepath.Join(dir, "function-kcp-"+arch+".xpkg")
		if _, err := os.Stat(built); err != nil {
			continue // make build ARCHS=... built only some
		}
		cases["Function-"+arch] = buildCase{
			reason: "a Function with its runtime image embedded and no examples",
			built:  built,
			args: []string{"--package-root=" + filepath.Join(root, "package"), "--examples-root=" + noExamples,
				"--embed-runtime-image-tarball=" + filepath.Join(dir, "function-kcp-runtime-"+arch+".tar")},
		}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "cli.xpkg")
			cmd := exec.Command(cli, append([]string{"xpkg", "build", "-o", out}, tc.args...)...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("crossplane xpkg build: %v\n%s", err, b)
			}
			want, got := digest(t, out), digest(t, tc.built)
			if want != got {
				t.Errorf("%s: %s has digest %s; crossplane xpkg build of the same inputs gives %s", tc.reason, tc.built, got, want)
			}
			if a, b := read(t, out), read(t, tc.built); !bytes.Equal(a, b) {
				t.Errorf("%s: the package files differ byte for byte", tc.reason)
			}
		})
	}
}

func digest(t *testing.T, path string) string {
	t.Helper()
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
