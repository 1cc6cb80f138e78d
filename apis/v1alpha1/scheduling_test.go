package v1alpha1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestSchedulingOver(t *testing.T) {
	tol := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	pool := map[string]string{"pool": "kcp"}
	edge := map[string]string{"pool": "edge"}
	cases := map[string]struct {
		reason string
		s      *Scheduling
		base   *Scheduling
		want   *Scheduling
	}{
		"NeitherSet": {reason: "Nothing over nothing is nothing."},
		"OnlyBase": {
			reason: "A component without scheduling takes the installation's.",
			base:   &Scheduling{NodeSelector: pool},
			want:   &Scheduling{NodeSelector: pool},
		},
		"OnlyComponent": {
			reason: "A component's scheduling stands alone without the installation's.",
			s:      &Scheduling{PriorityClassName: "kcp"},
			want:   &Scheduling{PriorityClassName: "kcp"},
		},
		"FieldByField": {
			reason: "The component's fields win; the ones it leaves unset come from the installation's.",
			s:      &Scheduling{NodeSelector: edge, PriorityClassName: "kcp"},
			base:   &Scheduling{NodeSelector: pool, Tolerations: tol, PriorityClassName: "low"},
			want:   &Scheduling{NodeSelector: edge, Tolerations: tol, PriorityClassName: "kcp"},
		},
		"EmptyListReplaces": {
			reason: "An empty list set on the component replaces the installation's list.",
			s:      &Scheduling{Tolerations: []corev1.Toleration{}},
			base:   &Scheduling{Tolerations: tol},
			want:   &Scheduling{Tolerations: []corev1.Toleration{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.s.Over(tc.base)); diff != "" {
				t.Errorf("%s\nOver(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
