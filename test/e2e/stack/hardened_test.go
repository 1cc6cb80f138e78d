package stack

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHardened runs a shell through Hardened and checks, from inside, what the e2e promises
// about the function's process: the image's user, no capabilities, no new privileges, and
// no filesystem it could write to; and that the host's filesystems stay writable.
func TestHardened(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("Hardened needs root (the e2e runs the function hardened only as root)")
	}
	probe := `id -u; id -g; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; touch /tmp/hardened-probe 2>&1 || true`
	cmd := Hardened(65532, 65532, "sh", "-c", probe)
	out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := string(out)
	for _, want := range []string{"65532\n65532\n", "CapEff:\t0000000000000000", "NoNewPrivs:\t1", "Read-only file system"} {
		if !strings.Contains(got, want) {
			t.Errorf("hardened process printed:\n%s\nwant it to contain %q", got, want)
		}
	}
	// The remounts were private to the process's namespace.
	f, err := os.CreateTemp("", "host-writable")
	if err != nil {
		t.Fatalf("the host's /tmp is no longer writable after a hardened process: %v", err)
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
}
