package desired

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func TestWithholdNewKinds(t *testing.T) {
	secret := func(name string) *corev1.Secret { s := &corev1.Secret{}; s.Name = name; return s }
	deployment := func(name string) *appsv1.Deployment { d := &appsv1.Deployment{}; d.Name = name; return d }
	set := func() *Set {
		s := &Set{}
		s.Add("deployment-a", deployment("a"), resource.ReadyFalse)
		s.Add("secret-a", secret("a"), resource.ReadyFalse)
		s.Add("deployment-b", deployment("b"), resource.ReadyFalse)
		s.Add("service-x", &corev1.Service{}, resource.ReadyFalse)
		s.Add("deployment-c", deployment("c"), resource.ReadyFalse)
		s.Add("secret-b", secret("b"), resource.ReadyFalse)
		return s
	}
	none := func(resource.Name) bool { return false }
	cases := map[string]struct {
		reason       string
		composed     map[string]bool
		exists       func(resource.Name) bool
		wantNames    []resource.Name
		wantWithheld []resource.Name
	}{
		"NewXR": {
			reason:       "An XR that composes nothing yet composes the first object of each kind, in the composer's order, and every Secret.",
			exists:       none,
			wantNames:    []resource.Name{"deployment-a", "secret-a", "secret-b", "service-x"},
			wantWithheld: []resource.Name{"deployment-b", "deployment-c"},
		},
		"KindComposed": {
			reason:    "Of a kind the XR already composes, every new object is composed at once.",
			composed:  map[string]bool{"apps/v1/Deployment": true},
			exists:    func(n resource.Name) bool { return n == "deployment-a" },
			wantNames: []resource.Name{"deployment-a", "deployment-b", "deployment-c", "secret-a", "secret-b", "service-x"},
		},
		"ObservedNeverWithheld": {
			reason:       "An object that exists stays desired whatever else is withheld: withholding must never delete.",
			exists:       func(n resource.Name) bool { return n == "deployment-c" },
			wantNames:    []resource.Name{"deployment-a", "deployment-c", "secret-a", "secret-b", "service-x"},
			wantWithheld: []resource.Name{"deployment-b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := set()
			withheld := s.WithholdNewKinds(tc.composed, tc.exists)
			if diff := cmp.Diff(tc.wantWithheld, withheld); diff != "" {
				t.Errorf("%s\nwithheld: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantNames, s.Names()); diff != "" {
				t.Errorf("%s\ndesired: -want, +got:\n%s", tc.reason, diff)
			}
			for _, n := range tc.wantNames {
				if !s.Has(n) {
					t.Errorf("%s\nHas(%s) = false after withholding: the index is stale", tc.reason, n)
				}
			}
		})
	}
}
