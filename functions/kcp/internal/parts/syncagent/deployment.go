package syncagent

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Workload is the agent's Deployment and metrics Service.
type Workload struct {
	Agent
	// Deployment names the Deployment, its Service and its ServiceAccount.
	Deployment string
	Labels     map[string]string
	Replicas   int32
	Image      string
	Resources  *corev1.ResourceRequirements
	// Mounts are the agent's Secrets (its kubeconfig).
	Mounts workload.Mounts
	// PodAnnotations roll the pods when a mounted Secret changes.
	PodAnnotations map[string]string
}

// Mounts are the Secrets the agent mounts: its kubeconfig for kcp.
func Mounts(kubeconfigSecret string) workload.Mounts {
	var m workload.Mounts
	m.Secret("kcp-kubeconfig", kubeconfigSecret, DirKCPKubeconfig)
	return m
}

// DefaultResources are the agent's container resources unless spec.agent.resources sets
// them: it caches the published objects of every workspace, so memory grows with them.
func DefaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("100m"), corev1.ResourceMemory: kresource.MustParse("128Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: kresource.MustParse("512Mi")},
	}
}

// Build returns the agent's Deployment and Service. Unlike kcp's pods the agent talks to the
// API server of the cluster it runs in (the service cluster), so its pods carry the
// ServiceAccount's token; everything else is Pod Security "restricted".
func (w Workload) Build() (*appsv1.Deployment, *corev1.Service) {
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("health"), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: 5, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3,
		}
	}
	dep := workload.Deployment{
		Name: w.Deployment, Namespace: w.Namespace, Labels: w.Labels,
		Replicas: w.Replicas,
		Container: corev1.Container{
			Name:            "api-syncagent",
			Image:           w.Image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         []string{"api-syncagent"},
			Args:            Args(w.Agent),
			Ports: []corev1.ContainerPort{
				{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
				{Name: "health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP},
			},
			VolumeMounts:    w.Mounts.VolumeMounts(),
			Resources:       workload.MergeResources(DefaultResources(), w.Resources),
			SecurityContext: workload.ContainerSecurityContext(),
			ReadinessProbe:  probe("/readyz"),
			LivenessProbe:   probe("/healthz"),
		},
		Volumes:        w.Mounts.Volumes(),
		PodAnnotations: w.PodAnnotations,
	}.Build()
	pod := &dep.Spec.Template.Spec
	// The image runs as user "nobody" by name, which the kubelet cannot check against
	// runAsNonRoot; its number makes it checkable.
	pod.SecurityContext.RunAsUser = ptr(int64(65534))
	pod.SecurityContext.RunAsGroup = ptr(int64(65534))
	pod.ServiceAccountName = w.Deployment
	pod.AutomountServiceAccountToken = ptr(true)
	svc := workload.Service(w.Deployment, w.Namespace, w.Labels, []corev1.ServicePort{{
		Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP,
	}}, nil)
	return dep, svc
}

func ptr[T any](v T) *T { return &v }
