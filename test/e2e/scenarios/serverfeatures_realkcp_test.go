package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// checkServerFeaturesOnRealKCP checks, on the real kcp of an installation's namespace, what
// its kcp servers' composed flags turn on (examples/server-features turns on all of them):
// with --audit-log-path, the file under the pod's directory holds the admin's requests as JSON
// audit events; with --profiler-address, Go's profiler answers inside the pod; with
// --enable-home-workspaces=true, the admin's home workspace is created on first access and is
// Ready; with the metrics-viewer battery, the root workspace has its service account.
func checkServerFeaturesOnRealKCP(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, admin kubectlFunc, ns string) {
	t.Helper()
	for _, d := range kcpServerDeployments(ctx, t, e, ns) {
		ctr := d.Spec.Template.Spec.Containers[0]
		p := pods[d.Name]
		// The root shard, which holds the root workspace, is the kcp server without a shard name.
		root := !slices.ContainsFunc(ctr.Args, func(a string) bool { return strings.HasPrefix(a, "--shard-name=") })
		for _, a := range ctr.Args {
			switch {
			case strings.HasPrefix(a, "--audit-log-path="):
				checkAuditFile(ctx, t, e, p, strings.TrimPrefix(a, "--audit-log-path="))
			case strings.HasPrefix(a, "--profiler-address="):
				checkProfiler(ctx, t, e, c, p, strings.TrimPrefix(a, "--profiler-address="))
			case a == "--enable-home-workspaces=true" && root:
				checkHomeWorkspace(ctx, t, e, admin)
			case strings.HasPrefix(a, "--batteries-included=") && strings.Contains(a, "metrics-viewer") && root:
				if out, err := admin(ctx, "", "get", "serviceaccount", "metrics", "-n", "default", "-o", "name"); err != nil {
					t.Errorf("%s: battery metrics-viewer, but no service account metrics in the root workspace: %v\n%s", d.Name, err, out)
				} else {
					e.Step("RealKCP %s: battery metrics-viewer made %s in the root workspace", ns, strings.TrimSpace(out))
				}
			}
		}
	}
}

// checkAuditFile waits for the pod's audit log, at path as the container sees it, to hold the
// admin's requests as JSON audit events.
func checkAuditFile(ctx context.Context, t *testing.T, e *env, p *realkcp.Pod, path string) {
	t.Helper()
	file := p.MountDir(strings.ReplaceAll(path, "$(POD_NAME)", p.Name))
	var events, admins int
	err := e.Eventually(ctx, time.Minute, "the audit log "+file+" holds the admin's requests", func(context.Context) (bool, string, error) {
		raw, err := os.ReadFile(file)
		if err != nil {
			return false, err.Error(), nil
		}
		events, admins = 0, 0
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var ev struct {
				Kind string `json:"kind"`
				User struct {
					Username string `json:"username"`
				} `json:"user"`
			}
			if json.Unmarshal([]byte(line), &ev) != nil || ev.Kind != "Event" {
				return false, fmt.Sprintf("not a JSON audit event: %.200s", line), nil
			}
			events++
			if ev.User.Username == "kcp-admin" {
				admins++
			}
		}
		return admins > 0, fmt.Sprintf("%d events, %d of kcp-admin", events, admins), nil
	})
	if err != nil {
		t.Error(err)
		return
	}
	e.Step("RealKCP: %s wrote %d audit events to %s, %d of them the admin's", p.Name, events, filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), admins)
}

// checkProfiler reads Go's profiler inside the pod at address, which nothing outside it reaches.
func checkProfiler(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, p *realkcp.Pod, address string) {
	t.Helper()
	kubeconfig := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: pprof\n  cluster: {server: \"http://%s\"}\ncontexts:\n- name: pprof\n  context: {cluster: pprof, user: none}\nusers:\n- name: none\n  user: {}\ncurrent-context: pprof\n", address)
	k := podKubectl(t, c, p, p.Name+"-pprof", []byte(kubeconfig))
	out, err := k(ctx, "", "get", "--raw", "/debug/pprof/cmdline")
	if err != nil || !strings.Contains(out, "start") {
		t.Errorf("%s: Go's profiler at %s inside the pod: %v\n%.300s", p.Name, address, err, out)
		return
	}
	e.Step("RealKCP: %s serves Go's profiler at %s inside the pod (its cmdline: %.40s...)", p.Name, address, strings.ReplaceAll(out, "\x00", " "))
}

// checkHomeWorkspace asks for the admin's home workspace, which kcp creates on first access.
func checkHomeWorkspace(ctx context.Context, t *testing.T, e *env, admin kubectlFunc) {
	t.Helper()
	start := time.Now()
	var home struct {
		Spec struct {
			URL string `json:"URL"`
		} `json:"spec"`
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	err := e.Eventually(ctx, time.Minute, "the admin's home workspace is Ready", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "--raw", "/apis/tenancy.kcp.io/v1alpha1/workspaces/~")
		if err != nil {
			return false, out, nil
		}
		if err := json.Unmarshal([]byte(out), &home); err != nil {
			return false, out, nil
		}
		return home.Status.Phase == "Ready", out, nil
	})
	if err != nil {
		t.Error(err)
		return
	}
	e.Step("RealKCP: the admin's home workspace, created on first access, Ready %.1fs later at %s", time.Since(start).Seconds(), home.Spec.URL)
}
