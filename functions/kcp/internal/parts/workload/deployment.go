package workload

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// ShardResources are kcp-operator's defaults for shard and virtual workspace containers.
func ShardResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("2Gi")},
	}
}

// MergeResources overrides defaults key by key with the user's requirements.
func MergeResources(defaults corev1.ResourceRequirements, user *corev1.ResourceRequirements) corev1.ResourceRequirements {
	out := *defaults.DeepCopy()
	if user == nil {
		return out
	}
	if len(user.Requests) > 0 && out.Requests == nil {
		out.Requests = corev1.ResourceList{}
	}
	for k, v := range user.Requests {
		out.Requests[k] = v
	}
	if len(user.Limits) > 0 && out.Limits == nil {
		out.Limits = corev1.ResourceList{}
	}
	for k, v := range user.Limits {
		out.Limits[k] = v
	}
	out.Claims = user.Claims
	return out
}

// ContainerSecurityContext is the hardened context of every kcp container.
func ContainerSecurityContext() *corev1.SecurityContext {
	f := false
	t := true
	return &corev1.SecurityContext{
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		ReadOnlyRootFilesystem:   &t,
		AllowPrivilegeEscalation: &f,
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// PodSecurityContext is the pod-level part of Pod Security "restricted" for every pod the
// package composes: the containers run as a non-root user, which the kubelet checks against
// the image (kcp's images run as 65532:65532, numerically, so it can), with the runtime's
// default seccomp profile. ContainerSecurityContext holds the container-level part.
func PodSecurityContext() *corev1.PodSecurityContext {
	t := true
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   &t,
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// NoServiceAccountToken is the pods' automountServiceAccountToken: no container the package
// composes talks to the API server of the cluster it runs in (kcp, its proxies, the cache
// server and etcd use their own certificates and kubeconfigs), so none carries a token of it.
func NoServiceAccountToken() *bool {
	f := false
	return &f
}

// HTTPSProbe is a GET probe on the named https port.
func HTTPSProbe(path string, initialDelay, period, timeout, failure int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS,
		}},
		InitialDelaySeconds: initialDelay,
		PeriodSeconds:       period,
		TimeoutSeconds:      timeout,
		SuccessThreshold:    1,
		FailureThreshold:    failure,
	}
}

// HTTPSPort is the container port every kcp server listens on.
func HTTPSPort() []corev1.ContainerPort {
	return []corev1.ContainerPort{{Name: "https", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}}
}

// Deployment describes one kcp Deployment.
type Deployment struct {
	Name      string
	Namespace string
	// Labels go on the Deployment, its selector and its pods.
	Labels      map[string]string
	Replicas    int32
	Container   corev1.Container
	Volumes     []corev1.Volume
	PullSecrets []corev1.LocalObjectReference
	// PodAnnotations roll the pods when they change (certificate revisions, config hash).
	PodAnnotations map[string]string
	Template       *v1alpha1.DeploymentTemplate
	// FSGroup, when set, makes the pod's volumes writable by that group: a claim the
	// container writes to (an audit log) may belong to root.
	FSGroup *int64
}

// Build returns the apps/v1 Deployment.
func (d Deployment) Build() *appsv1.Deployment {
	maxSurge := intstr.FromInt32(1)
	maxUnavailable := intstr.FromInt32(0)
	replicas := d.Replicas
	dep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, Labels: maps.Clone(d.Labels)},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(d.Labels)},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(d.Labels), Annotations: maps.Clone(d.PodAnnotations)},
				Spec: corev1.PodSpec{
					Containers:                   []corev1.Container{d.Container},
					Volumes:                      d.Volumes,
					ImagePullSecrets:             d.PullSecrets,
					SecurityContext:              PodSecurityContext(),
					AutomountServiceAccountToken: NoServiceAccountToken(),
					TopologySpreadConstraints:    DefaultSpread(d.Labels, true),
				},
			},
		},
	}
	dep.Spec.Template.Spec.SecurityContext.FSGroup = d.FSGroup
	applyDeploymentTemplate(dep, d.Template)
	return dep
}

