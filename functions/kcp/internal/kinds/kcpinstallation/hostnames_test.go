package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// frontProxyXR is a FrontProxy of namespace ns serving host, created at created, controlled
// by the KcpInstallation controller (none when "") of that UID, and labelled as an
// installation labels the FrontProxies it composes when labelled.
func frontProxyXR(ns, name, host, created, controller string, uid string, labelled bool) map[string]any {
	meta := map[string]any{"name": name, "namespace": ns, "creationTimestamp": created}
	if controller != "" {
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "name": controller, "uid": uid, "controller": true}}
	}
	if labelled {
		meta["labels"] = map[string]any{LabelHostname: hostnameLabel(host)}
	}
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "FrontProxy", "metadata": meta,
		"spec": map[string]any{"external": map[string]any{"hostname": host, "port": 6443}}}
}

func TestHostnames(t *testing.T) {
	cases := map[string]struct {
		reason string
		inst   *v1alpha1.KcpInstallation
		world  *testworld.World
		want   []string
	}{
		"NobodyServesIt": {
			reason: "A hostname no FrontProxy serves is free.",
			inst:   tenant(),
			world:  testworld.New(),
		},
		"AnotherNamespaceServesIt": {
			reason: "Team b's installation serves the name already: team a's is refused naming the field and the holder, which keeps it.",
			inst:   tenant(),
			world:  testworld.New().Object(frontProxyXR("team-b", "prod-public", "kcp.example.com", "2026-01-01T00:00:00Z", "prod", "uid-of-prod", true)),
			want:   []string{"spec.external.hostname: Forbidden: kcp.example.com is served already by FrontProxy team-b/prod-public (the KcpInstallation team-b/prod), which keeps it; choose another hostname"},
		},
		"ThePlatformsFrontProxyHere": {
			reason: "A FrontProxy of the platform's in the namespace always keeps its name.",
			inst:   tenant(),
			world:  testworld.New().Object(frontProxyXR("tenant", "platform", "kcp.example.com", "2030-01-01T00:00:00Z", "", "", false)),
			want:   []string{"spec.external.hostname: Forbidden: kcp.example.com is served already by FrontProxy tenant/platform (a FrontProxy of the platform's), which keeps it"},
		},
		"ASecondFrontProxysHostname": {
			reason: "Each front-proxy's own hostname is checked at its own field.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public"}, {Name: "corp", External: &v1alpha1.InstallationExternal{Hostname: "kcp.corp.example.com"}}}
			}),
			world: testworld.New().Object(frontProxyXR("team-b", "prod-corp", "kcp.corp.example.com", "2026-01-01T00:00:00Z", "prod", "uid-of-prod", true)),
			want:  []string{"spec.frontProxies[1].external.hostname: Forbidden: kcp.corp.example.com is served already by FrontProxy team-b/prod-corp"},
		},
		"ItsOwnFrontProxy": {
			reason: "The installation's own FrontProxy serves its name.",
			inst:   tenant(),
			world:  testworld.New().Object(frontProxyXR("tenant", "team-a-public", "kcp.example.com", "2026-01-01T00:00:00Z", "team-a", string(installationUID), true)),
		},
		"TakenLaterByANeighbour": {
			reason: "This installation served the name first; a neighbour that composed a FrontProxy for it since is refused, not this one, which keeps running.",
			inst:   tenant(),
			world: testworld.New().
				Put("frontproxy-public", frontProxyXR("tenant", "team-a-public", "kcp.example.com", "2026-01-01T00:00:00Z", "team-a", string(installationUID), true)).
				Object(frontProxyXR("team-b", "prod-public", "kcp.example.com", "2026-02-01T00:00:00Z", "prod", "uid-of-prod", true)),
		},
		"ServedBeforeThisOneBeganTo": {
			reason: "Of two that composed a FrontProxy for the name at once, the one created first keeps it.",
			inst:   tenant(),
			world: testworld.New().
				Put("frontproxy-public", frontProxyXR("tenant", "team-a-public", "kcp.example.com", "2026-02-01T00:00:00Z", "team-a", string(installationUID), true)).
				Object(frontProxyXR("team-b", "prod-public", "kcp.example.com", "2026-01-01T00:00:00Z", "prod", "uid-of-prod", true)),
			want: []string{"spec.external.hostname: Forbidden: kcp.example.com is served already by FrontProxy team-b/prod-public"},
		},
		"AnotherHostname": {
			reason: "A FrontProxy of another hostname is no holder, labelled or not.",
			inst:   tenant(),
			world:  testworld.New().Object(frontProxyXR("tenant", "platform", "kcp2.example.com", "2026-01-01T00:00:00Z", "", "", false)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.inst, tc.world.InNamespace("tenant").Answer(policyAnswered).State(), noValidation, noFlags)
			got := make([]string, 0, len(errs))
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nCompose(...): got errors %q, want %d matching %q", tc.reason, got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("%s\nCompose(...): error %d\n got: %s\nwant: ...%s...", tc.reason, i, got[i], tc.want[i])
				}
			}
			if len(errs) > 0 && len(r.Desired.Objects()) > 0 {
				t.Errorf("%s\nCompose(...): refused, yet desired %d objects", tc.reason, len(r.Desired.Objects()))
			}
		})
	}
}

func TestHostnameLabel(t *testing.T) {
	long := strings.Repeat("a", 60) + ".example.com"
	cases := map[string]struct {
		reason string
		host   string
		want   string
	}{
		"Short":   {reason: "A hostname that is a valid label value is its own label.", host: "kcp.example.com", want: "kcp.example.com"},
		"Long":    {reason: "A hostname over 63 characters is labelled by a digest, itself a valid label value.", host: long, want: "sha256-" + hostnameLabel(long)[len("sha256-"):]},
		"Address": {reason: "An IP address is a valid label value.", host: "10.0.0.1", want: "10.0.0.1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := hostnameLabel(tc.host)
			if diff := cmp.Diff(tc.want, got); diff != "" || len(got) > 63 {
				t.Errorf("%s\nhostnameLabel(%q): -want, +got:\n%s", tc.reason, tc.host, diff)
			}
		})
	}
}
