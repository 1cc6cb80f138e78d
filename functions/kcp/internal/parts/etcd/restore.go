package etcd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

const (
	// ComponentEtcdRestore is the app.kubernetes.io/component of a restore pod: not etcd's,
	// so that the cluster's Services never select it.
	ComponentEtcdRestore = "etcd-restore"
	etcdutl              = "/usr/local/bin/etcdutl"
	// restoreBumpRevision moves etcd's revision past any kcp or its clients saw before the
	// restore, so that their watches start over instead of waiting for revisions the
	// snapshot does not have (with --mark-compacted; etcdutl v3.5.10 or newer).
	restoreBumpRevision = "1000000000"
	// A restore Job is not retried: its pod says what failed, and a second try of a broken
	// snapshot would fail alike.
	restoreBackoffLimit = 0
)

// SwapScript, run in the member's volume ($1, the data directory's parent) once etcdutl has
// restored into restore-$2, puts the restored data in place of the member's: the member's
// data moves aside to data.before-restore (the way back, until the next restore), the
// restored directory becomes data, and restored-$2 marks the restore done. A member already
// marked is left as it is, so a Job run again never restores twice over data written since.
const SwapScript = `set -eu
cd "$1"
if [ -e "restored-$2" ]; then
  rm -rf -- "restore-$2"
  echo "member already restored from this snapshot: left as it is"
  exit 0
fi
rm -rf -- data.before-restore
if [ -d data ]; then mv -- data data.before-restore; fi
mv -- "restore-$2" data
touch -- "restored-$2"
echo "restored; the member's previous data is in data.before-restore"`

// Restore is the restore of one snapshot into a cluster: its Jobs' names carry ID, a digest
// of the snapshot, so that another snapshot gets Jobs of its own.
type Restore struct {
	Cluster Cluster
	// Snapshot is spec.restore.snapshot: <cluster>/<file>.db in the backup volume.
	Snapshot string
	ID       string
}

// NewRestore is the restore of snapshot into c.
func NewRestore(c Cluster, snapshot string) Restore {
	return Restore{Cluster: c, Snapshot: snapshot, ID: RestoreID(snapshot)}
}

// RestoreID is the digest of snapshot that names its restore's Jobs.
func RestoreID(snapshot string) string {
	sum := sha256.Sum256([]byte(snapshot))
	return hex.EncodeToString(sum[:])[:8]
}

// RestoreJobNames are the names of the Jobs a restore of snapshot into a cluster of members
// composes.
func RestoreJobNames(e names.Etcd, members int32, snapshot string) []string {
	id := RestoreID(snapshot)
	out := []string{e.RestoreCheckJob(id)}
	for m := range members {
		out = append(out, e.RestoreJob(id, m))
	}
	return out
}

// snapshotPath is where the restore pods see the snapshot.
func (r Restore) snapshotPath() string { return BackupMount + "/" + r.Snapshot }

// CheckJob reads the snapshot with etcdutl snapshot status, which verifies its integrity
// hash, before anything is stopped: a snapshot that is missing or damaged fails here.
func (r Restore) CheckJob() *batchv1.Job {
	c := r.Cluster
	pod := r.pod([]corev1.Container{{
		Name:            "check",
		Image:           c.image(),
		Command:         []string{etcdutl, "snapshot", "status", r.snapshotPath(), "--write-out=table"},
		SecurityContext: workload.ContainerSecurityContext(),
		VolumeMounts:    []corev1.VolumeMount{backupReadOnly()},
	}}, nil)
	return r.job(c.Names.RestoreCheckJob(r.ID), pod)
}

// MemberJob restores the snapshot into member's volume while the cluster is stopped: a
// shell container clears what an interrupted run left, etcdutl restores into a directory
// beside the member's data with the flags the StatefulSet starts that member with, and a
// shell container swaps it in (SwapScript). Until the swap the member's data is untouched.
func (r Restore) MemberJob(member int32) *batchv1.Job {
	c := r.Cluster
	data := corev1.VolumeMount{Name: "data", MountPath: dataDir}
	restoring := dataDir + "/restore-" + r.ID
	shell := c.shellImage()
	init := []corev1.Container{{
		Name:            "prepare",
		Image:           shell,
		Command:         []string{"rm", "-rf", "--", restoring},
		SecurityContext: workload.ContainerSecurityContext(),
		VolumeMounts:    []corev1.VolumeMount{data},
	}, {
		Name:            "restore",
		Image:           c.image(),
		Command:         append([]string{etcdutl, "snapshot", "restore", r.snapshotPath(), "--data-dir=" + restoring}, r.memberFlags(member)...),
		SecurityContext: workload.ContainerSecurityContext(),
		VolumeMounts:    []corev1.VolumeMount{data, backupReadOnly()},
	}}
	swap := []corev1.Container{{
		Name:            "swap",
		Image:           shell,
		Command:         []string{"/bin/sh", "-c", SwapScript, "swap", dataDir, r.ID},
		SecurityContext: workload.ContainerSecurityContext(),
		VolumeMounts:    []corev1.VolumeMount{data},
	}}
	pod := r.pod(swap, init)
	pod.Volumes = append(pod.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Names.MemberClaim(member)},
	}})
	return r.job(c.Names.RestoreJob(r.ID, member), pod)
}

// memberFlags are the cluster flags member starts with (Args), for etcdutl to write into
// the restored data: its name, its peer URL, the initial cluster and its token.
func (r Restore) memberFlags(member int32) []string {
	c := r.Cluster
	return []string{
		fmt.Sprintf("--name=%s-%d", c.Names.Name(), member),
		"--initial-cluster=" + c.initialCluster(),
		"--initial-cluster-token=" + c.Names.Name(),
		"--initial-advertise-peer-urls=" + c.peerURL(member),
		"--bump-revision=" + restoreBumpRevision,
		"--mark-compacted",
	}
}

// pod is a restore pod: the members' security context and scheduling, no service account
// token, the backup volume read-only.
func (r Restore) pod(containers, init []corev1.Container) corev1.PodSpec {
	c := r.Cluster
	pod := corev1.PodSpec{
		RestartPolicy:                corev1.RestartPolicyNever,
		SecurityContext:              c.podSecurityContext(),
		AutomountServiceAccountToken: workload.NoServiceAccountToken(),
		InitContainers:               init,
		Containers:                   containers,
		Volumes: []corev1.Volume{{Name: "backup", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Spec.Backup.Volume.ClaimName, ReadOnly: true},
		}}},
	}
	workload.ApplyScheduling(&pod, c.Scheduling)
	return pod
}

func (r Restore) job(name string, pod corev1.PodSpec) *batchv1.Job {
	labels := names.Labels(r.Cluster.Names.Instance(), ComponentEtcdRestore)
	backoff := int32(restoreBackoffLimit)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.Cluster.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: names.Labels(r.Cluster.Names.Instance(), ComponentEtcdRestore)},
				Spec:       pod,
			},
		},
	}
}

func backupReadOnly() corev1.VolumeMount {
	return corev1.VolumeMount{Name: "backup", MountPath: BackupMount, ReadOnly: true}
}
