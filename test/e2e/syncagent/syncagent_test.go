package syncagent

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// CRDFile finds the PublishedResource CRD of Version, downloading the module when needed.
func TestCRDFile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the module cannot be downloaded")
	}
	f, err := CRDFile(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: PublishedResource", "scope: Cluster"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not contain %q", f, want)
		}
	}
}

// The version the e2e reads the CRD of is the version make builds.
func TestVersionMatchesMake(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "..", "make", "e2e-tools.mk"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^E2E_API_SYNCAGENT_VERSION\s*:=\s*(\S+)`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("make/e2e-tools.mk sets no E2E_API_SYNCAGENT_VERSION")
	}
	if string(m[1]) != Version {
		t.Errorf("make/e2e-tools.mk builds api-syncagent %s, syncagent.Version is %s: change both", m[1], Version)
	}
}
