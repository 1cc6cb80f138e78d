package scenarios

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// The workspaces real kcp creates around the backup: one before the snapshot the restore uses,
// which must be back, and one after it, which must not.
const (
	backupWorkspace = "before-backup"
	lostWorkspace   = "after-backup"
)

// testBackupOnRealKCP backs up and restores what the installation's own root shard wrote:
// its managed etcd member, root shard and front-proxy run as real processes (package
// realkcp) with their rendered command lines; a workspace is created through the front-proxy;
// the CronJob's pod runs its three containers' commands in order (prepare, etcdctl snapshot
// save, the prune script) with its mounts, the claim a directory of its own; a second
// workspace is created. Then the disaster and the restore as docs/day-two.md has it: kcp and
// etcd stop, etcd's data is wiped, the restore Job's etcdutl command runs with the member's
// flags, and etcd and kcp start again on the restored data: the first workspace is Ready, the
// second is gone.
func testBackupOnRealKCP(ctx context.Context, t *testing.T, e *env, binDir string) {
	ns := backupNamespace
	etcdName := backupInstallation + "-etcd"
	member := etcdName + "-0"
	c := startRealKCP(ctx, t, e, binDir, ns)
	pods := runNamespace(ctx, t, e, c, ns)
	etcd := pods[member]
	var kcpPods []*realkcp.Pod
	var proxy *realkcp.Pod
	for name, p := range pods {
		switch {
		case strings.HasSuffix(name, "-front-proxy"):
			proxy = p
			kcpPods = append(kcpPods, p)
		case p != etcd:
			kcpPods = append(kcpPods, p)
		}
	}
	if etcd == nil || proxy == nil {
		t.Fatalf("no pod %s or no front-proxy pod among %v", member, slices.Sorted(maps.Keys(pods)))
	}
	if err := c.Host("kcp.backup.example.com", proxy.IP); err != nil {
		t.Fatal(err)
	}
	exited := anyExited(pods)
	secret := adminKubeconfigSecret(ctx, t, e, topology{namespace: ns, installation: backupInstallation})
	admin := podKubectl(t, c, proxy, "backup-admin", secretKey(ctx, t, e, ns, secret, "kubeconfig"))
	start := time.Now()
	createWorkspaceReady(ctx, t, e, admin, backupWorkspace, exited)
	e.Step("backup RealKCP: the installation's root shard on its managed etcd member; workspace %s Ready through the front-proxy %.1fs after start", backupWorkspace, time.Since(start).Seconds())

	// One run of the CronJob's pod, its containers in order.
	var cj batchv1.CronJob
	if err := e.GetJSON(ctx, &cj, "cronjob", "-n", ns, etcdName+"-backup"); err != nil {
		t.Fatal(err)
	}
	spec := cj.Spec.JobTemplate.Spec.Template.Spec
	job, err := c.PodOf(ctx, ns, cj.Name+"-e2e", spec)
	if err != nil {
		t.Fatal(err)
	}
	podName := cj.Name + "-29611081-e2e01"
	began := time.Now()
	for _, ct := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		args := make([]string, 0, len(ct.Command)+len(ct.Args))
		for _, a := range append(slices.Clone(ct.Command), ct.Args...) {
			args = append(args, strings.ReplaceAll(a, "$(POD_NAME)", podName))
		}
		bin := args[0]
		if filepath.Base(bin) == "etcdctl" {
			bin = os.Getenv(envEtcdctl) // the etcd image's /usr/local/bin/etcdctl
		}
		out, err := job.Command(ctx, nil, bin, args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("the backup's container %s, %q: %v\n%s", ct.Name, args, err, out)
		}
		t.Logf("backup container %s: %s", ct.Name, strings.TrimSpace(string(out)))
	}
	snapshot := filepath.Join(job.MountDir("/backup"), etcdName, podName+".db")
	fi, err := os.Stat(snapshot)
	if err != nil {
		t.Fatalf("the backup wrote no snapshot %s: %v", snapshot, err)
	}
	e.Step("backup RealKCP: the CronJob's containers saved a snapshot of the member (%.2f MiB) in %.1fs, over the etcd Service with the backup's client certificate", float64(fi.Size())/(1<<20), time.Since(began).Seconds())
	createWorkspaceReady(ctx, t, e, admin, lostWorkspace, exited)

	// The disaster and the restore: kcp stops with its storage.
	// The restore in one apply; this test runs each Job's containers where the kubelet
	// would: the check in a pod with the backup volume, a member's in the member's pod (its
	// volume), with the backup volume's files where the pod's /backup would have them.
	rel := etcdName + "/" + podName + ".db"
	id := restoreID(rel)
	began = setRestore(ctx, t, e, ns, backupInstallation, rel)
	inPod := func(p *realkcp.Pod) func(corev1.Container) error {
		return func(ct corev1.Container) error {
			args := append(slices.Clone(ct.Command), ct.Args...)
			for i, a := range args {
				args[i] = strings.Replace(a, "/backup/", job.MountDir("/backup")+"/", 1)
			}
			bin := args[0]
			switch filepath.Base(bin) {
			case "etcdutl":
				bin = os.Getenv(envEtcdutl) // the etcd image's /usr/local/bin/etcdutl
			case "sh":
				bin = "sh"
			}
			out, err := p.Command(ctx, nil, bin, args[1:]...).CombinedOutput()
			t.Logf("restore container %s: %s", ct.Name, strings.TrimSpace(string(out)))
			if err != nil {
				return fmt.Errorf("%q: %w\n%s", args, err, out)
			}
			return nil
		}
	}
	waitRestorePhase(ctx, t, e, ns, backupInstallation, rel, "Checking")
	if err := runJob(ctx, t, e, ns, etcdName+"-restore-"+id+"-check", inPod(job)); err != nil {
		t.Fatal(err)
	}
	waitRestorePhase(ctx, t, e, ns, backupInstallation, rel, "Restoring")
	// The API server says every component stopped; the harness, which starts pods but does
	// not follow scaling, stops its processes for as long as the member's Job runs.
	var restoreErr error
	if err := realkcp.Outage(append(kcpPods, etcd), func() {
		restoreErr = runJob(ctx, t, e, ns, etcdName+"-restore-"+id+"-0", inPod(etcd))
	}); err != nil {
		t.Fatal(err)
	}
	if restoreErr != nil {
		t.Fatal(restoreErr)
	}
	waitRestorePhase(ctx, t, e, ns, backupInstallation, rel, "Restored")
	waitWorkspaceReady(ctx, t, e, admin, backupWorkspace, exited)
	out, err := admin(ctx, "", "get", "workspaces", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(out)
	sort.Strings(names)
	if slices.Contains(names, "workspace.tenancy.kcp.io/"+lostWorkspace) {
		t.Errorf("workspace %s, created after the snapshot, is back after the restore: %v", lostWorkspace, names)
	}
	e.Step("backup RealKCP: restored in one apply (spec.etcd.managed.restore), the installation's own check and member Jobs run in its pods, kcp started again: %s Ready %.1fs after the restore was set, %s gone (workspaces %v)", backupWorkspace, time.Since(began).Seconds(), lostWorkspace, names)
}

// createWorkspaceReady creates workspace name in the admin's workspace, once kcp answers, and
// waits until it is Ready.
func createWorkspaceReady(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, name string, exited func() error) {
	t.Helper()
	ws := "apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata:\n  name: " + name + "\n"
	if err := e.Eventually(ctx, 4*time.Minute, "workspace "+name+" created", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, ws, "create", "-f", "-")
		return err == nil || strings.Contains(out, "AlreadyExists"), out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	waitWorkspaceReady(ctx, t, e, admin, name, exited)
}

// waitWorkspaceReady waits until workspace name is Ready.
func waitWorkspaceReady(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, name string, exited func() error) {
	t.Helper()
	if err := e.Eventually(ctx, 4*time.Minute, "workspace "+name+" Ready", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspaces.tenancy.kcp.io", name, "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Ready", out, exited()
	}); err != nil {
		t.Fatal(err)
	}
}
