// Package cache renders kcp's cache server (the CacheServer kind): its flags in kcp-operator's
// order, the volumes it mounts, its container, Deployment and Service. It reads no observed
// state: when they are composed is the CacheServer kind's to decide.
package cache

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Paths inside the cache-server container.
const (
	dirServerCert = "/etc/cache-server/tls/server"
	dirCA         = "/etc/cache-server/tls/ca/root"
	dirEtcdTLS    = "/etc/cache-server/etcd"
)

// Replicas of the cache server Deployment.
const (
	// EmbeddedReplicas is the only replica count an embedded etcd allows.
	EmbeddedReplicas = 1
	// DefaultExternalReplicas is the default with an external etcd.
	DefaultExternalReplicas = 2
)

// Server is one cache server: its CacheServer's name, namespace and spec, and the image it
// runs.
type Server struct {
	Name      names.CacheServer
	Namespace string
	Spec      *v1alpha1.CacheServerSpec
	Image     kcpimage.Image
}

// ClientCA reports whether the cache server authenticates its clients with its own CA:
// kcp ~0.29.2 || ~0.30.2 || >=0.31.0, or any tag that is not a version.
func (s Server) ClientCA() bool { return kcpversion.SupportsCacheServerClientCA(s.Image.Tag) }

// Args returns the cache server's flags in kcp-operator's order; extraArgs come last.
func (s Server) Args() []string {
	args := []string{
		"--tls-cert-file=" + dirServerCert + "/tls.crt",
		"--tls-private-key-file=" + dirServerCert + "/tls.key",
		"--root-directory=",
	}
	if s.ClientCA() {
		args = append(args, "--client-ca-file="+dirCA+"/tls.crt")
	}
	if e := s.Spec.Etcd; e == nil {
		args = append(args, workload.EmbeddedEtcd(nil).Args...)
	} else {
		args = append(args, workload.EtcdFlags(*e, dirEtcdTLS, workload.CACertKey)...)
	}
	if l := s.Spec.Logging; l != nil && l.Level != 0 {
		args = append(args, "-v="+strconv.Itoa(l.Level))
	}
	return append(args, s.Spec.ExtraArgs...)
}

// Scratch is the embedded etcd's emptyDir, first of the volumes; none with an external etcd.
func (s Server) Scratch() workload.Mounts {
	if s.Spec.Etcd != nil {
		return nil
	}
	return workload.EmbeddedEtcd(nil).Mounts
}

// SecretMounts are the Secrets the cache server mounts, in kcp-operator's order. They follow
// the user's extra volumes.
func (s Server) SecretMounts() workload.Mounts {
	var m workload.Mounts
	m.Secret("serving-cert", s.Name.ServerCertificate(), dirServerCert)
	if s.ClientCA() {
		// Unlike kcp-operator (quirk 5) this is the caSecretRef Secret when one is given.
		m.Secret("client-ca", s.Name.CA(), dirCA)
	}
	if e := s.Spec.Etcd; e != nil && e.TLSConfig != nil {
		m.Secret("etcd-cert", e.TLSConfig.SecretRef.Name, dirEtcdTLS)
	}
	return m
}

// GeneratedVolumeNames lists the volumes the function generates, for validation.
func (s Server) GeneratedVolumeNames() []string {
	var out []string
	for _, v := range append(s.Scratch(), s.SecretMounts()...) {
		out = append(out, v.Volume.Name)
	}
	return out
}

// Replicas is 1 with the embedded etcd (it cannot be shared), else spec.replicas or 2.
func (s Server) Replicas() int32 {
	if s.Spec.Etcd == nil {
		return EmbeddedReplicas
	}
	if r := s.Spec.Replicas; r != nil {
		return *r
	}
	return DefaultExternalReplicas
}

// resources are kcp-operator's fixed requirements of the cache server; the API has no
// resources field.
func resources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("500m"), corev1.ResourceMemory: kresource.MustParse("1Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("1"), corev1.ResourceMemory: kresource.MustParse("2Gi")},
	}
}

// Labels are the labels of the Deployment, its pods and its Service.
func (s Server) Labels() map[string]string {
	return names.Labels(string(s.Name), names.ComponentCacheServer)
}

// Deployment is the <cs>-cache-server Deployment, its pods annotated with podAnnotations.
// kcp-operator places the user's volumes between the emptyDir and the Secrets.
func (s Server) Deployment(podAnnotations map[string]string) *appsv1.Deployment {
	scratch, secrets := s.Scratch(), s.SecretMounts()
	volumes := append(append(scratch.Volumes(), s.Spec.ExtraVolumes...), secrets.Volumes()...)
	mounts := append(append(scratch.VolumeMounts(), s.Spec.ExtraVolumeMounts...), secrets.VolumeMounts()...)
	return workload.Deployment{
		Name: s.Name.Deployment(), Namespace: s.Namespace, Labels: s.Labels(),
		Replicas: s.Replicas(),
		Container: corev1.Container{
			Name:            "cache-server",
			Image:           s.Image.String(),
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         []string{"/cache-server"},
			Args:            s.Args(),
			Ports:           workload.HTTPSPort(),
			VolumeMounts:    mounts,
			Resources:       resources(),
			SecurityContext: workload.ContainerSecurityContext(),
			ReadinessProbe:  workload.HTTPSProbe("/readyz", 15, 10, 10, 3),
			LivenessProbe:   workload.HTTPSProbe("/livez", 15, 10, 10, 3),
		},
		Volumes:        volumes,
		PullSecrets:    s.Image.PullSecrets,
		PodAnnotations: podAnnotations,
		Template:       s.Spec.DeploymentTemplate,
	}.Build()
}

// Service is the <cs>-cache-server Service, on 6443.
func (s Server) Service() *corev1.Service {
	return workload.Service(s.Name.Deployment(), s.Namespace, s.Labels(),
		[]corev1.ServicePort{workload.HTTPSServicePort("https", 6443, 6443)}, s.Spec.ServiceTemplate)
}
