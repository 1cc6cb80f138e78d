// Package workload builds the Deployments and Services that run kcp components: container
// shape, probes, resources, volume mounts, the optional add-on flags (etcd, audit,
// authorization, authentication) and the user's deployment and service templates.
package workload

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Mount is a volume and where the container mounts it.
type Mount struct {
	Volume corev1.Volume
	Mount  corev1.VolumeMount
}

// Mounts is an ordered list of volumes with their mounts.
type Mounts []Mount

// Secret mounts Secret secretName read-only at path, as volume volumeName.
func (m *Mounts) Secret(volumeName, secretName, path string) {
	m.add(volumeName, corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secretName}}, path, true)
}

// WritableSecret mounts a Secret without readOnly, as kcp-operator does for the proxies'
// dynamic kubeconfig.
func (m *Mounts) WritableSecret(volumeName, secretName, path string) {
	m.add(volumeName, corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secretName}}, path, false)
}

// ConfigMap mounts ConfigMap name read-only at path.
func (m *Mounts) ConfigMap(volumeName, name, path string) {
	m.add(volumeName, corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: name},
	}}, path, true)
}

// EmptyDir mounts a new empty directory, writable, at path; sizeLimit, when set, is the
// most of the node's disk it may take.
func (m *Mounts) EmptyDir(volumeName, path string, sizeLimit *resource.Quantity) {
	m.add(volumeName, corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: sizeLimit}}, path, false)
}

func (m *Mounts) add(volumeName string, src corev1.VolumeSource, path string, readOnly bool) {
	*m = append(*m, Mount{
		Volume: corev1.Volume{Name: volumeName, VolumeSource: src},
		Mount:  corev1.VolumeMount{Name: volumeName, MountPath: path, ReadOnly: readOnly},
	})
}

// Volumes returns the pod volumes.
func (m Mounts) Volumes() []corev1.Volume {
	out := make([]corev1.Volume, 0, len(m))
	for _, x := range m {
		out = append(out, x.Volume)
	}
	return out
}

// VolumeMounts returns the container mounts.
func (m Mounts) VolumeMounts() []corev1.VolumeMount {
	out := make([]corev1.VolumeMount, 0, len(m))
	for _, x := range m {
		out = append(out, x.Mount)
	}
	return out
}

// SecretNames lists the Secrets mounted, in mount order.
func (m Mounts) SecretNames() []string {
	var out []string
	for _, x := range m {
		if s := x.Volume.Secret; s != nil {
			out = append(out, s.SecretName)
		}
	}
	return out
}

// Spec is a flag list plus the mounts its flags refer to.
type Spec struct {
	Args   []string
	Mounts Mounts
}

// Add appends another spec's flags and mounts.
func (s *Spec) Add(o Spec) {
	s.Args = append(s.Args, o.Args...)
	s.Mounts = append(s.Mounts, o.Mounts...)
}

// SNICertKey is the --tls-sni-cert-key flag of kcp and kcp-front-proxy that serves the key
// pair mounted at dir to clients asking for one of dnsNames.
func SNICertKey(dir string, dnsNames []string) string {
	return "--tls-sni-cert-key=" + dir + "/tls.crt," + dir + "/tls.key:" + strings.Join(dnsNames, ",")
}
