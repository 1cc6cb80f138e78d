package kcpinstallation

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func etcdBackup(claim string) *v1alpha1.ManagedEtcdBackup {
	return &v1alpha1.ManagedEtcdBackup{Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: claim}}
}

// TestValidateBackup: each backup field is checked where the installation's user wrote it,
// for the installation's cluster and a shard's.
func TestValidateBackup(t *testing.T) {
	zero := int32(0)
	cases := map[string]struct {
		reason string
		name   string
		root   *v1alpha1.ManagedEtcdBackup
		shard  *v1alpha1.ManagedEtcdBackup
		want   []string
	}{
		"Valid": {
			reason: "A claim and the defaults.",
			root:   etcdBackup("etcd-backups"),
			shard:  &v1alpha1.ManagedEtcdBackup{Schedule: "@hourly", Image: "docker.io/library/busybox:1.37.0", Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "b"}},
		},
		"BadSchedule": {
			reason: "A schedule the CronJob would refuse is refused on the installation's field.",
			root:   &v1alpha1.ManagedEtcdBackup{Schedule: "every day", Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "b"}},
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "every day": must be a cron schedule of five fields`},
		},
		"ShardScheduleWithZone": {
			reason: "A shard's cluster is checked at its index.",
			shard:  &v1alpha1.ManagedEtcdBackup{Schedule: "TZ=UTC 0 * * * *", Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "b"}},
			want:   []string{`spec.shards[0].managedEtcd.backup.schedule: Invalid value: "TZ=UTC 0 * * * *": must not carry a time zone`},
		},
		"NoSnapshotKept": {
			reason: "A retention of zero would delete the snapshot just taken.",
			root:   &v1alpha1.ManagedEtcdBackup{Retention: &zero, Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "b"}},
			want:   []string{`spec.etcd.managed.backup.retention: Invalid value: 0: must keep at least one snapshot`},
		},
		"NoClaim": {
			reason: "The destination is required.",
			root:   etcdBackup(""),
			want:   []string{`spec.etcd.managed.backup.volume.claimName: Required value: name the PersistentVolumeClaim`},
		},
		"BadClaimAndImage": {
			reason: "A claim name and a shell image the API server would refuse.",
			root:   &v1alpha1.ManagedEtcdBackup{Image: "busybox latest", Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "Backups"}},
			want: []string{
				`spec.etcd.managed.backup.image: Invalid value: "busybox latest": must be an image reference`,
				`spec.etcd.managed.backup.volume.claimName: Invalid value: "Backups": a lowercase RFC 1123 subdomain`,
			},
		},
		"CronJobNameTooLong": {
			reason: "<installation>-<shard>-etcd-backup over 52 characters: say which names to shorten.",
			name:   strings.Repeat("i", 40),
			shard:  etcdBackup("b"),
			want:   []string{`spec.shards[0].managedEtcd.backup: Invalid value: "` + strings.Repeat("i", 40) + `-beta-etcd-backup": the backup CronJob ` + strings.Repeat("i", 40) + `-beta-etcd-backup would be longer than the 52 characters a CronJob name may have: shorten this KcpInstallation's metadata.name or the shard's name`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := smallest()
			if tc.name != "" {
				inst.Name = tc.name
			}
			if tc.root != nil {
				inst.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{Backup: tc.root}}
			}
			if tc.shard != nil {
				inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "beta", ManagedEtcd: &v1alpha1.ManagedEtcd{Backup: tc.shard}}}
			}
			errs := Validate(inst)
			if len(errs) != len(tc.want) {
				t.Fatalf("%s\nValidate(): got %v, want %d errors starting %q", tc.reason, errs, len(tc.want), tc.want)
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Errorf("%s\nValidate()[%d]:\n got: %s\nwant: %s...", tc.reason, i, e.Error(), tc.want[i])
				}
			}
		})
	}
}

// TestBackupsStatus: status.backups lists every cluster with backup, the installation's
// first, with what its observed CronJob reports; a cluster without backup is not listed.
func TestBackupsStatus(t *testing.T) {
	inst := smallest()
	inst.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{Backup: etcdBackup("b")}}
	inst.Spec.Shards = []v1alpha1.InstallationShard{
		{Name: "alpha", ManagedEtcd: &v1alpha1.ManagedEtcd{}},
		{Name: "beta", ManagedEtcd: &v1alpha1.ManagedEtcd{Backup: etcdBackup("b")}},
	}
	cj := resource.NewUnstructured()
	cj.SetAPIVersion("batch/v1")
	cj.SetKind("CronJob")
	cj.Object["status"] = map[string]any{"lastScheduleTime": "2026-05-01T06:00:00Z", "lastSuccessfulTime": "2026-05-01T06:00:41Z"}
	r, errs := Compose(inst, observed.New(map[resource.Name]*resource.Unstructured{"cronjob-etcd-backup": cj}), frontProxyNameLength)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	at := func(s string) *metav1.Time {
		tm, _ := time.Parse(time.RFC3339, s)
		mt := metav1.NewTime(tm)
		return &mt
	}
	want := []v1alpha1.InstallationBackup{
		{Cluster: "team-a-etcd", CronJob: "team-a-etcd-backup", LastScheduleTime: at("2026-05-01T06:00:00Z"), LastSuccessfulTime: at("2026-05-01T06:00:41Z")},
		{Cluster: "team-a-beta-etcd", CronJob: "team-a-beta-etcd-backup"},
	}
	if diff := cmp.Diff(want, r.Status.Backups); diff != "" {
		t.Errorf("status.backups: -want, +got:\n%s", diff)
	}
	if !r.Desired.Has("cronjob-etcd-backup") {
		t.Errorf("the observed CronJob is not composed again: %v", r.Desired.Names())
	}
	composed, err := r.Desired.Composed()
	if err != nil {
		t.Fatalf("Composed(): %v", err)
	}
	if got := composed["cronjob-etcd-backup"].Resource.GetKind(); got != "CronJob" {
		t.Errorf("cronjob-etcd-backup converts to kind %q, want CronJob", got)
	}
}
