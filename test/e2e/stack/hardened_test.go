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

// TestHardenedWithEtc: the process reads the harness's directory as /etc, sees the harness
// rewrite a file there while it runs, and cannot write to it.
func TestHardenedWithEtc(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("HardenedWithEtc needs root")
	}
	etc := t.TempDir()
	if err := os.Chmod(etc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeHosts(etc, map[string]string{"a.example.svc.cluster.local": "127.0.0.2"}); err != nil {
		t.Fatal(err)
	}
	// The process prints /etc/hosts, waits for the harness to rewrite it, prints it again.
	probe := `cat /etc/hosts; while ! grep -q b.example /etc/hosts; do sleep 0.1; done; cat /etc/hosts; touch /etc/probe 2>&1 || true`
	cmd := HardenedWithEtc(65532, 65532, etc, "sh", "-c", probe)
	c := exec.Command(cmd[0], cmd[1:]...)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := writeHosts(etc, map[string]string{"a.example.svc.cluster.local": "127.0.0.2", "b.example.svc.cluster.local": "127.0.0.3"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, want := range []string{"127.0.0.2 a.example.svc.cluster.local", "127.0.0.3 b.example.svc.cluster.local", "Read-only file system"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("process printed:\n%s\nwant it to contain %q", out.String(), want)
		}
	}
}
