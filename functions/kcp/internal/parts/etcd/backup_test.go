package etcd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func backup(claim string) *v1alpha1.ManagedEtcdBackup {
	return &v1alpha1.ManagedEtcdBackup{Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: claim}}
}

// TestBackupCronJob checks the CronJob's schedule, images, commands and destination.
func TestBackupCronJob(t *testing.T) {
	seven, two := int32(7), int32(2)
	type want struct {
		name, schedule      string
		retention           string
		claim               string
		shellImage, etcdImg string
		snapshot            []string
		prepare             []string
		prunePath           string
	}
	cases := map[string]struct {
		reason string
		shard  string
		spec   v1alpha1.ManagedEtcd
		want   want
	}{
		"Defaults": {
			reason: "Every six hours, seven kept, busybox to prune, etcdctl of the default etcd image through the client Service.",
			spec:   v1alpha1.ManagedEtcd{Backup: backup("etcd-backups")},
			want: want{
				name: "dev-etcd-backup", schedule: DefaultBackupSchedule, retention: "7", claim: "etcd-backups",
				shellImage: DefaultBackupImage, etcdImg: DefaultImage,
				snapshot: []string{
					"/usr/local/bin/etcdctl", "--endpoints=https://dev-etcd.team-a.svc.cluster.local:2379",
					"--cacert=/etc/etcd/tls/client/ca.crt", "--cert=/etc/etcd/tls/client/tls.crt", "--key=/etc/etcd/tls/client/tls.key",
					"--dial-timeout=30s", "snapshot", "save", "/backup/dev-etcd/$(POD_NAME).db",
				},
				prepare:   []string{"mkdir", "-p", "/backup/dev-etcd"},
				prunePath: "/backup/dev-etcd",
			},
		},
		"ShardClusterSet": {
			reason: "A shard's cluster writes into a directory of its own; the user's schedule, retention and images are used.",
			shard:  "beta",
			spec: v1alpha1.ManagedEtcd{Image: "registry.example.com/etcd:v3.5.28", Backup: &v1alpha1.ManagedEtcdBackup{
				Schedule: "@daily", Retention: &two, Image: "registry.example.com/busybox:1.37.0",
				Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "s3-bucket"},
			}},
			want: want{
				name: "dev-beta-etcd-backup", schedule: "@daily", retention: "2", claim: "s3-bucket",
				shellImage: "registry.example.com/busybox:1.37.0", etcdImg: "registry.example.com/etcd:v3.5.28",
				snapshot: []string{
					"/usr/local/bin/etcdctl", "--endpoints=https://dev-beta-etcd.team-a.svc.cluster.local:2379",
					"--cacert=/etc/etcd/tls/client/ca.crt", "--cert=/etc/etcd/tls/client/tls.crt", "--key=/etc/etcd/tls/client/tls.key",
					"--dial-timeout=30s", "snapshot", "save", "/backup/dev-beta-etcd/$(POD_NAME).db",
				},
				prepare:   []string{"mkdir", "-p", "/backup/dev-beta-etcd"},
				prunePath: "/backup/dev-beta-etcd",
			},
		},
		"RetentionSeven": {
			reason: "An explicit retention equal to the default is the default.",
			spec:   v1alpha1.ManagedEtcd{Backup: &v1alpha1.ManagedEtcdBackup{Retention: &seven, Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "b"}}},
			want: want{
				name: "dev-etcd-backup", schedule: DefaultBackupSchedule, retention: "7", claim: "b",
				shellImage: DefaultBackupImage, etcdImg: DefaultImage,
				snapshot: []string{
					"/usr/local/bin/etcdctl", "--endpoints=https://dev-etcd.team-a.svc.cluster.local:2379",
					"--cacert=/etc/etcd/tls/client/ca.crt", "--cert=/etc/etcd/tls/client/tls.crt", "--key=/etc/etcd/tls/client/tls.key",
					"--dial-timeout=30s", "snapshot", "save", "/backup/dev-etcd/$(POD_NAME).db",
				},
				prepare:   []string{"mkdir", "-p", "/backup/dev-etcd"},
				prunePath: "/backup/dev-etcd",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(tc.spec)
			c.Names.Shard = tc.shard
			cj := c.BackupCronJob()
			pod := cj.Spec.JobTemplate.Spec.Template.Spec
			if len(pod.InitContainers) != 2 || len(pod.Containers) != 1 {
				t.Fatalf("%s\nwant init containers prepare and snapshot, then prune; got %d init, %d containers", tc.reason, len(pod.InitContainers), len(pod.Containers))
			}
			prepare, snap, prune := pod.InitContainers[0], pod.InitContainers[1], pod.Containers[0]
			got := want{
				name: cj.Name, schedule: cj.Spec.Schedule, shellImage: prune.Image, etcdImg: snap.Image,
				snapshot: snap.Command, prepare: prepare.Command,
			}
			if n := len(prune.Command); n == 6 && prune.Command[0] == "/bin/sh" && prune.Command[2] == PruneScript {
				got.prunePath, got.retention = prune.Command[4], prune.Command[5]
			}
			for _, v := range pod.Volumes {
				if v.PersistentVolumeClaim != nil {
					got.claim = v.PersistentVolumeClaim.ClaimName
				}
			}
			if prepare.Image != prune.Image {
				t.Errorf("%s\nprepare runs %s, prune %s: both the shell image", tc.reason, prepare.Image, prune.Image)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nBackupCronJob(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestBackupCronJobSafety: one run at a time, bounded history and runtime, no Service of the
// cluster selects its pods, restricted pod security, and the etcd members' scheduling.
func TestBackupCronJobSafety(t *testing.T) {
	c := cluster(v1alpha1.ManagedEtcd{Backup: backup("b")})
	tolerations := []corev1.Toleration{{Key: "storage", Operator: corev1.TolerationOpExists}}
	c.Scheduling = &v1alpha1.Scheduling{NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: tolerations}
	cj := c.BackupCronJob()
	s := cj.Spec
	type want struct {
		Concurrency            batchv1.ConcurrencyPolicy
		TimeZone               string
		Successful, Failed     int32
		Backoff                int32
		Deadline, StartingLate int64
		Restart                corev1.RestartPolicy
		Component              string
		NodeSelector           map[string]string
		Tolerations            []corev1.Toleration
		Token                  bool
		RunAsUser              int64
	}
	pod := s.JobTemplate.Spec.Template
	got := want{
		Concurrency: s.ConcurrencyPolicy, TimeZone: *s.TimeZone,
		Successful: *s.SuccessfulJobsHistoryLimit, Failed: *s.FailedJobsHistoryLimit,
		Backoff: *s.JobTemplate.Spec.BackoffLimit, Deadline: *s.JobTemplate.Spec.ActiveDeadlineSeconds, StartingLate: *s.StartingDeadlineSeconds,
		Restart: pod.Spec.RestartPolicy, Component: pod.Labels["app.kubernetes.io/component"],
		NodeSelector: pod.Spec.NodeSelector, Tolerations: pod.Spec.Tolerations,
		Token: *pod.Spec.AutomountServiceAccountToken, RunAsUser: *pod.Spec.SecurityContext.RunAsUser,
	}
	wantSafe := want{
		Concurrency: batchv1.ForbidConcurrent, TimeZone: "Etc/UTC", Successful: 3, Failed: 3, Backoff: 2, Deadline: 3600, StartingLate: 600,
		Restart: corev1.RestartPolicyNever, Component: ComponentEtcdBackup,
		NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: tolerations, RunAsUser: 65532,
	}
	if diff := cmp.Diff(wantSafe, got); diff != "" {
		t.Errorf("BackupCronJob(): -want, +got:\n%s", diff)
	}
	if sc := pod.Spec.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.FSGroup == nil {
		t.Errorf("pod security context %+v, want non-root with an fsGroup for the volume", sc)
	}
	for _, ctr := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		sc := ctr.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || len(sc.Capabilities.Drop) == 0 {
			t.Errorf("container %s: security context %+v, want restricted", ctr.Name, sc)
		}
	}
	for _, sel := range []map[string]string{c.ClientService().Spec.Selector, c.MembersService().Spec.Selector} {
		if sel["app.kubernetes.io/component"] == pod.Labels["app.kubernetes.io/component"] {
			t.Errorf("the client Service selects the backup pods")
		}
	}
}
