package v1alpha1

import corev1 "k8s.io/api/core/v1"

// Scheduling says where the pods of an installation's component run. Every field set
// replaces the generated one; unset fields keep it. On a KcpInstallation, spec.scheduling
// applies to every component and a component's own scheduling overrides it field by field.
type Scheduling struct {
	// NodeSelector the pods' nodes must match.
	// +optional
	// +mapType=atomic
	// +kubebuilder:validation:MaxProperties=32
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Affinity of the pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// Tolerations of the pods.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// PriorityClassName of the pods.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// TopologySpreadConstraints replace the default, which spreads a component's pods across
	// nodes and zones where it can (whenUnsatisfiable: ScheduleAnyway, so a one-node cluster
	// still runs every replica).
	// +optional
	// +listType=map
	// +listMapKey=topologyKey
	// +kubebuilder:validation:MaxItems=8
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
}

// Over returns s with every field it does not set taken from base: a component's scheduling
// over the installation's.
func (s *Scheduling) Over(base *Scheduling) *Scheduling {
	switch {
	case s == nil:
		return base
	case base == nil:
		return s
	}
	out := *s
	if out.NodeSelector == nil {
		out.NodeSelector = base.NodeSelector
	}
	if out.Affinity == nil {
		out.Affinity = base.Affinity
	}
	if out.Tolerations == nil {
		out.Tolerations = base.Tolerations
	}
	if out.PriorityClassName == "" {
		out.PriorityClassName = base.PriorityClassName
	}
	if out.TopologySpreadConstraints == nil {
		out.TopologySpreadConstraints = base.TopologySpreadConstraints
	}
	return &out
}

// DeploymentTemplate is the per-kind XR's deployment template that carries s.
func (s *Scheduling) DeploymentTemplate() *DeploymentTemplate {
	if s == nil {
		return nil
	}
	return &DeploymentTemplate{Spec: &DeploymentSpecTemplate{Template: &PodTemplateSpec{Spec: &PodSpecTemplate{
		NodeSelector:              s.NodeSelector,
		Affinity:                  s.Affinity,
		Tolerations:               s.Tolerations,
		PriorityClassName:         s.PriorityClassName,
		TopologySpreadConstraints: s.TopologySpreadConstraints,
	}}}}
}
