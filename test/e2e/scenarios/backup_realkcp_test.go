package scenarios

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// kcpAddress is where the test's kcp listens: an address of its own on the loopback device.
// kcp derives the address it advertises from its bind address, or from the default route when
// it binds to a loopback address, and the test's network namespace has no default route.
// TEST-NET-2 (RFC 5737): it leaves this namespace for nowhere.
const kcpAddress = "198.51.100.7"

// backupWorkspace is the workspace real kcp creates before the backup and must find after the
// restore.
const backupWorkspace = "before-backup"

// kcpOnEtcd is a real kcp server (`kcp start` from KCP_BIN) storing its data in the Backup
// scenario's local etcd with the client certificate the installation issued, as the
// installation's root shard does. It stands for the root shard: the point is that what kcp
// wrote survives a backup and a restore, not how the shard is configured.
type kcpOnEtcd struct {
	bin, kubectl, dir, endpoint, tls string
	port                             int
	p                                *proc.Process
}

// newKCPOnEtcd returns the server, or nil when KCP_BIN is not set (the scenario then backs up
// and restores etcd alone).
func newKCPOnEtcd(t *testing.T, kubectl, endpoint, tlsDir string) *kcpOnEtcd {
	t.Helper()
	binDir := os.Getenv("KCP_BIN")
	if binDir == "" {
		t.Log("KCP_BIN is not set: no real kcp writes to etcd before the backup (set it to run `kcp start` on the etcd that is backed up and restored)")
		return nil
	}
	ports, err := cluster.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("ip", "addr", "add", kcpAddress+"/32", "dev", "lo").CombinedOutput(); err != nil && !strings.Contains(string(out), "File exists") {
		t.Fatalf("ip addr add %s/32 dev lo: %v\n%s", kcpAddress, err, out)
	}
	return &kcpOnEtcd{bin: filepath.Join(binDir, "kcp"), kubectl: kubectl, dir: t.TempDir(), endpoint: endpoint, tls: tlsDir, port: ports[0]}
}

// start runs kcp on the etcd and waits until it is ready.
func (k *kcpOnEtcd) start(ctx context.Context, t *testing.T, e *env, log string) {
	t.Helper()
	args := []string{"start",
		"--root-directory=" + k.dir,
		"--etcd-servers=" + k.endpoint,
		"--etcd-cafile=" + filepath.Join(k.tls, "client", "ca.crt"),
		"--etcd-certfile=" + filepath.Join(k.tls, "client", "tls.crt"),
		"--etcd-keyfile=" + filepath.Join(k.tls, "client", "tls.key"),
		"--bind-address=" + kcpAddress,
		fmt.Sprintf("--secure-port=%d", k.port),
	}
	p, err := proc.Start(filepath.Join(cluster.OutputDir(t), log), nil, k.bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	k.p = p
	err = e.Eventually(ctx, 3*time.Minute, "real kcp ready on the backed-up etcd", func(ctx context.Context) (bool, string, error) {
		if err := p.Exited(); err != nil {
			return false, "", fmt.Errorf("kcp exited (log %s): %w", log, err)
		}
		out, err := k.ctl(ctx, "", "base", "get", "--raw", "/readyz")
		return err == nil && strings.TrimSpace(out) == "ok", out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (k *kcpOnEtcd) stop() {
	if k.p != nil {
		k.p.Stop(10 * time.Second)
		k.p = nil
	}
}

// ctl runs kubectl as kcp's admin in a context of kcp's admin.kubeconfig: root (the root
// workspace) or base (the server itself).
func (k *kcpOnEtcd) ctl(ctx context.Context, stdin, kubeContext string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, k.kubectl, append([]string{"--kubeconfig=" + filepath.Join(k.dir, "admin.kubeconfig"), "--context=" + kubeContext}, args...)...)
	c.Stdin = strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	return string(out), err
}

// createWorkspace creates backupWorkspace and waits until kcp says it is Ready.
func (k *kcpOnEtcd) createWorkspace(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	ws := "apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata:\n  name: " + backupWorkspace + "\n"
	if out, err := k.ctl(ctx, ws, "root", "create", "-f", "-"); err != nil {
		t.Fatalf("creating workspace %s in real kcp: %v\n%s", backupWorkspace, err, out)
	}
	k.waitWorkspace(ctx, t, e, "created")
}

// waitWorkspace waits until backupWorkspace exists and is Ready.
func (k *kcpOnEtcd) waitWorkspace(ctx context.Context, t *testing.T, e *env, when string) {
	t.Helper()
	err := e.Eventually(ctx, 2*time.Minute, "workspace "+backupWorkspace+" Ready in real kcp ("+when+")", func(ctx context.Context) (bool, string, error) {
		out, err := k.ctl(ctx, "", "root", "get", "workspaces.tenancy.kcp.io", backupWorkspace, "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Ready", out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
