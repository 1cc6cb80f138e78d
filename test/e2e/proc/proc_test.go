package proc

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOutage checks what the Faults scenario relies on: during an outage the process is
// gone, Exited reports nothing (so the stack's health checks, which during may run, neither
// fail nor block), and afterwards a new process runs with the same command line and log.
func TestOutage(t *testing.T) {
	log := filepath.Join(t.TempDir(), "sleep.log")
	p, err := Start(log, nil, "/bin/sleep", "60")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	first := p.PID()

	ran := false
	if err := p.Outage(func() {
		ran = true
		if err := p.Exited(); err != nil {
			t.Errorf("Exited during an outage: %v; want nil, the outage is on purpose", err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !ran {
		t.Fatal("Outage did not run during")
	}
	if p.PID() == first {
		t.Errorf("the process was not started again: pid %d before and after", first)
	}
	if err := p.Exited(); err != nil {
		t.Errorf("the process started again is not running: %v", err)
	}
	if got := Tail(log, 5); !strings.Contains(got, "killed (SIGKILL)") || !strings.Contains(got, "started again after") {
		t.Errorf("the log does not mark the outage:\n%s", got)
	}
}
