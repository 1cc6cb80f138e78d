package encryption

import (
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Images of the rewrite Job. Kubernetes' kubectl image has no shell (it is distroless), so
// an init container copies busybox's static binary beside it to run the script.
const (
	DefaultKubectlImage = "registry.k8s.io/kubectl:v1.35.3"
	DefaultShellImage   = "docker.io/library/busybox:1.37.0"
)

// Paths inside the rewrite pod.
const (
	toolsDir      = "/tools"
	DirClientCert = "/etc/kcp/tls/client"
	DirServerCA   = "/etc/kcp/tls/ca/server"
)

// rewriteUser is the numeric user the Job runs as: busybox's image runs as root, which
// Pod Security's restricted level refuses.
const rewriteUser = 65532

// RewriteScript rewrites, on the kcp server at $1, every object of each resource named after
// it in every logical cluster: it lists them across clusters (/clusters/*), then reads and
// replaces each cluster's unchanged. The API server writes an unchanged object again only
// when it was read with a key other than the encrypting one, so objects already encrypted
// with it cost a read, and a run that failed half-way is simply run again. A replace that
// fails (an object changed or deleted meanwhile) is retried with a fresh read.
const RewriteScript = `set -eu
server="$1"
shift
auth="--certificate-authority=` + DirServerCA + `/tls.crt --client-certificate=` + DirClientCert + `/tls.crt --client-key=` + DirClientCert + `/tls.key --request-timeout=5m"
total=0
clusters=0
for resource in "$@"; do
  kubectl $auth --server="$server/clusters/*" get "$resource" --all-namespaces \
    -o go-template='{{range .items}}{{index .metadata.annotations "kcp.io/cluster"}}{{"\n"}}{{end}}' >/tmp/clusters
  seen=" "
  while read -r cluster; do
    case "$seen" in *" $cluster "*) continue ;; esac
    seen="$seen$cluster "
    clusters=$((clusters + 1))
    try=1
    until kubectl $auth --server="$server/clusters/$cluster" get "$resource" --all-namespaces -o json >/tmp/objects &&
      kubectl $auth --server="$server/clusters/$cluster" replace -f /tmp/objects >/tmp/replaced; do
      [ "$try" -lt 3 ] || exit 1
      try=$((try + 1))
    done
    while read -r _; do total=$((total + 1)); done </tmp/replaced
  done </tmp/clusters
done
echo "rewrote $total objects ($*) in $clusters logical clusters"`

// Rewrite describes the Job that rewrites a server's encrypted objects.
type Rewrite struct {
	Name, Namespace string
	Labels          map[string]string
	// Server is the kcp server's in-cluster URL, one its server certificate names.
	Server string
	// ClientSecret holds a system:masters client certificate of the server (<name>-client),
	// ServerCASecret the CA of its server certificate.
	ClientSecret, ServerCASecret string
	Resources                    []string
	KubectlImage, ShellImage     string
	PullSecrets                  []corev1.LocalObjectReference
}

// Job is the rewrite Job. It runs once: Job templates cannot change, so each encrypting key
// gets a Job of its own name.
func (r Rewrite) Job() *batchv1.Job {
	var mounts workload.Mounts
	mounts.Secret("client-cert", r.ClientSecret, DirClientCert)
	mounts.Secret("server-ca", r.ServerCASecret, DirServerCA)
	tools := corev1.VolumeMount{Name: "tools", MountPath: toolsDir}
	tmp := corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"}
	volumes := append(mounts.Volumes(),
		corev1.Volume{Name: "tools", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	)
	user := int64(rewriteUser)
	security := workload.PodSecurityContext()
	security.RunAsUser, security.RunAsGroup = &user, &user
	backoff := int32(6)
	args := append([]string{"-c", RewriteScript, "rewrite", r.Server}, r.Resources...)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: r.Name, Namespace: r.Namespace, Labels: maps.Clone(r.Labels)},
		Spec: batchv1.JobSpec{
			BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(r.Labels)},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					SecurityContext:              security,
					AutomountServiceAccountToken: workload.NoServiceAccountToken(),
					ImagePullSecrets:             r.PullSecrets,
					InitContainers: []corev1.Container{{
						Name:            "shell",
						Image:           r.ShellImage,
						Command:         []string{"/bin/cp", "/bin/busybox", toolsDir + "/busybox"},
						SecurityContext: workload.ContainerSecurityContext(),
						VolumeMounts:    []corev1.VolumeMount{tools},
					}},
					Containers: []corev1.Container{{
						Name:            "rewrite",
						Image:           r.KubectlImage,
						Command:         []string{toolsDir + "/busybox", "sh"},
						Args:            args,
						Env:             []corev1.EnvVar{{Name: "HOME", Value: "/tmp"}},
						SecurityContext: workload.ContainerSecurityContext(),
						VolumeMounts:    append(mounts.VolumeMounts(), tools, tmp),
					}},
					Volumes: volumes,
				},
			},
		},
	}
}
