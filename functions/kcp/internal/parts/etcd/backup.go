package etcd

import (
	"maps"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Defaults of a cluster's backups.
const (
	// DefaultBackupSchedule takes a snapshot every six hours.
	DefaultBackupSchedule = "0 */6 * * *"
	// DefaultBackupRetention keeps the seven newest snapshots: with the default schedule,
	// the last 42 hours.
	DefaultBackupRetention = 7
	// DefaultBackupImage has the POSIX shell the etcd image lacks (it is distroless), to
	// create the snapshot directory and prune old snapshots.
	DefaultBackupImage = "docker.io/library/busybox:1.37.0"
	// BackupTimeZone is the zone the schedule is read in.
	BackupTimeZone = "Etc/UTC"

	// ComponentEtcdBackup is the app.kubernetes.io/component of a backup pod: not etcd's, so
	// that the cluster's Services never select it.
	ComponentEtcdBackup = "etcd-backup"

	// BackupMount is where the backup pod mounts the user's PersistentVolumeClaim; each
	// cluster writes under a directory of its own name (BackupDir).
	BackupMount = "/backup"
	clientTLS   = "/etc/etcd/tls/client"
	etcdctl     = "/usr/local/bin/etcdctl"

	// Bounds of a backup Job: a snapshot that takes an hour is stuck; a run more than ten
	// minutes late is skipped, the next one catches up.
	backupDeadlineSeconds  = 3600
	backupStartingDeadline = 600
	backupBackoffLimit     = 2
	backupHistory          = 3
)

// PruneScript keeps the newest $2 snapshots (*.db, by modification time) in directory $1
// and removes what interrupted runs left (*.part, which etcdctl renames when a snapshot is
// complete). Only one backup runs at a time (concurrencyPolicy Forbid), so no snapshot is
// being written meanwhile.
const PruneScript = `set -eu
cd "$1"
rm -f -- *.part
ls -1t -- *.db | tail -n +"$(($2 + 1))" | while read -r old; do
  rm -f -- "$old"
  echo "pruned $old"
done
ls -l`

// BackupDir is the directory, in the backup volume, of the cluster's snapshots.
func (c Cluster) BackupDir() string { return BackupMount + "/" + c.Names.Name() }

// BackupCronJob takes the cluster's snapshots (spec.backup, which must be set). It runs, in
// one pod: an init container that creates the cluster's directory
// in the volume (the shell image), an init container that saves a snapshot into it with
// etcdctl (the cluster's etcd image, with the client certificate kcp uses), and, once the
// snapshot is complete, a container that prunes to the retention (the shell image). The
// snapshot is named after the pod: <cronjob>-<scheduled minute>-<suffix>.db, unique per run
// and per retry.
func (c Cluster) BackupCronJob() *batchv1.CronJob {
	bk := c.Spec.Backup
	labels := names.Labels(c.Names.Instance(), ComponentEtcdBackup)
	schedule := bk.Schedule
	if schedule == "" {
		schedule = DefaultBackupSchedule
	}
	retention := int32(DefaultBackupRetention)
	if bk.Retention != nil {
		retention = *bk.Retention
	}
	shell, image := c.shellImage(), c.image()
	var mounts workload.Mounts
	mounts.Secret("client-tls", c.Names.ClientSecret(), clientTLS)
	backup := corev1.VolumeMount{Name: "backup", MountPath: BackupMount}
	volumes := append(mounts.Volumes(), corev1.Volume{Name: "backup", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: bk.Volume.ClaimName},
	}})
	zone := BackupTimeZone
	deadline, starting := int64(backupDeadlineSeconds), int64(backupStartingDeadline)
	backoff, history := int32(backupBackoffLimit), int32(backupHistory)

	pod := corev1.PodSpec{
		RestartPolicy:                corev1.RestartPolicyNever,
		SecurityContext:              c.podSecurityContext(),
		AutomountServiceAccountToken: workload.NoServiceAccountToken(),
		InitContainers: []corev1.Container{{
			Name:            "prepare",
			Image:           shell,
			Command:         []string{"mkdir", "-p", c.BackupDir()},
			SecurityContext: workload.ContainerSecurityContext(),
			VolumeMounts:    []corev1.VolumeMount{backup},
		}, {
			Name:    "snapshot",
			Image:   image,
			Command: c.SnapshotCommand(),
			Env: []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"},
			}}},
			SecurityContext: workload.ContainerSecurityContext(),
			VolumeMounts:    append(mounts.VolumeMounts(), backup),
		}},
		Containers: []corev1.Container{{
			Name:            "prune",
			Image:           shell,
			Command:         []string{"/bin/sh", "-c", PruneScript, "prune", c.BackupDir(), strconv.Itoa(int(retention))},
			SecurityContext: workload.ContainerSecurityContext(),
			VolumeMounts:    []corev1.VolumeMount{backup},
		}},
		Volumes: volumes,
	}
	workload.ApplyScheduling(&pod, c.Scheduling)
	return &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Names.BackupCronJob(), Namespace: c.Namespace, Labels: labels},
		Spec: batchv1.CronJobSpec{
			Schedule:                   schedule,
			Suspend:                    suspend(c.Stopped),
			TimeZone:                   &zone,
			StartingDeadlineSeconds:    &starting,
			ConcurrencyPolicy:          batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: &history,
			FailedJobsHistoryLimit:     &history,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: batchv1.JobSpec{
					BackoffLimit:          &backoff,
					ActiveDeadlineSeconds: &deadline,
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
						Spec:       pod,
					},
				},
			},
		},
	}
}

// SnapshotCommand is the snapshot container's command: etcdctl saves a snapshot of the
// cluster, through its client Service, into <BackupDir>/$(POD_NAME).db, which the kubelet
// expands from the pod's name.
func (c Cluster) SnapshotCommand() []string {
	return []string{
		etcdctl,
		"--endpoints=" + c.Client("").Endpoints[0],
		"--cacert=" + clientTLS + "/ca.crt",
		"--cert=" + clientTLS + "/tls.crt",
		"--key=" + clientTLS + "/tls.key",
		"--dial-timeout=30s",
		"snapshot", "save", c.BackupDir() + "/$(POD_NAME).db",
	}
}

// suspend is the CronJob's suspend: set only while the cluster is stopped, so that a CronJob
// composed before restores existed is unchanged.
func suspend(stopped bool) *bool {
	if !stopped {
		return nil
	}
	return &stopped
}
