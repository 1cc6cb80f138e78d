package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestDisruptionBudget: a budget must let at least one pod go. A hostile tenant keeping every
// pod would hold every node its pods run on out of the platform's drains.
func TestDisruptionBudget(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	keep := func(v intstr.IntOrString) *v1alpha1.DisruptionBudget {
		return &v1alpha1.DisruptionBudget{MinAvailable: &v}
	}
	cases := map[string]struct {
		reason   string
		replicas *int32
		budget   *v1alpha1.DisruptionBudget
		want     []string
	}{
		"Default":       {reason: "No budget set: the default lets one pod go.", replicas: n(3)},
		"OneOfThree":    {reason: "Keeping 2 of 3 lets one go.", replicas: n(3), budget: keep(intstr.FromInt32(2))},
		"HalfOfTwo":     {reason: "50% of 2 keeps 1 and lets 1 go.", budget: keep(intstr.FromString("50%"))},
		"SingleReplica": {reason: "One replica gets no budget at all, so its minAvailable refuses nothing.", replicas: n(1), budget: keep(intstr.FromInt32(5))},
		"AllByNumber": {
			reason: "A hostile tenant keeps all 3: refused naming the field.", replicas: n(3), budget: keep(intstr.FromInt32(3)),
			want: []string{`spec.podDisruptionBudget.minAvailable: Invalid value: "3": keeps all 3 pods, so no node they run on could ever be drained: keep fewer than 3 (a percentage rounds up), or remove it to let one pod go at a time`},
		},
		"AllByRounding": {
			reason: "90% of the default 2 rounds up to 2, as the disruption controller rounds it: refused.", budget: keep(intstr.FromString("90%")),
			want: []string{`spec.podDisruptionBudget.minAvailable: Invalid value: "90%": keeps all 2 pods`},
		},
		"NotAPercentage": {
			reason: "A string that is no percentage.", replicas: n(3), budget: keep(intstr.FromString("most")),
			want: []string{`spec.podDisruptionBudget.minAvailable: Invalid value: "most": must be a number of pods or a percentage such as 50%`},
		},
		"Negative": {
			reason: "A negative count.", replicas: n(3), budget: keep(intstr.FromInt32(-1)),
			want: []string{`spec.podDisruptionBudget.minAvailable: Invalid value: "-1": must not be negative`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range DisruptionBudget(field.NewPath("spec", "podDisruptionBudget"), tc.replicas, 2, tc.budget) {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nDisruptionBudget(...) = %q, want %d errors like %q", tc.reason, got, len(tc.want), tc.want)
			}
			for i := range got {
				if diff := cmp.Diff(tc.want[i], got[i][:min(len(got[i]), len(tc.want[i]))]); diff != "" {
					t.Errorf("%s\nerror %d: -want, +got:\n%s", tc.reason, i, diff)
				}
			}
		})
	}
}
