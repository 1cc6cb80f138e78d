package workload

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Where the audit log volume is mounted, and the variable naming the pod: each replica writes
// under a directory of its own, so replicas sharing a ReadWriteMany claim never write one file.
const (
	AuditLogDir    = "/var/log/kcp/audit"
	auditLogVolume = "audit-log"
	podNameVar     = "POD_NAME"
)

// AuditLogSpec is the audit log's flags, its volume and the environment its path refers to.
type AuditLogSpec struct {
	Spec
	Env []corev1.EnvVar
	// FSGroup is the pod's fsGroup when the files go to a claim, which may belong to root.
	FSGroup *int64
}

// imageGroup is the group kcp's images run as.
const imageGroup = 65532

// AuditLog returns the --audit-log-* flags of a, its volume and the pod's name as $(POD_NAME),
// which the kubelet expands in the path. Nothing when a is nil.
func AuditLog(a *v1alpha1.AuditLogSpec) AuditLogSpec {
	var s AuditLogSpec
	if a == nil {
		return s
	}
	maxAge, maxBackups, maxSize := a.Limits()
	s.Args = []string{
		"--audit-log-path=" + AuditLogDir + "/$(" + podNameVar + ")/audit.log",
		"--audit-log-format=json",
		"--audit-log-maxage=" + strconv.Itoa(int(maxAge)),
		"--audit-log-maxbackup=" + strconv.Itoa(int(maxBackups)),
		"--audit-log-maxsize=" + strconv.Itoa(int(maxSize)),
	}
	if a.Compress {
		s.Args = append(s.Args, "--audit-log-compress")
	}
	src := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: AuditLogSizeLimit(maxBackups, maxSize)}}
	if v := a.Volume; v != nil {
		src = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.ClaimName}}
		s.FSGroup = ptr.To[int64](imageGroup)
	}
	s.Mounts.add(auditLogVolume, src, AuditLogDir, false)
	s.Env = []corev1.EnvVar{{Name: podNameVar, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"},
	}}}
	return s
}

// AuditLogSizeLimit bounds an emptyDir audit volume: the file being written and the rotated
// ones kept, each at most maxSize megabytes, and one more for the file kcp opens as it rotates.
// The kubelet evicts a pod whose emptyDir outgrows its limit, so a limit any smaller would
// restart kcp as its log fills.
func AuditLogSizeLimit(maxBackups, maxSize int32) *resource.Quantity {
	return resource.NewQuantity(int64(maxBackups+2)*int64(maxSize)*1024*1024, resource.BinarySI)
}
