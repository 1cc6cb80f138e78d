package builder

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func TestWaiting(t *testing.T) {
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "x-front-proxy"}}
	cases := map[string]struct {
		reason   string
		observed map[resource.Name]map[string]any
		want     []resource.Name
	}{
		"NothingComposed": {
			reason: "Nothing composed yet: the result composes nothing.",
		},
		"SomethingComposed": {
			reason:   "What was composed is in the result's desired set, so Crossplane deletes none of it.",
			observed: map[resource.Name]map[string]any{"service-front-proxy": svc},
			want:     []resource.Name{"service-front-proxy"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "kcp", observedState(tc.observed))
			r := Waiting(b, "provisioning", "RootShard root does not exist")
			var got []resource.Name
			for _, o := range r.Desired.Objects() {
				got = append(got, o.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nWaiting(...): desired -want, +got:\n%s", tc.reason, diff)
			}
			if !r.NotReady || r.Status != "provisioning" || len(r.Conditions) != 1 || r.Conditions[0].Type != condition.TypeInputsReady {
				t.Errorf("%s\nWaiting(...) = status %q, not ready %v, conditions %+v; want the status given, not ready, and InputsReady alone", tc.reason, r.Status, r.NotReady, r.Conditions)
			}
		})
	}
}

func TestComposed(t *testing.T) {
	cases := map[string]struct {
		reason   string
		warnings []string
		want     []string
	}{
		"NoWarning":    {reason: "An empty warning is no warning.", warnings: []string{""}},
		"SomeWarnings": {reason: "Warnings are passed on, empty ones left out.", warnings: []string{"a", "", "b"}, want: []string{"a", "b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "kcp", observedState(nil))
			// A workload not composed yet: Report leaves conditions and forces not ready.
			b.Report(Outcome{Name: "x", Key: "deployment-x", Verdict: b.Inputs.Check(nil, b.St, &b.Set)})
			if len(b.Conditions()) == 0 || !b.NotReady() {
				t.Fatalf("Report left no condition or not-ready to pass on: the test proves nothing")
			}
			r := Composed(b, 3, tc.warnings...)
			if diff := cmp.Diff(tc.want, r.Warnings); diff != "" {
				t.Errorf("%s\nComposed(...): warnings -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(b.Conditions(), r.Conditions); diff != "" {
				t.Errorf("%s\nComposed(...): conditions, -builder's, +result's:\n%s", tc.reason, diff)
			}
			if r.Status != 3 || !r.NotReady {
				t.Errorf("%s\nComposed(...) = status %v, not ready %v; want 3, true", tc.reason, r.Status, r.NotReady)
			}
		})
	}
}