// applyDeploymentTemplate merges the user's template. Generated labels and annotations win.
// Unlike kcp-operator (quirk 3) only the scheduling fields the user set replace the
// generated ones, so setting a nodeSelector no longer wipes the image pull secrets, and
// topology spread constraints replace the default spread.
func applyDeploymentTemplate(dep *appsv1.Deployment, t *v1alpha1.DeploymentTemplate) {
	if t == nil {
		return
	}
	if m := t.Metadata; m != nil {
		dep.Labels = mergeKeep(dep.Labels, m.Labels)
		dep.Annotations = mergeKeep(dep.Annotations, m.Annotations)
	}
	if t.Spec == nil || t.Spec.Template == nil {
		return
	}
	pod := &dep.Spec.Template
	if m := t.Spec.Template.Metadata; m != nil {
		pod.Labels = mergeKeep(pod.Labels, m.Labels)
		pod.Annotations = mergeKeep(pod.Annotations, m.Annotations)
	}
	s := t.Spec.Template.Spec
	if s == nil {
		return
	}
	if s.NodeSelector != nil {
		pod.Spec.NodeSelector = s.NodeSelector
	}
	if s.Affinity != nil {
		pod.Spec.Affinity = s.Affinity
	}
	if s.Tolerations != nil {
		pod.Spec.Tolerations = s.Tolerations
	}
	if s.HostAliases != nil {
		pod.Spec.HostAliases = s.HostAliases
	}
	if s.ImagePullSecrets != nil {
		pod.Spec.ImagePullSecrets = s.ImagePullSecrets
	}
	if s.TopologySpreadConstraints != nil {
		pod.Spec.TopologySpreadConstraints = s.TopologySpreadConstraints
	}
	if s.PriorityClassName != "" {
		pod.Spec.PriorityClassName = s.PriorityClassName
	}
	if u := s.SecurityContext; u != nil {
		// Only who the pod runs as: runAsNonRoot and the seccomp profile stay, and the
		// container's context (no escalation, no capabilities, read-only root) is not touched.
		sc := pod.Spec.SecurityContext
		if u.RunAsUser != nil {
			sc.RunAsUser = u.RunAsUser
		}
		if u.RunAsGroup != nil {
			sc.RunAsGroup = u.RunAsGroup
		}
		if u.FSGroup != nil {
			sc.FSGroup = u.FSGroup
		}
		if u.SupplementalGroups != nil {
			sc.SupplementalGroups = u.SupplementalGroups
		}
	}
}

// mergeKeep adds the keys of extra that base does not have.
func mergeKeep(base, extra map[string]string) map[string]string {
	if len(extra) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = make(map[string]string, len(extra))
	}
	for k, v := range extra {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// DisruptionBudget is the PodDisruptionBudget of a Deployment or StatefulSet with more than
// one replica: a node drain or cluster upgrade takes down at most one of its pods at a time, so
// a replicated kcp server or front-proxy keeps serving and an etcd keeps its quorum. A single
// replica gets none: a budget that allows no disruption would block every drain. It is named
// and labelled as the workload (meta) and selects its pods (selector). The user's minAvailable
// (b), when set, replaces maxUnavailable 1; check.DisruptionBudget refuses one that lets no
// pod go.
func DisruptionBudget(meta metav1.ObjectMeta, replicas *int32, selector *metav1.LabelSelector, b *v1alpha1.DisruptionBudget) *policyv1.PodDisruptionBudget {
	if replicas == nil || *replicas < 2 {
		return nil
	}
	spec := policyv1.PodDisruptionBudgetSpec{Selector: selector.DeepCopy()}
	if b != nil && b.MinAvailable != nil {
		minAvailable := *b.MinAvailable
		spec.MinAvailable = &minAvailable
	} else {
		one := intstr.FromInt32(1)
		spec.MaxUnavailable = &one
	}
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: meta.Name, Namespace: meta.Namespace, Labels: maps.Clone(meta.Labels)},
		Spec:       spec,
	}
}
