package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/cache"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

const (
	snapshot      = "team-a-etcd/team-a-etcd-backup-29611080-x7k2p.db"
	otherSnapshot = "team-a-etcd/team-a-etcd-backup-29611440-abcde.db"
	// restoreID and otherRestoreID are etcd.NewRestore's digests of the snapshots.
	restoreID      = "688b1b89"
	otherRestoreID = "13086f04"
)

// restoring is smallest with three etcd members, backups, and a restore of snapshot.
func restoring() *v1alpha1.KcpInstallation {
	i := smallest()
	i.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{
		Replicas: 3,
		Backup:   &v1alpha1.ManagedEtcdBackup{Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "backups"}},
		Restore:  &v1alpha1.ManagedEtcdRestore{Snapshot: snapshot},
	}}
	return i
}

// restoreWorld is what the cluster holds at a step of a restore.
type restoreWorld struct {
	// etcd is the StatefulSet's spec.replicas, status.replicas and status.readyReplicas;
	// nil when it is not observed.
	etcd *[3]int
	// jobs are the observed restore Jobs, by name suffix (check, 0, 1, 2): Complete or
	// Failed, or "" while running.
	jobs map[string]string
	// rootShardAvailable and proxyAvailable are the RootShard's and the FrontProxy's
	// status.availableReplicas (-1 for unset); above 0 they are Ready for their generation.
	rootShardAvailable, proxyAvailable int
	// before is the observed status.restores.
	before []v1alpha1.InstallationRestore
	// ready: every child XR says Ready.
	ready bool
	// stale: the children's Ready condition is for the generation before.
	stale bool
}

