package tenant

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// stored is a team's XR as the API server stores it, with spec.crossplane added: Crossplane's
// own part of an XR's spec, which the XR's Go type does not hold and the team can write.
func stored(xr any, crossplane map[string]any) map[string]any {
	b, _ := json.Marshal(xr)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	m["spec"].(map[string]any)["crossplane"] = crossplane
	return m
}

// TestStoredWeight holds a team's XRs to their weight as the Tenant reads them, not as
// their Go types decode them.
func TestStoredWeight(t *testing.T) {
	heavy := map[string]any{"resourceRefs": []any{map[string]any{"apiVersion": "v1", "kind": "Secret", "name": strings.Repeat("r", 8<<10)}}}
	runComposeCases(t, map[string]composeCase{
		"HeavyInSpecCrossplane": {
			reason: "8 KiB in spec.crossplane is 8 KiB the Tenant reads: the Kubeconfig is refused naming spec, though its typed form is small.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, stored(teamKubeconfig("dev", 1), heavy))
			},
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: "Kubeconfig team-a/dev is refused: spec: Forbidden: this Kubeconfig weighs 8536 bytes in metadata and spec, 8458 of them in spec; " +
				"a team's Kubeconfig may weigh at most 6144, so that what it asks of its Tenant stays small: make spec smaller"}},
		},
		"LightInSpecCrossplane": {
			reason: "Crossplane's own references, a few hundred bytes, are granted.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, stored(teamKubeconfig("dev", 1), map[string]any{"compositionRef": map[string]any{"name": "kubeconfigs"}}))
			},
			composed: []string{
				`Kubeconfig team-a.dev {"groups":["tenant:team-a:devs"],"secretRef":{"name":"team-a.dev-kubeconfig"},"target":{"frontProxyRef":{"name":"front"}},"targetWorkspace":"root:team-a","username":"tenant:team-a:alice","validity":"720h0m0s"}`,
				teamWorkspaceXR,
			},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Granted: true, Message: "Kubeconfig kcp/team-a.dev is not Ready yet"}},
		},
	})
}
