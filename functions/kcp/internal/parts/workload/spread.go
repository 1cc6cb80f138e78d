package workload

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Topology keys the default spread uses: the well-known labels every node has (hostname) or
// cloud nodes have (zone).
const (
	TopologyHostname = "kubernetes.io/hostname"
	TopologyZone     = "topology.kubernetes.io/zone"
)

// podTemplateHash is the label the Deployment controller gives each rollout's pods: spreading
// by it counts only the new rollout's pods, so a rolling update is not skewed by old ones.
const podTemplateHash = "pod-template-hash"

// DefaultSpread spreads the pods selected by labels across nodes, then zones, wherever the
// scheduler can. Preferred, never required (ScheduleAnyway): on one node every replica still
// runs, and the PodDisruptionBudget then protects what it can. A PodDisruptionBudget alone
// protects nothing when every replica lands on the node being drained. rollout is true for
// a Deployment's pods (see podTemplateHash).
func DefaultSpread(labels map[string]string, rollout bool) []corev1.TopologySpreadConstraint {
	var keys []string
	if rollout {
		keys = []string{podTemplateHash}
	}
	spread := func(topologyKey string) corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{
			MaxSkew:           1,
			TopologyKey:       topologyKey,
			WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			MatchLabelKeys:    keys,
		}
	}
	return []corev1.TopologySpreadConstraint{spread(TopologyHostname), spread(TopologyZone)}
}

// ApplyScheduling sets on pod every scheduling field s sets; the others keep what was
// generated (the default spread included).
func ApplyScheduling(pod *corev1.PodSpec, s *v1alpha1.Scheduling) {
	if s == nil {
		return
	}
	if s.NodeSelector != nil {
		pod.NodeSelector = s.NodeSelector
	}
	if s.Affinity != nil {
		pod.Affinity = s.Affinity
	}
	if s.Tolerations != nil {
		pod.Tolerations = s.Tolerations
	}
	if s.PriorityClassName != "" {
		pod.PriorityClassName = s.PriorityClassName
	}
	if s.TopologySpreadConstraints != nil {
		pod.TopologySpreadConstraints = s.TopologySpreadConstraints
	}
}