func (rw restoreWorld) state(t *testing.T, inst *v1alpha1.KcpInstallation) *observed.State {
	t.Helper()
	w := testworld.New().InNamespace("tenant")
	// The backup CronJob runs already: it is composed whatever the certificates' state.
	w.Put("cronjob-etcd-backup", map[string]any{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": map[string]any{"name": "team-a-etcd-backup", "namespace": "tenant"}})
	if e := rw.etcd; e != nil {
		w.Put(keyEtcd, map[string]any{
			"apiVersion": "apps/v1", "kind": "StatefulSet",
			"metadata": map[string]any{"name": "team-a-etcd", "namespace": "tenant", "generation": int64(2)},
			"spec":     map[string]any{"replicas": int64(e[0])},
			"status":   map[string]any{"observedGeneration": int64(2), "replicas": int64(e[1]), "readyReplicas": int64(e[2])},
		})
	}
	for suffix, outcome := range rw.jobs {
		name := "team-a-etcd-restore-" + restoreID + "-" + suffix
		w.Put(jobKey("team-a", name), map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": name, "namespace": "tenant"}})
		if outcome != "" {
			w.Condition(jobKey("team-a", name), outcome, true, outcome, "")
		}
	}
	child := func(key resource.Name, kind, name string, available int) {
		u := map[string]any{"apiVersion": v1alpha1.Group + "/v1alpha1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": "tenant", "generation": int64(3)}}
		if available >= 0 {
			status := map[string]any{"availableReplicas": int64(available)}
			if available > 0 {
				seen := int64(3)
				if rw.stale {
					seen = 2
				}
				status["conditions"] = []any{map[string]any{"type": "Ready", "status": "True", "reason": "Available", "observedGeneration": seen}}
			}
			u["status"] = status
		}
		w.Put(key, u)
	}
	child(rootShardKey, "RootShard", "team-a", rw.rootShardAvailable)
	child("frontproxy-public", "FrontProxy", "team-a-public", rw.proxyAvailable)
	if rw.ready {
		w.Put("kubeconfig-admin", map[string]any{"apiVersion": v1alpha1.Group + "/v1alpha1", "kind": "Kubeconfig", "metadata": map[string]any{"name": "team-a-admin", "namespace": "tenant"}})
		w.Condition("kubeconfig-admin", "Ready", true, "Available", "")
	}
	var before []any
	for _, b := range rw.before {
		before = append(before, map[string]any{"cluster": b.Cluster, "snapshot": b.Snapshot, "phase": string(b.Phase)})
	}
	return w.State().WithComposite(map[string]any{"status": map[string]any{"restores": before}})
}

// TestRestore: a restore's steps, each read from what the cluster holds, each composing what
// that step needs and holding what must not run.
func TestRestore(t *testing.T) {
	type want struct {
		phase   v1alpha1.RestorePhase
		message string   // a substring
		jobs    []string // name suffixes of restoreID's Jobs
		// otherJobs are name suffixes of otherRestoreID's Jobs.
		otherJobs []string
		// etcd is the StatefulSet's replicas; servers the RootShard's (nil: its default);
		// proxies the FrontProxy's; suspended the backup CronJob's.
		etcd             int32
		servers, proxies *int32
		suspended        bool
		errs             []string
	}
	zero, two := int32(0), int32(2)
	running := [3]int{3, 3, 3}
	stoppedEtcd := [3]int{0, 0, 0}
	cases := map[string]struct {
		reason string
		inst   func() *v1alpha1.KcpInstallation
		world  restoreWorld
		want   want
	}{
		"Checking": {
			reason: "First the snapshot is read, by a Job of its own: nothing stops for a snapshot that may not be there.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, rootShardAvailable: 2, proxyAvailable: 2},
			want:   want{phase: v1alpha1.RestoreChecking, message: "reads the snapshot", jobs: []string{"check"}, etcd: 3},
		},
		"CheckFailed": {
			reason: "A snapshot that is not there, or damaged: the restore ends and nothing was stopped.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, jobs: map[string]string{"check": "Failed"}, rootShardAvailable: 2, proxyAvailable: 2},
			want:   want{phase: v1alpha1.RestoreCheckFailed, message: "nothing was stopped", jobs: []string{"check"}, etcd: 3},
		},
		"Stopping": {
			reason: "Once the snapshot is read, kcp, the front-proxies and etcd stop and the backups are suspended; no member is touched while one runs.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, jobs: map[string]string{"check": "Complete"}, rootShardAvailable: 2, proxyAvailable: 2},
			want:   want{phase: v1alpha1.RestoreStopping, message: "to stop", jobs: []string{"check"}, etcd: 0, servers: &zero, proxies: &zero, suspended: true},
		},
		"StillStopping": {
			reason: "A member still has a pod: its volume is still etcd's.",
			inst:   restoring,
			world:  restoreWorld{etcd: &[3]int{0, 1, 0}, jobs: map[string]string{"check": "Complete"}, rootShardAvailable: 0, proxyAvailable: 0},
			want:   want{phase: v1alpha1.RestoreStopping, jobs: []string{"check"}, etcd: 0, servers: &zero, proxies: &zero, suspended: true},
		},
		"Restoring": {
			reason: "Every member stopped: a Job per member restores into its volume.",
			inst:   restoring,
			world:  restoreWorld{etcd: &stoppedEtcd, jobs: map[string]string{"check": "Complete"}, rootShardAvailable: 0, proxyAvailable: 0},
			want:   want{phase: v1alpha1.RestoreRestoring, jobs: []string{"check", "0", "1", "2"}, etcd: 0, servers: &zero, proxies: &zero, suspended: true},
		},
		"MemberFailed": {
			reason: "A member that could not be restored: everything stays stopped, never half-restored and serving, and the message names the Job.",
			inst:   restoring,
			world:  restoreWorld{etcd: &stoppedEtcd, jobs: map[string]string{"check": "Complete", "0": "Complete", "1": "Failed", "2": "Complete"}, rootShardAvailable: 0, proxyAvailable: 0},
			want:   want{phase: v1alpha1.RestoreFailed, message: "Job team-a-etcd-restore-" + restoreID + "-1 could not restore", jobs: []string{"check", "0", "1", "2"}, etcd: 0, servers: &zero, proxies: &zero, suspended: true},
		},
		"EtcdStarts": {
			reason: "Every member restored: etcd starts first, kcp still held.",
			inst:   restoring,
			world:  restoreWorld{etcd: &stoppedEtcd, jobs: map[string]string{"check": "Complete", "0": "Complete", "1": "Complete", "2": "Complete"}, rootShardAvailable: 0, proxyAvailable: 0},
			want:   want{phase: v1alpha1.RestoreStarting, message: "0 of 3 members", jobs: []string{"check", "0", "1", "2"}, etcd: 3, servers: &zero, proxies: &zero},
		},
		"ServersStart": {
			reason: "etcd ready: kcp's servers start, the front-proxies still held.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, jobs: map[string]string{"check": "Complete", "0": "Complete", "1": "Complete", "2": "Complete"}, rootShardAvailable: 0, proxyAvailable: 0},
			want:   want{phase: v1alpha1.RestoreStarting, message: "waiting for RootShard team-a to serve", jobs: []string{"check", "0", "1", "2"}, etcd: 3, servers: &two, proxies: &zero},
		},
		"ServersSeenFromBefore": {
			reason: "A root shard Ready for the generation that held it at zero, not for the one that started it, does not serve yet.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, jobs: map[string]string{"check": "Complete", "0": "Complete", "1": "Complete", "2": "Complete"}, rootShardAvailable: 2, proxyAvailable: 0, stale: true},
			want:   want{phase: v1alpha1.RestoreStarting, message: "waiting for RootShard team-a to serve", jobs: []string{"check", "0", "1", "2"}, etcd: 3, servers: &two, proxies: &zero},
		},
		"ProxiesStart": {
			reason: "The root shard serves: the front-proxies start last, their replicas said out loud (a kind keeps the live count, the zero they were held at). Not Restored until they serve.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, jobs: map[string]string{"check": "Complete", "0": "Complete", "1": "Complete", "2": "Complete"}, rootShardAvailable: 1, proxyAvailable: 0},
			want:   want{phase: v1alpha1.RestoreStarting, message: "the front-proxies start", jobs: []string{"check", "0", "1", "2"}, etcd: 3, servers: &two, proxies: &two},
		},
		"Restored": {
			reason: "Every component Ready again, the front-proxies seen with their replicas back: Restored, written to status; the Jobs are composed until that is read back.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, jobs: map[string]string{"check": "Complete", "0": "Complete", "1": "Complete", "2": "Complete"}, rootShardAvailable: 2, proxyAvailable: 2, ready: true},
			want:   want{phase: v1alpha1.RestoreRestored, message: "restored: remove spec.etcd.managed.restore", jobs: []string{"check", "0", "1", "2"}, etcd: 3, servers: &two, proxies: &two},
		},
		"RestoredRecorded": {
			reason: "Once status says Restored, no Job is composed and nothing is held: the record keeps the restore from running twice.",
			inst:   restoring,
			world:  restoreWorld{etcd: &running, rootShardAvailable: 2, proxyAvailable: 2, before: []v1alpha1.InstallationRestore{{Cluster: "team-a-etcd", Snapshot: snapshot, Phase: v1alpha1.RestoreRestored}}},
			want:   want{phase: v1alpha1.RestoreRestored, message: "remove spec.etcd.managed.restore", etcd: 3},
		},
		"StoppedStaysStopped": {
			reason: "After a failed restore another snapshot is checked with everything still stopped: the members' data may be half-restored.",
			inst: func() *v1alpha1.KcpInstallation {
				i := restoring()
				i.Spec.Etcd.Managed.Restore.Snapshot = otherSnapshot
				return i
			},
			world: restoreWorld{etcd: &stoppedEtcd, rootShardAvailable: 0, proxyAvailable: 0, before: []v1alpha1.InstallationRestore{{Cluster: "team-a-etcd", Snapshot: snapshot, Phase: v1alpha1.RestoreFailed}}},
			want:  want{phase: v1alpha1.RestoreChecking, otherJobs: []string{"check"}, etcd: 0, servers: &zero, proxies: &zero, suspended: true},
		},
		"StaysStoppedWhileChecking": {
			reason: "Checking another snapshot after a failure, on a later reconcile: the status says Checking, but the members are held at zero, so everything stays stopped.",
			inst: func() *v1alpha1.KcpInstallation {
				i := restoring()
				i.Spec.Etcd.Managed.Restore.Snapshot = otherSnapshot
				return i
			},
			world: restoreWorld{etcd: &stoppedEtcd, rootShardAvailable: 0, proxyAvailable: 0, before: []v1alpha1.InstallationRestore{{Cluster: "team-a-etcd", Snapshot: otherSnapshot, Phase: v1alpha1.RestoreChecking}}},
			want:  want{phase: v1alpha1.RestoreChecking, otherJobs: []string{"check"}, etcd: 0, servers: &zero, proxies: &zero, suspended: true},
		},
		"RemovedWhileRestoring": {
			reason: "Removing a restore whose Jobs write into the members' volumes would start etcd on half-written data: refused, nothing composed.",
			inst:   func() *v1alpha1.KcpInstallation { i := restoring(); i.Spec.Etcd.Managed.Restore = nil; return i },
			world:  restoreWorld{etcd: &stoppedEtcd, rootShardAvailable: 0, proxyAvailable: 0, before: []v1alpha1.InstallationRestore{{Cluster: "team-a-etcd", Snapshot: snapshot, Phase: v1alpha1.RestoreRestoring}}},
			want:   want{errs: []string{"spec.etcd.managed.restore: Forbidden: the restore of team-a-etcd from " + snapshot + " is at step Restoring"}},
		},
		"ReplacedWhileRestoring": {
			reason: "So would another snapshot.",
			inst: func() *v1alpha1.KcpInstallation {
				i := restoring()
				i.Spec.Etcd.Managed.Restore.Snapshot = otherSnapshot
				return i
			},
			world: restoreWorld{etcd: &stoppedEtcd, rootShardAvailable: 0, proxyAvailable: 0, before: []v1alpha1.InstallationRestore{{Cluster: "team-a-etcd", Snapshot: snapshot, Phase: v1alpha1.RestoreRestoring}}},
			want:  want{errs: []string{"spec.etcd.managed.restore: Forbidden: the restore of team-a-etcd from " + snapshot + " is at step Restoring"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := tc.inst()
			r, errs := Compose(inst, tc.world.state(t, inst), frontProxyNameLength)
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if len(gotErrs) != len(tc.want.errs) || (len(gotErrs) > 0 && !strings.HasPrefix(gotErrs[0], tc.want.errs[0])) {
				t.Fatalf("%s\nCompose(...): errors %q, want %q...", tc.reason, gotErrs, tc.want.errs)
			}
			if len(errs) > 0 {
				if n := len(r.Desired.Objects()); n > 0 {
					t.Errorf("%s\nrefused but desired %d objects", tc.reason, n)
				}
				return
			}
			if len(r.Status.Restores) != 1 {
				t.Fatalf("%s\nstatus.restores = %+v, want one", tc.reason, r.Status.Restores)
			}
			got := r.Status.Restores[0]
			if got.Phase != tc.want.phase || !strings.Contains(got.Message, tc.want.message) {
				t.Errorf("%s\nstatus.restores[0] = %s %q, want %s with %q", tc.reason, got.Phase, got.Message, tc.want.phase, tc.want.message)
			}
			var wantJobs []string
			for _, s := range tc.want.jobs {
				wantJobs = append(wantJobs, "Job/team-a-etcd-restore-"+restoreID+"-"+s)
			}
			for _, s := range tc.want.otherJobs {
				wantJobs = append(wantJobs, "Job/team-a-etcd-restore-"+otherRestoreID+"-"+s)
			}
			if diff := cmp.Diff(wantJobs, kindNames(r, "Job")); diff != "" {
				t.Errorf("%s\nrestore Jobs: -want, +got:\n%s", tc.reason, diff)
			}
			if got := statefulSetReplicas(t, r.Desired); got != tc.want.etcd {
				t.Errorf("%s\nStatefulSet replicas %d, want %d", tc.reason, got, tc.want.etcd)
			}
			if diff := cmp.Diff(tc.want.servers, childSpec[v1alpha1.RootShardSpec](t, r, "team-a").Replicas); diff != "" {
				t.Errorf("%s\nRootShard replicas: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.proxies, childSpec[v1alpha1.FrontProxySpec](t, r, "team-a-public").Replicas); diff != "" {
				t.Errorf("%s\nFrontProxy replicas: -want, +got:\n%s", tc.reason, diff)
			}
			if got := cronJobSuspended(t, r.Desired); got != tc.want.suspended {
				t.Errorf("%s\nbackup CronJob suspended %v, want %v", tc.reason, got, tc.want.suspended)
			}
		})
	}
}

// TestRestoreRefusals: a restore with nowhere to read from, or a snapshot that is not this
// cluster's, is refused naming the field; so is a second restore while one is under way.
//
// restore.snapshot, as a tenant sees it: anyone who may write the KcpInstallation (or its
// claim) sets it; the schema admits 253 characters matching <cluster>/<file>.db, and the
// function only this cluster's own directory. It issues no certificate and names no identity.
// Its cost falls on the installation's own namespace: a check Job and a Job per member (at most
// 3), reading the installation's own backup claim and writing the members' own claims; no
// shared object reads it. The platform's policy does not gate it: it restores the team's own
// data from the team's own storage, and its Jobs run as the members do.
func TestRestoreRefusals(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   string
	}{
		"NoBackup": {
			reason: "The snapshot is read from the backups' volume.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.Etcd.Managed.Backup = nil },
			want:   "spec.etcd.managed.backup: Required value: a restore reads the snapshot from the backups' volume",
		},
		"AnotherClustersSnapshot": {
			reason: "A shard's etcd holds other data: restoring it here would put the shard's keys in the root shard's etcd.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.Etcd.Managed.Restore.Snapshot = "team-a-beta-etcd/x.db" },
			want:   `spec.etcd.managed.restore.snapshot: Invalid value: "team-a-beta-etcd/x.db": name a snapshot of this cluster's backups, team-a-etcd/<file>.db`,
		},
		"OutOfTheDirectory": {
			reason: "A hostile path is refused even where the schema was skipped (a render).",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.Etcd.Managed.Restore.Snapshot = "team-a-etcd/../../etc/passwd.db"
			},
			want: `spec.etcd.managed.restore.snapshot: Invalid value: "team-a-etcd/../../etc/passwd.db"`,
		},
		"NotASnapshot": {
			reason: "The backups write .db files.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.Etcd.Managed.Restore.Snapshot = "team-a-etcd/notes.txt" },
			want:   `spec.etcd.managed.restore.snapshot: Invalid value: "team-a-etcd/notes.txt"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := restoring()
			tc.mod(inst)
			errs := Validate(inst)
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
				t.Errorf("%s\nValidate(...) = %v, want one error starting %q", tc.reason, errs, tc.want)
			}
		})
	}

	t.Run("OneAtATime", func(t *testing.T) {
		inst := restoring()
		inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "beta", ManagedEtcd: &v1alpha1.ManagedEtcd{
			Backup:  &v1alpha1.ManagedEtcdBackup{Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "backups"}},
			Restore: &v1alpha1.ManagedEtcdRestore{Snapshot: "team-a-beta-etcd/x.db"},
		}}}
		_, errs := Compose(inst, restoreWorld{rootShardAvailable: -1, proxyAvailable: 2}.state(t, inst), frontProxyNameLength)
		want := "spec.shards[0].managedEtcd.restore: Forbidden: the restore of team-a-etcd is under way: one restore at a time"
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
			t.Errorf("a second restore while one is under way: Compose(...) errors %v, want one starting %q", errs, want)
		}
	})
}

// kindNames lists what r desires of kind, as kind/name, in order.
func kindNames(r result.Result[v1alpha1.KcpInstallationStatus], kind string) []string {
	var out []string
	for _, n := range desiredKinds(r) {
		if strings.HasPrefix(n, kind+"/") {
			out = append(out, n)
		}
	}
	return out
}

func statefulSetReplicas(t *testing.T, set desired.Set) int32 {
	t.Helper()
	o, ok := set.Get(keyEtcd)
	if !ok {
		t.Fatal("no etcd StatefulSet desired")
	}
	u, err := desired.ToComposed(o.Resource)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := u.Object["spec"].(map[string]any)
	switch n := spec["replicas"].(type) {
	case int64:
		return int32(n)
	case float64:
		return int32(n)
	}
	t.Fatalf("StatefulSet spec.replicas %v", spec["replicas"])
	return 0
}

func cronJobSuspended(t *testing.T, set desired.Set) bool {
	t.Helper()
	o, ok := set.Get(resource.Name("cronjob-etcd-backup"))
	if !ok {
		t.Fatalf("no backup CronJob desired")
	}
	u, err := desired.ToComposed(o.Resource)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := u.Object["spec"].(map[string]any)
	s, _ := spec["suspend"].(bool)
	return s
}

// TestHoldReleasesToEachKindsDefault: a restore starting a child again says its replicas out
// loud with one default; it must be each held kind's own.
func TestHoldReleasesToEachKindsDefault(t *testing.T) {
	if cache.DefaultExternalReplicas != builder.DefaultReplicas {
		t.Errorf("a cache server in etcd defaults to %d replicas, every other kind to %d: hold would start it with the wrong count", cache.DefaultExternalReplicas, builder.DefaultReplicas)
	}
}
