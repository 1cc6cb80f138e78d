package scenarios

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// The Backup scenario's installation: one etcd member, backed up into a claim, two kept.
const (
	backupNamespace    = "kcp-backup"
	backupInstallation = "bk"
	backupRetention    = 2
	// Environment variables naming etcdctl and etcdutl; make e2e exports them.
	envEtcdctl = "E2E_ETCDCTL"
	envEtcdutl = "E2E_ETCDUTL"
	// backupKeys keys of backupValueSize bytes are written before the first snapshot.
	backupKeys      = 5000
	backupValueSize = 2048
)

// backupManifests is what a tenant applies: the claim the snapshots go to and the
// installation.
var backupManifests = fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: etcd-backups
  namespace: %[1]s
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  external:
    hostname: kcp.backup.example.com
  certificates:
    issuerRef: {name: kcp-selfsigned, kind: ClusterIssuer, group: cert-manager.io}
  etcd:
    managed:
      backup:
        schedule: "0 3 * * *"
        retention: %[3]d
        volume: {claimName: etcd-backups}
`, backupNamespace, backupInstallation, backupRetention)

// testBackup applies an installation whose managed etcd is backed up, and checks the
// composed CronJob and status.backups. kwok's fake nodes run no containers, so the backup
// and the restore then run for real as local processes, with the certificates cert-manager
// issued for the cluster: an etcd started with the StatefulSet's command line gets keys
// written with kcp's client certificate; the CronJob's three containers run their exact
// command lines (prepare, etcdctl snapshot save, the prune script under /bin/sh) three
// times; etcd is stopped, its data directory wiped, the newest snapshot restored with the
// etcdutl command of docs/day-two.md's restore Job, and etcd started again on it must serve
// every key written before that snapshot and none written after. Only file paths, $(POD_NAME)
// and listen addresses are substituted; the member's name, initial cluster and token are
// the StatefulSet's, which the render test TestDocsRestoreMatchesStatefulSet holds the doc
// to. With KCP_BIN, the same backup and restore run under the installation's own pods
// (testBackupOnRealKCP).
func testBackup(t *testing.T, e *env) {
	ctx := t.Context()
	ns := backupNamespace
	etcdctl, etcdutl := os.Getenv(envEtcdctl), os.Getenv(envEtcdutl)
	if etcdctl == "" || etcdutl == "" {
		t.Fatalf("%s and %s must name etcdctl and etcdutl: run this through make e2e", envEtcdctl, envEtcdutl)
	}
	bin, err := stack.BinariesFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	// The platform's part, as examples/installation has it (the same objects Tenant applies).
	if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "installation", "clusterissuer.yaml"),
		filepath.Join(e.root, "examples", "installation", "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := e.Apply(ctx, []byte(backupManifests)); err != nil {
		t.Fatal(err)
	}
	etcdName := backupInstallation + "-etcd"
	cronJob := etcdName + "-backup"

	// The CronJob is composed once etcd's certificates are issued; status.backups names it.
	var cj struct {
		Spec struct {
			Schedule          string `json:"schedule"`
			ConcurrencyPolicy string `json:"concurrencyPolicy"`
			JobTemplate       struct {
				Spec struct {
					Template struct {
						Spec struct {
							InitContainers []struct {
								Name    string   `json:"name"`
								Command []string `json:"command"`
							} `json:"initContainers"`
							Containers []struct {
								Name    string   `json:"name"`
								Command []string `json:"command"`
							} `json:"containers"`
						} `json:"spec"`
					} `json:"template"`
				} `json:"spec"`
			} `json:"jobTemplate"`
		} `json:"spec"`
	}
	err = e.Eventually(ctx, 2*timeout, "CronJob "+cronJob+" composed and listed in status.backups", func(ctx context.Context) (bool, string, error) {
		var inst struct {
			Status struct {
				Backups []struct {
					Cluster string `json:"cluster"`
					CronJob string `json:"cronJob"`
				} `json:"backups"`
			} `json:"status"`
		}
		if err := e.GetJSON(ctx, &inst, "kcpinstallation", "-n", ns, backupInstallation); err != nil {
			return false, "", err
		}
		if err := e.GetJSON(ctx, &cj, "cronjob", "-n", ns, cronJob); err != nil {
			return false, "", err
		}
		b := inst.Status.Backups
		return len(b) == 1 && b[0].Cluster == etcdName && b[0].CronJob == cronJob, fmt.Sprintf("status.backups %+v", b), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Step("backup: CronJob %s composed and in status.backups %.1fs after apply", cronJob, time.Since(start).Seconds())
	pod := cj.Spec.JobTemplate.Spec.Template.Spec
	if cj.Spec.ConcurrencyPolicy != "Forbid" || len(pod.InitContainers) != 2 || len(pod.Containers) != 1 {
		t.Fatalf("CronJob %s: concurrencyPolicy %s, %d init containers, %d containers; want Forbid, prepare and snapshot, prune",
			cronJob, cj.Spec.ConcurrencyPolicy, len(pod.InitContainers), len(pod.Containers))
	}
	prepare, snapshot, prune := pod.InitContainers[0].Command, pod.InitContainers[1].Command, pod.Containers[0].Command

	var sts struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `json:"args"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := e.GetJSON(ctx, &sts, "statefulset", "-n", ns, etcdName); err != nil {
		t.Fatal(err)
	}

	// The Secrets the StatefulSet and the CronJob mount, as files.
	dir := t.TempDir()
	tlsDir, dataDir, backupDir := filepath.Join(dir, "tls"), filepath.Join(dir, "data"), filepath.Join(dir, "backup")
	for mount, secret := range map[string]string{"server": etcdName + "-server", "peer": etcdName + "-peer", "client": etcdName + "-client"} {
		data, err := e.SecretData(ctx, ns, secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(tlsDir, mount), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
			if err := os.WriteFile(filepath.Join(tlsDir, mount, k), data[k], 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	ports, err := cluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := fmt.Sprintf("https://127.0.0.1:%d", ports[0])
	member := etcdName + "-0"
	// Only paths, $(POD_NAME) and addresses differ from what the pods run.
	local := strings.NewReplacer(
		"$(POD_NAME)", member,
		"/etc/etcd/tls", tlsDir,
		"/var/lib/etcd", dataDir,
		"/backup", backupDir,
		"https://0.0.0.0:2379", endpoint,
		"https://0.0.0.0:2380", fmt.Sprintf("https://127.0.0.1:%d", ports[1]),
		"http://0.0.0.0:8080", fmt.Sprintf("http://127.0.0.1:%d", ports[2]),
		fmt.Sprintf("https://%s.%s.svc.cluster.local:2379", etcdName, ns), endpoint,
	)
	remap := func(args []string) []string {
		out := make([]string, 0, len(args))
		for _, a := range args {
			out = append(out, local.Replace(a))
		}
		return out
	}
	etcdArgs := remap(sts.Spec.Template.Spec.Containers[0].Args)
	logs := cluster.OutputDir(t)
	startEtcd := func(log string) *proc.Process {
		t.Helper()
		p, err := proc.Start(filepath.Join(logs, log), nil, bin.Etcd, etcdArgs...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctl := func(stdin string, args ...string) (string, error) {
		c := exec.CommandContext(ctx, etcdctl, append([]string{"--endpoints=" + endpoint,
			"--cacert=" + filepath.Join(tlsDir, "client", "ca.crt"), "--cert=" + filepath.Join(tlsDir, "client", "tls.crt"),
			"--key=" + filepath.Join(tlsDir, "client", "tls.key")}, args...)...)
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("etcdctl %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	waitServing := func(p *proc.Process, log string) {
		t.Helper()
		err := e.Eventually(ctx, time.Minute, "local etcd serving kcp's client certificate", func(context.Context) (bool, string, error) {
			if err := p.Exited(); err != nil {
				return false, "", fmt.Errorf("etcd exited (log %s): %w", log, err)
			}
			out, err := ctl("", "endpoint", "health")
			return err == nil, out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	etcd := startEtcd("backup-etcd.log")
	defer func() { etcd.Stop(5 * time.Second) }()
	waitServing(etcd, "backup-etcd.log")

	// kcp's keys: backupKeys of backupValueSize bytes, written in transactions of 100 puts.
	want := map[string]string{}
	for i := range backupKeys {
		want[fmt.Sprintf("/registry/e2e/key-%04d", i)] = strings.Repeat(fmt.Sprintf("%04d", i), backupValueSize/4)
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i := 0; i < len(keys); i += 100 {
		var txn strings.Builder
		txn.WriteString("\n")
		for _, k := range keys[i:min(i+100, len(keys))] {
			fmt.Fprintf(&txn, "put %s %s\n", k, want[k])
		}
		txn.WriteString("\n\n")
		if out, err := ctl(txn.String(), "txn"); err != nil || !strings.Contains(out, "SUCCESS") {
			t.Fatalf("writing keys: %v %s", err, out)
		}
	}
	e.Step("backup: %d keys of %d bytes written to etcd with kcp's client certificate", backupKeys, backupValueSize)

	// The CronJob's containers, in order, as one run of its pod does.
	run := func(n int) (time.Duration, error) {
		pod := fmt.Sprintf("%s-2961108%d-e2e%02d", cronJob, n, n)
		r := strings.NewReplacer("$(POD_NAME)", pod)
		var took time.Duration
		for _, step := range []struct {
			name string
			cmd  []string
		}{{"prepare", prepare}, {"snapshot", snapshot}, {"prune", prune}} {
			args := make([]string, 0, len(step.cmd))
			for _, a := range step.cmd {
				args = append(args, r.Replace(a)) // the Job's pod name first: remap names the member
			}
			args = remap(args)
			if step.name == "snapshot" {
				args[0] = etcdctl // the image's /usr/local/bin/etcdctl
			}
			began := time.Now()
			out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
			if step.name == "snapshot" {
				took = time.Since(began)
			}
			if err != nil {
				return 0, fmt.Errorf("%s %q: %w\n%s", step.name, args, err, out)
			}
			t.Logf("run %d, %s: %s", n, step.name, strings.TrimSpace(string(out)))
		}
		return took, nil
	}
	var snapTook time.Duration
	for n := 1; n <= 3; n++ {
		if n == 2 {
			// Written between the first and the second snapshot: the restore has it.
			if _, err := ctl("", "put", "/registry/e2e/after-first", "kept"); err != nil {
				t.Fatal(err)
			}
			want["/registry/e2e/after-first"] = "kept"
		}
		if snapTook, err = run(n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // distinct modification times for the prune's order
	}
	// Written after the last snapshot: the restore loses it.
	if _, err := ctl("", "put", "/registry/e2e/after-last", "lost"); err != nil {
		t.Fatal(err)
	}

	snapshots, err := filepath.Glob(filepath.Join(backupDir, etcdName, "*.db"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(snapshots)
	t.Run("Retention", func(t *testing.T) {
		var names []string
		for _, s := range snapshots {
			names = append(names, filepath.Base(s))
		}
		if want := []string{cronJob + "-29611082-e2e02.db", cronJob + "-29611083-e2e03.db"}; strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("snapshots kept %v, want the newest %d: %v", names, backupRetention, want)
		}
		if parts, _ := filepath.Glob(filepath.Join(backupDir, etcdName, "*.part")); len(parts) > 0 {
			t.Errorf("unfinished snapshots left: %v", parts)
		}
	})
	if len(snapshots) == 0 {
		t.Fatal("no snapshot kept")
	}
	newest := snapshots[len(snapshots)-1]
	fi, err := os.Stat(newest)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("backup: 3 runs of the CronJob's commands, %d snapshots kept; a snapshot of %d keys is %.2f MiB, saved in %.2fs",
		len(snapshots), len(want), float64(fi.Size())/(1<<20), snapTook.Seconds())

	// The restore runs the Jobs the installation composes; this test stands in for their
	// pods' container runtime, on the local member's paths.
	runLocally := func(ct corev1.Container) error {
		args := remap(append(slices.Clone(ct.Command), ct.Args...))
		switch filepath.Base(args[0]) {
		case "etcdutl":
			args[0] = etcdutl // the image's /usr/local/bin/etcdutl
		case "sh":
			args[0] = "sh"
		}
		out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
		t.Logf("%s: %s", ct.Name, strings.TrimSpace(string(out)))
		if err != nil {
			return fmt.Errorf("%q: %w\n%s", args, err, out)
		}
		return nil
	}

	// A snapshot that is not there: its check fails, and nothing was stopped for it.
	missing := etcdName + "/" + cronJob + "-29611079-gone0.db"
	setRestore(ctx, t, e, ns, backupInstallation, missing)
	waitRestorePhase(ctx, t, e, ns, backupInstallation, missing, "Checking")
	if err := runJob(ctx, t, e, ns, etcdName+"-restore-"+restoreID(missing)+"-check", runLocally); err == nil {
		t.Fatal("the check of a snapshot that is not there passed")
	}
	failed := waitRestorePhase(ctx, t, e, ns, backupInstallation, missing, "CheckFailed")
	t.Run("NothingStoppedForAMissingSnapshot", func(t *testing.T) {
		if got := specReplicas(ctx, t, e, ns, "statefulset", etcdName); got != 1 {
			t.Errorf("StatefulSet %s has %d replicas after a failed check, want 1", etcdName, got)
		}
		if got := specReplicas(ctx, t, e, ns, "rootshards.kcp.crossplane.io", backupInstallation); got == 0 {
			t.Errorf("the RootShard was stopped for a snapshot that is not there")
		}
	})
	e.Step("backup: a restore of %s, not in the volume, ended at CheckFailed (%s), nothing stopped", missing, failed.Message)

	// The newest snapshot, in one apply.
	rel := etcdName + "/" + filepath.Base(newest)
	id := restoreID(rel)
	began := setRestore(ctx, t, e, ns, backupInstallation, rel)
	waitRestorePhase(ctx, t, e, ns, backupInstallation, rel, "Checking")
	if err := runJob(ctx, t, e, ns, etcdName+"-restore-"+id+"-check", runLocally); err != nil {
		t.Fatal(err)
	}
	checked := time.Since(began)
	waitRestorePhase(ctx, t, e, ns, backupInstallation, rel, "Restoring")
	stopped := time.Since(began)
	t.Run("StoppedBeforeRestoring", func(t *testing.T) {
		for _, o := range []struct{ kind, name string }{
			{"statefulset", etcdName},
			{"rootshards.kcp.crossplane.io", backupInstallation},
			{"frontproxies.kcp.crossplane.io", backupInstallation + "-public"},
		} {
			if got := specReplicas(ctx, t, e, ns, o.kind, o.name); got != 0 {
				t.Errorf("%s %s has %d replicas while the members are restored, want 0", o.kind, o.name, got)
			}
		}
		var cj struct {
			Spec struct {
				Suspend bool `json:"suspend"`
			} `json:"spec"`
		}
		if err := e.GetJSON(ctx, &cj, "cronjob", "-n", ns, cronJob); err != nil || !cj.Spec.Suspend {
			t.Errorf("the backup CronJob runs on while the members are restored: %v", err)
		}
	})
	// The member's pod is gone (kwok's): so is the local member.
	etcd.Stop(10 * time.Second)
	var restoreTook time.Duration
	for m := range 1 {
		start := time.Now()
		if err := runJob(ctx, t, e, ns, fmt.Sprintf("%s-restore-%s-%d", etcdName, id, m), runLocally); err != nil {
			t.Fatal(err)
		}
		restoreTook += time.Since(start)
	}
	waitRestorePhase(ctx, t, e, ns, backupInstallation, rel, "Restored")
	restored := time.Since(began)
	t.Run("RunningAgain", func(t *testing.T) {
		for _, d := range []string{backupInstallation + "-kcp", backupInstallation + "-public-front-proxy"} {
			if got := specReplicas(ctx, t, e, ns, "deployment", d); got < 1 {
				t.Errorf("Deployment %s has %d replicas after the restore, want it running again", d, got)
			}
		}
		if got := specReplicas(ctx, t, e, ns, "statefulset", etcdName); got != 1 {
			t.Errorf("StatefulSet %s has %d replicas after the restore, want 1", etcdName, got)
		}
	})

	began = time.Now()
	etcd = startEtcd("backup-etcd-restored.log")
	waitServing(etcd, "backup-etcd-restored.log")
	servingTook := time.Since(began)

	out2, err := ctl("", "get", "/registry/e2e/", "--prefix", "-w", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Header struct {
			Revision int64 `json:"revision"`
		} `json:"header"`
		KVs []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"kvs"`
	}
	if err := json.Unmarshal([]byte(out2), &got); err != nil {
		t.Fatal(err)
	}
	read := map[string]string{}
	for _, kv := range got.KVs {
		k, _ := base64.StdEncoding.DecodeString(kv.Key)
		v, _ := base64.StdEncoding.DecodeString(kv.Value)
		read[string(k)] = string(v)
	}
	t.Run("Restored", func(t *testing.T) {
		var wrong []string
		for k, v := range want {
			if read[k] != v {
				wrong = append(wrong, k)
			}
		}
		if len(wrong) > 0 || len(read) != len(want) {
			sort.Strings(wrong)
			t.Errorf("read %d keys back, want %d; missing or different: %v", len(read), len(want), wrong[:min(len(wrong), 5)])
		}
		if _, ok := read["/registry/e2e/after-last"]; ok {
			t.Errorf("a key written after the restored snapshot is there")
		}
		if got.Header.Revision < 1000000000 {
			t.Errorf("revision %d after the restore, want it bumped past 1000000000 (--bump-revision)", got.Header.Revision)
		}
	})
	t.Run("PreviousDataKept", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(dataDir, "data.before-restore", "member")); err != nil {
			t.Errorf("the member's data before the restore is not kept beside it: %v", err)
		}
	})
	e.Step("backup: restored %.2f MiB in one apply: checked %.1fs after it, every component stopped %.1fs after it, the member's Job ran in %.2fs, Restored (etcd, kcp, then the front-proxies started) %.1fs after it; etcd serving again %.2fs after start, %d of %d keys read back, revision %d",
		float64(fi.Size())/(1<<20), checked.Seconds(), stopped.Seconds(), restoreTook.Seconds(), restored.Seconds(), servingTook.Seconds(), len(read), len(want), got.Header.Revision)
	t.Run("RealKCP", func(t *testing.T) {
		dir := os.Getenv("KCP_BIN")
		if dir == "" {
			t.Skip("KCP_BIN is not set: the installation's root shard does not run (set it to back up and restore what real kcp wrote)")
		}
		testBackupOnRealKCP(ctx, t, e, dir)
	})
}

// restoreID is the digest of a snapshot's name that names its restore's Jobs: the first
// eight hex digits of its SHA-256.
func restoreID(snapshot string) string {
	sum := sha256.Sum256([]byte(snapshot))
	return hex.EncodeToString(sum[:])[:4*2]
}

// specReplicas is the spec.replicas of kind name; -1 when unset.
func specReplicas(ctx context.Context, t *testing.T, e *env, ns, kind, name string) int {
	t.Helper()
	raw, err := e.Kubectl(ctx, nil, "get", kind, "-n", ns, name, "-o", "jsonpath={.spec.replicas}")
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSpace(string(raw))
	if out == "" {
		return -1
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("%s %s spec.replicas %q: %v", kind, name, out, err)
	}
	return n
}
