package scenarios

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// checkFunctionHardened checks the running function's process as the kernel sees it: the
// image's non-root user, no capabilities, no new privileges, a read-only root filesystem and
// nothing else writable but /dev's shared memory and terminals, as in a pod with the hardened
// DeploymentRuntimeConfig of docs/reliability.md (see stack.Hardened). Run after the scenarios, it shows the
// function served all of them, and its restarts, that way.
func checkFunctionHardened(t *testing.T, e *env) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the package runtime runs the function unhardened (see stack.Hardened)")
	}
	fns := e.Functions()
	if len(fns) == 0 {
		t.Fatal("no function running")
	}
	for _, fn := range fns {
		p := e.Process("function-" + fn.Revision)
		if p == nil {
			t.Fatalf("no process for function %s", fn.Revision)
		}
		dir := "/proc/" + strconv.Itoa(p.PID())
		status, err := os.ReadFile(dir + "/status")
		if err != nil {
			t.Fatal(err)
		}
		fields := map[string]string{}
		for _, l := range strings.Split(string(status), "\n") {
			k, v, _ := strings.Cut(l, ":")
			fields[k] = strings.Join(strings.Fields(v), " ")
		}
		for k, want := range map[string]string{"Uid": "65532 65532 65532 65532", "Gid": "65532 65532 65532 65532", "CapEff": "0000000000000000", "CapBnd": "0000000000000000", "NoNewPrivs": "1"} {
			if fields[k] != want {
				t.Errorf("function %s: %s %q, want %q", fn.Revision, k, fields[k], want)
			}
		}
		mounts, err := os.ReadFile(dir + "/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		rootSeen := false
		for _, l := range strings.Split(strings.TrimSpace(string(mounts)), "\n") {
			f := strings.Fields(l)
			if len(f) < 6 {
				continue
			}
			point, opts := f[4], strings.Split(f[5], ",")
			readOnly := len(opts) > 0 && opts[0] == "ro"
			if point == "/" {
				rootSeen = true
			}
			if !readOnly && !strings.HasPrefix(point, "/dev/") {
				t.Errorf("function %s: %s is mounted %s, want read-only", fn.Revision, point, f[5])
			}
		}
		if !rootSeen {
			t.Errorf("function %s: no root filesystem in its mountinfo", fn.Revision)
		}
	}
	e.Step("function: %d process(es) ran every scenario as 65532:65532, no capabilities, no new privileges, read-only filesystems", len(fns))
}
