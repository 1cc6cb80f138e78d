package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDefaultSpread(t *testing.T) {
	labels := map[string]string{"app.kubernetes.io/instance": "root"}
	soft := func(key string, matchLabelKeys ...string) corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, MatchLabelKeys: matchLabelKeys,
		}
	}
	cases := map[string]struct {
		reason  string
		rollout bool
		want    []corev1.TopologySpreadConstraint
	}{
		"Deployment": {
			reason:  "A Deployment's pods spread by node, then zone, counting only the current rollout's pods.",
			rollout: true,
			want:    []corev1.TopologySpreadConstraint{soft("kubernetes.io/hostname", "pod-template-hash"), soft("topology.kubernetes.io/zone", "pod-template-hash")},
		},
		"StatefulSet": {
			reason: "A StatefulSet's pods have no pod-template-hash: all its pods count.",
			want:   []corev1.TopologySpreadConstraint{soft("kubernetes.io/hostname"), soft("topology.kubernetes.io/zone")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := DefaultSpread(labels, tc.rollout)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDefaultSpread(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDefaultSpreadDoesNotAliasLabels(t *testing.T) {
	labels := map[string]string{"a": "b"}
	got := DefaultSpread(labels, true)
	labels["a"] = "changed"
	if v := got[0].LabelSelector.MatchLabels["a"]; v != "b" {
		t.Errorf("DefaultSpread's selector follows a later change of the labels it was given: %q", v)
	}
}
