package etcd

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestRestoreJobs checks what each restore Job runs, with which volumes: the snapshot read
// only, each member's own claim, and the flags the StatefulSet starts that member with.
func TestRestoreJobs(t *testing.T) {
	c := cluster(v1alpha1.ManagedEtcd{Replicas: 3, Backup: backup("etcd-backups")})
	r := NewRestore(c, "dev-etcd/dev-etcd-backup-1-abcde.db")
	if len(r.ID) != 8 || NewRestore(c, "dev-etcd/other.db").ID == r.ID {
		t.Fatalf("restore IDs: %q, want 8 hex digits that differ between snapshots", r.ID)
	}

	check := r.CheckJob()
	if got, want := check.Name, "dev-etcd-restore-"+r.ID+"-check"; got != want {
		t.Errorf("check Job %q, want %q", got, want)
	}
	wantCheck := []string{"/usr/local/bin/etcdutl", "snapshot", "status", "/backup/dev-etcd/dev-etcd-backup-1-abcde.db", "--write-out=table"}
	if diff := cmp.Diff(wantCheck, check.Spec.Template.Spec.Containers[0].Command); diff != "" {
		t.Errorf("the check reads the snapshot and verifies its hash: -want, +got:\n%s", diff)
	}

	m := r.MemberJob(1)
	pod := m.Spec.Template.Spec
	if got, want := m.Name, "dev-etcd-restore-"+r.ID+"-1"; got != want {
		t.Errorf("member Job %q, want %q", got, want)
	}
	if *m.Spec.BackoffLimit != 0 || pod.RestartPolicy != "Never" {
		t.Errorf("a member's restore is not retried on its own: backoffLimit %d, restartPolicy %s", *m.Spec.BackoffLimit, pod.RestartPolicy)
	}
	claims := map[string]string{}
	readOnly := map[string]bool{}
	for _, v := range pod.Volumes {
		claims[v.Name] = v.PersistentVolumeClaim.ClaimName
		readOnly[v.Name] = v.PersistentVolumeClaim.ReadOnly
	}
	if diff := cmp.Diff(map[string]string{"backup": "etcd-backups", "data": "data-dev-etcd-1"}, claims); diff != "" || !readOnly["backup"] || readOnly["data"] {
		t.Errorf("volumes: the backups read-only, the member's own claim writable: -want, +got:\n%s (read-only %v)", diff, readOnly)
	}
	wantRestore := []string{
		"/usr/local/bin/etcdutl", "snapshot", "restore", "/backup/dev-etcd/dev-etcd-backup-1-abcde.db",
		"--data-dir=/var/lib/etcd/restore-" + r.ID,
		"--name=dev-etcd-1",
		"--initial-cluster=dev-etcd-0=https://dev-etcd-0.dev-etcd-members.team-a.svc.cluster.local:2380,dev-etcd-1=https://dev-etcd-1.dev-etcd-members.team-a.svc.cluster.local:2380,dev-etcd-2=https://dev-etcd-2.dev-etcd-members.team-a.svc.cluster.local:2380",
		"--initial-cluster-token=dev-etcd",
		"--initial-advertise-peer-urls=https://dev-etcd-1.dev-etcd-members.team-a.svc.cluster.local:2380",
		"--bump-revision=1000000000",
		"--mark-compacted",
	}
	if diff := cmp.Diff(wantRestore, pod.InitContainers[1].Command); diff != "" {
		t.Errorf("etcdutl restores beside the member's data, with the member's own flags: -want, +got:\n%s", diff)
	}
	for _, arg := range c.Args() {
		for _, flag := range []string{"--initial-cluster=", "--initial-cluster-token="} {
			if strings.HasPrefix(arg, flag) && !slices.Contains(wantRestore, arg) {
				t.Errorf("the StatefulSet starts members with %s, the restore writes another", arg)
			}
		}
	}
	if got := pod.InitContainers[0].Command; !cmp.Equal(got, []string{"rm", "-rf", "--", "/var/lib/etcd/restore-" + r.ID}) {
		t.Errorf("prepare clears what an interrupted run left, and only that: %v", got)
	}
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot || *pod.AutomountServiceAccountToken {
		t.Errorf("a restore pod runs as the members do, without a service account token: %+v", pod.SecurityContext)
	}
}

// TestSwapScript runs the swap container's script with /bin/sh: the member's data moves
// aside, the restored data takes its place, and a second run leaves the member alone.
func TestSwapScript(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh: ", err)
	}
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	swap := func() {
		t.Helper()
		if out, err := exec.Command(sh, "-c", SwapScript, "swap", dir, "abc").CombinedOutput(); err != nil {
			t.Fatalf("swap: %v\n%s", err, out)
		}
	}

	write("data/member/snap/db", "old")
	write("data.before-restore/member/snap/db", "older")
	write("restore-abc/member/snap/db", "restored")
	swap()
	if got := read("data/member/snap/db"); got != "restored" {
		t.Errorf("after the swap the member's data is %q, want the restored data", got)
	}
	if got := read("data.before-restore/member/snap/db"); got != "old" {
		t.Errorf("the member's previous data is %q in data.before-restore, want old (the way back)", got)
	}

	// etcd ran on the restored data; a Job run again (its Job deleted and composed anew) must
	// not restore over what was written since.
	write("data/member/snap/db", "written since")
	write("restore-abc/member/snap/db", "restored again")
	swap()
	if got := read("data/member/snap/db"); got != "written since" {
		t.Errorf("a second run replaced the member's data: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "restore-abc")); !os.IsNotExist(err) {
		t.Errorf("a second run leaves its restored copy behind: %v", err)
	}
}
