package tenant

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestTenantCountLimits is the record of spec.limits.kubeconfigs and spec.limits.workspaces,
// whose largest value changed from 50 to 32:
//   - Who sets them: the platform alone. A Tenant lives in the platform's namespace, and
//     no tenant role lets a team write Tenants (TestTenantKinds).
//   - Largest value: 32 each, the XRD's maximum, equal to sharing.MaxTeamXRs, the most a
//     team's quota may allow for the Tenant to read the team's XRs (checked below).
//   - Cost: a granted XR costs the shared objects what spec.limits.bindings and
//     spec.limits.bytes allow, not what the count allows; reading 32 of each at their
//     largest weight keeps the Tenant's request at 791,989 bytes (TestWorstCaseRequests).
//   - Certificates and identities: neither field reaches a certificate or an identity; each
//     granted Kubeconfig is still held to the Tenant's identity prefix (TestHostileIdentities).
//   - Policy: not the EnvironmentConfig's; the platform writes the Tenant itself.
//
// Then the team, at the largest limits, tries what a hostile team would.
func TestTenantCountLimits(t *testing.T) {
	maxima := xrdMaxima(t, "kubeconfigs", "workspaces")
	for field, m := range maxima {
		if m != sharing.MaxTeamXRs {
			t.Errorf("the Tenant XRD admits spec.limits.%s up to %d, want sharing.MaxTeamXRs (%d): a Tenant could allow more XRs than its team's quota may, and the Tenant would read none", field, m, sharing.MaxTeamXRs)
		}
	}

	largest := grant(limits(i32(sharing.MaxTeamXRs), i32(sharing.MaxTeamXRs), i32(400), i32(512<<10)))
	kubeconfigs := func(n int) []any {
		var out []any
		for i := range n {
			out = append(out, teamKubeconfig(fmt.Sprintf("k%02d", i), int64(i+1)))
		}
		return out
	}
	cases := map[string]struct {
		reason string
		world  func(*v1alpha1.Tenant) *testworld.World
		// granted is how many are granted; refused names a member and part of its message.
		granted   int
		refused   map[string]string
		condition string
	}{
		"OneOverTheLargestLimit": {
			reason: "A team at the largest spec.limits.kubeconfigs writes one more: the newest is refused, the older ones keep theirs; status lists the 32 granted and counts the refused one, which MembersReady names.",
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, kubeconfigs(sharing.MaxTeamXRs+1)...)
			},
			granted:   sharing.MaxTeamXRs,
			condition: "Refused for namespace team-a: Kubeconfig k32",
		},
		"OneOverALowerLimit": {
			reason: "Under a lower limit the refused one is listed, naming the limit.",
			world: func(t *v1alpha1.Tenant) *testworld.World {
				t.Spec.Limits.Kubeconfigs = i32(2)
				return installation(t, kubeconfigs(3)...)
			},
			granted: 2,
			refused: map[string]string{"k02": "the team has more Kubeconfigs than spec.limits.kubeconfigs of Tenant team-a allows (2)"},
		},
		"QuotaOneAboveTheBound": {
			reason: "A quota one above what the Tenant can always read bounds nothing the Tenant can rely on: it reads none of the team's XRs and says which quota to apply.",
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return unquoted(t, append(kubeconfigs(2), quota(QuotaName, sharing.MaxTeamXRs+1, sharing.MaxTeamXRs))...)
			},
			condition: "count/kubeconfigs.kcp.crossplane.io is bounded at 33, above 32",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tn := *largest // The cases set fields to new pointers: largest stays as it is.
			r, errs := Compose(&tn, tc.world(&tn).State(), validate)
			if len(errs) > 0 {
				t.Fatalf("%s\nCompose(...): %v", tc.reason, errs)
			}
			if got := len(granted(r.Status.Members)); got != tc.granted {
				t.Errorf("%s\ngranted %d members, want %d", tc.reason, got, tc.granted)
			}
			for n, want := range tc.refused {
				found := false
				for _, m := range r.Status.Members {
					if m.Name == n {
						found = true
						if m.Granted || !strings.Contains(m.Message, want) {
							t.Errorf("%s\nmember %s: granted=%v, message %q; want refused with %q", tc.reason, n, m.Granted, m.Message, want)
						}
					}
				}
				if !found {
					t.Errorf("%s\nmember %s is not listed", tc.reason, n)
				}
			}
			if tc.condition != "" && (len(r.Conditions) == 0 || !strings.Contains(r.Conditions[0].Message, tc.condition)) {
				t.Errorf("%s\nMembersReady: want it to contain %q, got %+v", tc.reason, tc.condition, r.Conditions)
			}
		})
	}
}

// xrdMaxima reads the maxima of spec.limits fields from the Tenant XRD.
func xrdMaxima(t *testing.T, fields ...string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "..", "apis", "tenants", "definition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var xrd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties struct {
							Spec struct {
								Properties struct {
									Limits struct {
										Properties map[string]struct {
											Maximum *float64 `json:"maximum"`
										} `json:"properties"`
									} `json:"limits"`
								} `json:"properties"`
							} `json:"spec"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &xrd); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range fields {
		p, ok := xrd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Spec.Properties.Limits.Properties[f]
		if !ok || p.Maximum == nil {
			t.Fatalf("the Tenant XRD has no maximum for spec.limits.%s", f)
		}
		out[f] = int(*p.Maximum)
	}
	return out
}
