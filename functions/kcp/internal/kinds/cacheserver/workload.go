package cacheserver

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Paths inside the cache-server container.
const (
	dirServerCert   = "/etc/cache-server/tls/server"
	dirCA           = "/etc/cache-server/tls/ca/root"
	dirEtcdTLS      = "/etc/cache-server/etcd"
	dirEmbeddedEtcd = "/var/etcd"
)

// Replicas of the cache server Deployment.
const (
	// EmbeddedReplicas is the only replica count an embedded etcd allows.
	EmbeddedReplicas = 1
	// DefaultExternalReplicas is the default with an external etcd.
	DefaultExternalReplicas = 2
)

// clientCA reports whether the cache server authenticates its clients with its own CA:
// kcp ~0.29.2 || ~0.30.2 || >=0.31.0, or any tag that is not a version.
func (c *composer) clientCA() bool { return kcpversion.SupportsCacheServerClientCA(c.image.Tag) }

// args returns the cache server's flags in kcp-operator's order; extraArgs come last.
func (c *composer) args() []string {
	s := c.cs.Spec
	args := []string{
		"--tls-cert-file=" + dirServerCert + "/tls.crt",
		"--tls-private-key-file=" + dirServerCert + "/tls.key",
		"--root-directory=",
	}
	if c.clientCA() {
		args = append(args, "--client-ca-file="+dirCA+"/tls.crt")
	}
	if e := s.Etcd; e == nil {
		args = append(args, "--embedded-etcd-directory="+dirEmbeddedEtcd)
	} else {
		args = append(args, workload.EtcdFlags(*e, dirEtcdTLS, workload.CACertKey)...)
	}
	if s.Logging != nil && s.Logging.Level != 0 {
		args = append(args, "-v="+strconv.Itoa(s.Logging.Level))
	}
	return append(args, s.ExtraArgs...)
}

// scratch is the embedded etcd's emptyDir, first of the volumes; none with an external etcd.
func (c *composer) scratch() workload.Mounts {
	if c.cs.Spec.Etcd != nil {
		return nil
	}
	return workload.Mounts{{
		Volume: corev1.Volume{Name: "etcd-scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		Mount:  corev1.VolumeMount{Name: "etcd-scratch", MountPath: dirEmbeddedEtcd},
	}}
}

// secretMounts are the Secrets the cache server mounts, in kcp-operator's order. They follow
// the user's extra volumes.
func (c *composer) secretMounts() workload.Mounts {
	var m workload.Mounts
	m.Secret("serving-cert", c.name.ServerCertificate(), dirServerCert)
	if c.clientCA() {
		// Unlike kcp-operator (quirk 5) this is the caSecretRef Secret when one is given.
		m.Secret("client-ca", c.name.CA(), dirCA)
	}
	if e := c.cs.Spec.Etcd; e != nil && e.TLSConfig != nil {
		m.Secret("etcd-cert", e.TLSConfig.SecretRef.Name, dirEtcdTLS)
	}
	return m
}

// generatedVolumeNames lists the volumes the function generates, for validation.
func (c *composer) generatedVolumeNames() []string {
	var out []string
	for _, v := range append(c.scratch(), c.secretMounts()...) {
		out = append(out, v.Volume.Name)
	}
	return out
}

// replicas is 1 with the embedded etcd (it cannot be shared), else spec.replicas or 2.
func (c *composer) replicas() int32 {
	if c.cs.Spec.Etcd == nil {
		return EmbeddedReplicas
	}
	if r := c.cs.Spec.Replicas; r != nil {
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

// composeWorkload composes the <cs>-cache-server Deployment and Service once the certificates
// it mounts are issued and the Secrets it mounts exist. While an input is missing an existing
// Deployment and Service are kept unchanged and nothing is created.
func (c *composer) composeWorkload() builder.Outcome {
	s := c.cs.Spec
	scratch, secrets := c.scratch(), c.secretMounts()
	name := c.name.Deployment()
	labels := names.Labels(string(c.name), names.ComponentCacheServer)
	return c.b.Workload(builder.Workload{
		Name:          name,
		DeploymentKey: c.b.Key("deployment", name),
		ServiceKey:    c.b.Key("service", name),
		Mounts:        append(scratch, secrets...),
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			// kcp-operator places the user's volumes between the emptyDir and the Secrets.
			volumes := append(append(scratch.Volumes(), s.ExtraVolumes...), secrets.Volumes()...)
			mounts := append(append(scratch.VolumeMounts(), s.ExtraVolumeMounts...), secrets.VolumeMounts()...)
			dep := workload.Deployment{
				Name: name, Namespace: c.b.Namespace, Labels: labels,
				Replicas: c.replicas(),
				Container: corev1.Container{
					Name:            "cache-server",
					Image:           c.image.String(),
					ImagePullPolicy: corev1.PullIfNotPresent,
					Command:         []string{"/cache-server"},
					Args:            c.args(),
					Ports:           workload.HTTPSPort(),
					VolumeMounts:    mounts,
					Resources:       resources(),
					SecurityContext: workload.ContainerSecurityContext(),
					ReadinessProbe:  workload.HTTPSProbe("/readyz", 15, 10, 10, 3),
					LivenessProbe:   workload.HTTPSProbe("/livez", 15, 10, 10, 3),
				},
				Volumes:        volumes,
				PullSecrets:    c.image.PullSecrets,
				PodAnnotations: podAnnotations,
				Template:       s.DeploymentTemplate,
			}.Build()
			svc := workload.Service(name, c.b.Namespace, labels,
				[]corev1.ServicePort{workload.HTTPSServicePort("https", 6443, 6443)}, s.ServiceTemplate)
			return dep, svc
		},
	})
}
