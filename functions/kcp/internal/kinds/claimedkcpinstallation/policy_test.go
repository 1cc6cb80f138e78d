package claimedkcpinstallation

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// TestClaimComposesTheInstallationInTheClaimsNamespace: a claim causes no certificate of its
// own. It is held to the platform's policy through the KcpInstallation it composes, which
// the policy holds as any installation of its namespace: so that installation must be in the
// claim's namespace (never the platform's, whose policy may differ) and carry every issuer
// reference of the claim unchanged (none dropped, none added).
func TestClaimComposesTheInstallationInTheClaimsNamespace(t *testing.T) {
	corp := v1alpha1.ObjectReference{Name: "corp-root-ca", Kind: "ClusterIssuer", Group: "cert-manager.io"}
	spec := v1alpha1.KcpInstallationSpec{
		External:     v1alpha1.InstallationExternal{Hostname: "kcp.team-b.example.com"},
		Certificates: v1alpha1.Certificates{IssuerRef: &corp},
		FrontProxies: []v1alpha1.InstallationFrontProxy{{Name: "public", ServerCertificate: &v1alpha1.InstallationServerCertificate{IssuerRef: corp}}},
	}
	cases := map[string]struct {
		reason string
		claim  Claim
	}{
		"TenantNamespace": {reason: "A tenant's claim: its installation is the tenant's, in the tenant's namespace.", claim: Claim{Namespace: "team-b", Name: "dev"}},
		"AnotherTenant":   {reason: "Another tenant's claim of the same name: in that tenant's namespace.", claim: Claim{Namespace: "team-c", Name: "dev"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			xr := &XR{Spec: Spec{KcpInstallationSpec: spec, ClaimRef: &tc.claim}}
			xr.SetName("dev-x7k2p")
			r, errs := Compose(xr, observed.New(nil))
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			o, ok := r.Desired.Get(KeyInstallation)
			if !ok {
				t.Fatalf("%s\nno KcpInstallation composed", tc.reason)
			}
			u := o.Resource.(*resource.Unstructured)
			if u.GetNamespace() != tc.claim.Namespace {
				t.Errorf("%s\nthe KcpInstallation is in namespace %q, want the claim's, %q", tc.reason, u.GetNamespace(), tc.claim.Namespace)
			}
			raw, err := json.Marshal(u.Object["spec"])
			if err != nil {
				t.Fatal(err)
			}
			var got v1alpha1.KcpInstallationSpec
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(spec, got); diff != "" {
				t.Errorf("%s\nthe KcpInstallation's spec must be the claim's, issuers included: -claim, +installation:\n%s", tc.reason, diff)
			}
		})
	}
}
