package kcpinstallation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
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
			r, errs := Compose(tc.inst, tc.world.InNamespace("tenant").Answer(policyAnswered).State(), noValidation)
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

// The names of the hostile cases below: the platform's front-proxy, which its policy reserves
// with its zone, and team b's installation prod, whose XRs carry zone labels as this package
// writes them.
const (
	platformHost = "kcp.example.com"
	teamBHost    = "kcp.team-b.example.com"
	teamBShard   = "alpha.team-b.example.com"
	teamBVW      = "vw.team-b.example.com"
	teamBCert    = "api.team-b.example.com"
)

// letsencrypt is an ACME ClusterIssuer the platform's policy lets the namespace use.
var letsencrypt = v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"}

// hostnamePolicy is the platform's EnvironmentConfig: letsencrypt allowed in namespace
// tenant, platformHost and the zone platform.example.com reserved, namespace platform the
// platform's.
func hostnamePolicy() map[string]any {
	p := policyObject(map[string]any{"kind": "ClusterIssuer", "name": "letsencrypt", "namespaces": []any{"tenant", "platform"}})
	data := p["data"].(map[string]any)
	data["hostnames"] = map[string]any{"reserved": []any{platformHost, "*.platform.example.com"}}
	data["platformNamespaces"] = []any{"platform"}
	return p
}

// xrObject is an XR of kind as Crossplane sends it, controlled by the KcpInstallation
// controller (none when "") of UID uid, labelled with the zones of names.
func xrObject(kind, ns, name, created, controller, uid string, spec map[string]any, zones ...string) map[string]any {
	meta := map[string]any{"name": name, "namespace": ns, "creationTimestamp": created}
	if controller != "" {
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "name": controller, "uid": uid, "controller": true}}
	}
	labels := map[string]any{}
	for _, z := range zones {
		labels[zoneLabel(z)] = labelZoneValue
	}
	meta["labels"] = labels
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": kind, "metadata": meta, "spec": spec}
}

// teamB is team b's installation prod, running since January: a RootShard with a public
// hostname and a certificate of its own, a Shard and a virtual workspace server with public
// names, and a FrontProxy whose public certificate names one more.
func teamB(w *testworld.World) *testworld.World {
	const jan, uid = "2026-01-01T00:00:00Z", "uid-of-prod"
	return w.
		Object(xrObject("RootShard", "team-b", "prod", jan, "prod", uid, map[string]any{
			"external": map[string]any{"hostname": teamBHost, "port": 443},
			"public":   map[string]any{"hostname": "root.team-b.example.com", "serverCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt"}, "dnsNames": []any{"root.team-b.example.com"}}},
		}, "team-b.example.com")).
		Object(xrObject("Shard", "team-b", "prod-alpha", jan, "prod", uid, map[string]any{
			"public": map[string]any{"hostname": teamBShard},
		}, "team-b.example.com")).
		Object(xrObject("VirtualWorkspace", "team-b", "prod-vw", jan, "prod", uid, map[string]any{
			"external": map[string]any{"hostname": teamBVW, "port": 443},
		}, "team-b.example.com")).
		Object(xrObject("FrontProxy", "team-b", "prod-public", jan, "prod", uid, map[string]any{
			"external":                map[string]any{"hostname": teamBHost, "port": 443},
			"publicServerCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt"}, "dnsNames": []any{teamBHost, teamBCert}},
		}, "team-b.example.com"))
}

// Installation edits, each putting one name through one field.
func withExternal(host string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) { i.Spec.External.Hostname = host }
}

func withPrivateHostname(host string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) { i.Spec.External.PrivateHostname = host }
}

func withFrontProxyCert(names ...string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", ServerCertificate: &v1alpha1.InstallationServerCertificate{IssuerRef: letsencrypt, DNSNames: names}}}
	}
}

func withSecondFrontProxy(host string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public"}, {Name: "corp", External: &v1alpha1.InstallationExternal{Hostname: host, Port: 443},
			Exposure: &v1alpha1.FrontProxyExposure{Ingress: &v1alpha1.IngressExposure{Controller: v1alpha1.IngressNginx}}}}
	}
}

func withRootShardPublic(host string, names ...string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		p := &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: host}}
		if len(names) > 0 {
			p.ServerCertificate = &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt, DNSNames: names}
		}
		i.Spec.RootShard = &v1alpha1.InstallationRootShard{Public: p}
	}
}

func withRootShardBaseURL(url string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.RootShard = &v1alpha1.InstallationRootShard{ShardBaseURL: url}
	}
}

func withRootShardVW(host string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.RootShard = &v1alpha1.InstallationRootShard{VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{External: v1alpha1.InstallationExternal{Hostname: host}}}
	}
}

func withShard(sh v1alpha1.InstallationShard) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		sh.Name = "alpha"
		i.Spec.Shards = []v1alpha1.InstallationShard{sh}
	}
}

func shardPublic(host string, names ...string) v1alpha1.InstallationShard {
	p := &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: host}}
	if len(names) > 0 {
		p.ServerCertificate = &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt, DNSNames: names}
	}
	return v1alpha1.InstallationShard{Public: p}
}

// TestEveryName holds every field that puts a DNS name in a certificate or a route of an
// installation to one rule: a name the platform reserves, or that another installation
// serves, is refused at that field, wildcards, letter case and trailing dots included; the
// installation's own names are not.
func TestEveryName(t *testing.T) {
	const policyField = " (EnvironmentConfig kcp-self-service, data.hostnames.reserved)"
	const reserved = ": Forbidden: " + platformHost + " is the platform's: its policy reserves " + platformHost + policyField
	heldByB := func(host, kind, name string) string {
		return ": Forbidden: " + host + " is served already by " + kind + " team-b/" + name + " (the KcpInstallation team-b/prod), which keeps it"
	}
	cases := map[string]struct {
		reason string
		inst   *v1alpha1.KcpInstallation
		world  *testworld.World
		// want are the errors up to their first ';', the fix left out.
		want []string
	}{
		// The platform's name through each field.
		"PlatformNameAsTheHostname": {
			reason: "The installation's own hostname: its RootShard's and first front-proxy's certificates, and the front-proxy's route.",
			inst:   tenant(withExternal(platformHost)),
			want:   []string{"spec.external.hostname" + reserved},
		},
		"PlatformNameInAFrontProxysPublicCertificate": {
			reason: "The ACME certificate of the front-proxy: a publicly trusted certificate for the platform's name.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withFrontProxyCert("kcp.team-a.example.com", platformHost)),
			want:   []string{"spec.frontProxies[0].serverCertificate.dnsNames[1]" + reserved},
		},
		"PlatformNameAsASecondFrontProxysIngressHost": {
			reason: "The Ingress of a second front-proxy would route the platform's clients to the team.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withSecondFrontProxy(platformHost)),
			want:   []string{"spec.frontProxies[1].external.hostname" + reserved},
		},
		"PlatformNameAsTheRootShardsPublicName": {
			reason: "The root shard's public name is in its serving certificate.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardPublic(platformHost)),
			want:   []string{"spec.rootShard.public.hostname" + reserved},
		},
		"PlatformNameInTheRootShardsPublicCertificate": {
			reason: "The root shard's ACME certificate.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardPublic("root.team-a.example.com", platformHost)),
			want:   []string{"spec.rootShard.public.serverCertificate.dnsNames[0]" + reserved},
		},
		"PlatformNameAsTheRootShardsBaseURL": {
			reason: "shardBaseURL's host is in the root shard's serving certificate.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardBaseURL("https://"+platformHost+":6443")),
			want:   []string{"spec.rootShard.shardBaseURL" + reserved},
		},
		"PlatformNameAsAVirtualWorkspaceServer": {
			reason: "A virtual workspace server's certificate names its external hostname.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardVW(platformHost)),
			want:   []string{"spec.rootShard.virtualWorkspace.external.hostname" + reserved},
		},
		"PlatformNameAsAShardsPublicName": {
			reason: "A shard's public name.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withShard(shardPublic(platformHost))),
			want:   []string{"spec.shards[0].public.hostname" + reserved},
		},
		"PlatformNameInAShardsPublicCertificate": {
			reason: "A shard's ACME certificate.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withShard(shardPublic("alpha.team-a.example.com", "alpha.team-a.example.com", platformHost))),
			want:   []string{"spec.shards[0].public.serverCertificate.dnsNames[1]" + reserved},
		},
		"PlatformNameAsAShardsBaseURL": {
			reason: "A shard's shardBaseURL host.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withShard(v1alpha1.InstallationShard{ShardBaseURL: "https://" + platformHost})),
			want:   []string{"spec.shards[0].shardBaseURL" + reserved},
		},
		"PlatformNameAsAShardsVirtualWorkspaceServer": {
			reason: "A shard's virtual workspace server.",
			inst: tenant(withExternal("kcp.team-a.example.com"), withShard(v1alpha1.InstallationShard{VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{
				External: v1alpha1.InstallationExternal{Hostname: platformHost}}})),
			want: []string{"spec.shards[0].virtualWorkspace.external.hostname" + reserved},
		},
		"PlatformNameAsThePrivateHostname": {
			reason: "The private hostname is in every front-proxy's serving certificate.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withPrivateHostname(platformHost)),
			want:   []string{"spec.external.privateHostname" + reserved},
		},
		"ClusterDomainInThePlatformsZone": {
			reason: "Every Service's certificate names <service>.<namespace>.svc.<clusterDomain>: a cluster domain in the reserved zone puts the platform's names there.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), func(i *v1alpha1.KcpInstallation) { i.Spec.ClusterDomain = "platform.example.com" }),
			want:   []string{"spec.clusterDomain: Forbidden: the certificates of this installation's Services name <service>.tenant.svc.platform.example.com, under *.platform.example.com, which the platform's policy reserves (EnvironmentConfig kcp-self-service, data.hostnames.reserved)"},
		},
		"WildcardCoveringThePlatformsName": {
			reason: "*.example.com answers for kcp.example.com: as much the platform's as the name itself.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withFrontProxyCert("kcp.team-a.example.com", "*.example.com")),
			want:   []string{"spec.frontProxies[0].serverCertificate.dnsNames[1]: Forbidden: *.example.com is the platform's: its policy reserves " + platformHost + policyField},
		},
		"NameInThePlatformsZone": {
			reason: "A reserved zone reserves every name under it, at any depth.",
			inst:   tenant(withExternal("api.eu.platform.example.com")),
			want:   []string{"spec.external.hostname: Forbidden: api.eu.platform.example.com is the platform's: its policy reserves *.platform.example.com" + policyField},
		},
		"WildcardOfThePlatformsZone": {
			reason: "A wildcard inside the reserved zone.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardPublic("root.team-a.example.com", "*.platform.example.com")),
			want:   []string{"spec.rootShard.public.serverCertificate.dnsNames[0]: Forbidden: *.platform.example.com is the platform's: its policy reserves *.platform.example.com" + policyField},
		},
		"PlatformNameInCapitalsWithATrailingDot": {
			reason: "DNS is case-insensitive and KCP.example.com. is kcp.example.com: where no validation stops it first (shardBaseURL's host), the rule compares them as one.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardBaseURL("https://KCP.Example.com.:6443")),
			want:   []string{"spec.rootShard.shardBaseURL: Forbidden: KCP.Example.com. is the platform's: its policy reserves " + platformHost + policyField},
		},
		"ThePlatformsOwnInstallation": {
			reason: "An installation of a platform namespace serves the platform's names.",
			inst:   tenant(withFrontProxyCert(platformHost, "*.platform.example.com"), func(i *v1alpha1.KcpInstallation) { i.Namespace = "platform" }),
		},
		"OutsideThePlatformsNames": {
			reason: "The zone's own name, a name a wildcard does not reach (two labels down), and a wildcard of another zone are not reserved.",
			inst:   tenant(withExternal("platform.example.com"), withFrontProxyCert("platform.example.com", "a.kcp.example.com", "*.kcp.example.com")),
		},

		// Another installation's names through each field.
		"TeamBsHostnameAsTheHostname": {
			reason: "Team b's front-proxy and root shard serve it.",
			inst:   tenant(withExternal(teamBHost)),
			want:   []string{"spec.external.hostname" + heldByB(teamBHost, "RootShard", "prod")},
		},
		"TeamBsCertificateNameInAFrontProxysCertificate": {
			reason: "A name only team b's front-proxy certificate carries.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withFrontProxyCert("kcp.team-a.example.com", teamBCert)),
			want:   []string{"spec.frontProxies[0].serverCertificate.dnsNames[1]" + heldByB(teamBCert, "FrontProxy", "prod-public")},
		},
		"TeamBsShardAsTheRootShardsPublicName": {
			reason: "Team b's shard's public name, taken through the root shard's.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardPublic(teamBShard)),
			want:   []string{"spec.rootShard.public.hostname" + heldByB(teamBShard, "Shard", "prod-alpha")},
		},
		"TeamBsRootShardInAShardsCertificate": {
			reason: "Team b's root shard's public name, taken through a shard's certificate.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withShard(shardPublic("alpha.team-a.example.com", "root.team-b.example.com"))),
			want:   []string{"spec.shards[0].public.serverCertificate.dnsNames[0]" + heldByB("root.team-b.example.com", "RootShard", "prod")},
		},
		"TeamBsVirtualWorkspacesAsASecondFrontProxy": {
			reason: "Team b's virtual workspace server's name, taken through a second front-proxy's Ingress.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withSecondFrontProxy(teamBVW)),
			want:   []string{"spec.frontProxies[1].external.hostname" + heldByB(teamBVW, "VirtualWorkspace", "prod-vw")},
		},
		"TeamBsHostnameAsAShardsBaseURL": {
			reason: "Through a shard's shardBaseURL.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withShard(v1alpha1.InstallationShard{ShardBaseURL: "https://" + teamBShard + ":6443"})),
			want:   []string{"spec.shards[0].shardBaseURL" + heldByB(teamBShard, "Shard", "prod-alpha")},
		},
		"TeamBsHostnameInCapitals": {
			reason: "Team b's name in capitals with a trailing dot is team b's name.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withRootShardBaseURL("https://KCP.Team-B.example.com.")),
			want:   []string{"spec.rootShard.shardBaseURL" + heldByB("KCP.Team-B.example.com.", "RootShard", "prod")},
		},
		"WildcardCoveringTeamBsNames": {
			reason: "*.team-b.example.com answers for every name of team b's; refused naming the first holder found.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withFrontProxyCert("kcp.team-a.example.com", "*.team-b.example.com")),
			want:   []string{"spec.frontProxies[0].serverCertificate.dnsNames[1]: Forbidden: *.team-b.example.com covers " + teamBHost + ", which RootShard team-b/prod (the KcpInstallation team-b/prod) serves already and keeps"},
		},
		"NameUnderTeamBsWildcard": {
			reason: "A name team b's wildcard certificate already answers for.",
			inst:   tenant(withExternal("other.team-b.example.com")),
			world: testworld.New().Object(xrObject("FrontProxy", "team-b", "prod-wild", "2026-01-01T00:00:00Z", "prod", "uid-of-prod", map[string]any{
				"external":                map[string]any{"hostname": teamBHost},
				"publicServerCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt"}, "dnsNames": []any{"*.team-b.example.com"}},
			}, "team-b.example.com")),
			want: []string{"spec.external.hostname: Forbidden: other.team-b.example.com is covered by *.team-b.example.com, which FrontProxy team-b/prod-wild (the KcpInstallation team-b/prod) serves already and keeps"},
		},
		"AnUnlabelledPlatformXRHere": {
			reason: "The platform's RootShard in the namespace is found without labels: every XR of the namespace is read.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withShard(shardPublic("shared.tenant.example.com"))),
			world: testworld.New().Object(xrObject("RootShard", "tenant", "platform-root", "2030-01-01T00:00:00Z", "", "", map[string]any{
				"external": map[string]any{"hostname": "api.tenant.example.com"}, "public": map[string]any{"hostname": "shared.tenant.example.com"},
			})),
			want: []string{"spec.shards[0].public.hostname: Forbidden: shared.tenant.example.com is served already by RootShard tenant/platform-root (a RootShard of the platform's), which keeps it"},
		},

		// What is the installation's own.
		"ItsOwnNamesEverywhere": {
			reason: "Its own XRs carry its names: a re-reconcile refuses none of them.",
			inst:   tenant(withExternal("kcp.team-a.example.com"), withFrontProxyCert("kcp.team-a.example.com", "*.team-a.example.com"), withRootShardPublic("root.team-a.example.com")),
			world: testworld.New().
				Object(xrObject("RootShard", "tenant", "team-a", "2026-01-01T00:00:00Z", "team-a", string(installationUID), map[string]any{
					"external": map[string]any{"hostname": "kcp.team-a.example.com"}, "public": map[string]any{"hostname": "root.team-a.example.com"},
				}, "team-a.example.com")).
				Object(xrObject("FrontProxy", "tenant", "team-a-public", "2026-01-01T00:00:00Z", "team-a", string(installationUID), map[string]any{
					"external":                map[string]any{"hostname": "kcp.team-a.example.com"},
					"publicServerCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt"}, "dnsNames": []any{"kcp.team-a.example.com", "*.team-a.example.com"}},
				}, "team-a.example.com")),
		},
		"TooManyZones": {
			reason: "Each zone is a lookup in every namespace: the 17th is refused at the field that adds it.",
			inst: tenant(withExternal("kcp.z0.example.com"), func(i *v1alpha1.KcpInstallation) {
				var names []string
				for z := range MaxZones + 1 {
					names = append(names, fmt.Sprintf("kcp.z%d.example.com", z))
				}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", ServerCertificate: &v1alpha1.InstallationServerCertificate{IssuerRef: letsencrypt, DNSNames: names}}}
			}),
			want: []string{"spec.frontProxies[0].serverCertificate.dnsNames[16]: Forbidden: kcp.z16.example.com is in the 17th DNS zone of this installation's names (z16.example.com), and an installation's names may be in at most 16, each of which every reconcile looks up in every namespace: put the names in fewer zones"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := tc.world
			if w == nil {
				w = testworld.New()
			}
			w = teamB(w.Answer(policyAnswered).Object(hostnamePolicy())).InNamespace(tc.inst.Namespace)
			r, errs := Compose(tc.inst, w.State(), noValidation)
			got := make([]string, 0, len(errs))
			for _, e := range errs {
				msg, _, _ := strings.Cut(e.Error(), ";")
				got = append(got, msg)
				if e.Type != field.ErrorTypeForbidden || !strings.Contains(e.Error(), "choose") && !strings.Contains(e.Error(), "leave spec.clusterDomain unset") && !strings.Contains(e.Error(), "fewer zones") {
					t.Errorf("%s\nCompose(...): %s is no Forbidden error saying the fix", tc.reason, e)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nCompose(...): -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 && len(r.Desired.Objects()) > 0 {
				t.Errorf("%s\nCompose(...): refused, yet desired %d objects", tc.reason, len(r.Desired.Objects()))
			}
		})
	}
}

// TestZoneLabels: every XR an installation composes carries the zones of the names it serves,
// which is what TestEveryName's teamB stands for, and the installation reads, in every
// namespace, each zone of its names.
func TestZoneLabels(t *testing.T) {
	inst := tenant(withExternal("kcp.team-a.example.com"), withFrontProxyCert("kcp.team-a.example.com", "*.team-a.example.com", "kcp.team-a.corp.example.com"),
		withShard(v1alpha1.InstallationShard{Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "alpha.team-a.example.com"}}, ShardBaseURL: "https://alpha.tenant.svc.cluster.local"}))
	r, errs := Compose(inst, testworld.New().State(), noValidation)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[string]map[string]string{}
	for _, o := range r.Desired.Objects() {
		u, err := desired.ToComposed(o.Resource)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u.GetAPIVersion(), "kcp.crossplane.io/") {
			continue
		}
		for k, v := range u.GetLabels() {
			if strings.HasPrefix(k, LabelZonePrefix) || k == LabelHostname {
				if got[u.GetKind()+"/"+u.GetName()] == nil {
					got[u.GetKind()+"/"+u.GetName()] = map[string]string{}
				}
				got[u.GetKind()+"/"+u.GetName()][k] = v
			}
		}
	}
	want := map[string]map[string]string{
		"RootShard/team-a":         {LabelZonePrefix + "team-a.example.com": "true"},
		"Shard/team-a-alpha":       {LabelZonePrefix + "team-a.example.com": "true", LabelZonePrefix + "tenant.svc.cluster.local": "true"},
		"FrontProxy/team-a-public": {LabelZonePrefix + "team-a.example.com": "true", LabelZonePrefix + "team-a.corp.example.com": "true", LabelHostname: "kcp.team-a.example.com"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels of the composed XRs: -want, +got:\n%s", diff)
	}
	var reqs []string
	for _, q := range r.Requirements {
		if strings.Contains(q.Label, LabelZonePrefix) {
			if !q.ClusterScoped {
				t.Errorf("requirement %s reads one namespace only", q.Key())
			}
			reqs = append(reqs, q.Key())
		}
	}
	var wantReqs []string
	for _, z := range []string{"team-a.example.com", "team-a.corp.example.com", "tenant.svc.cluster.local"} {
		for _, k := range []string{"rootshard", "shard", "frontproxy", "virtualworkspace"} {
			wantReqs = append(wantReqs, k+"/"+LabelZonePrefix+z+"=true")
		}
	}
	if diff := cmp.Diff(wantReqs, reqs, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("zone requirements: -want, +got:\n%s", diff)
	}
}

func TestZoneLabel(t *testing.T) {
	long := strings.Repeat("a", 60) + ".example.com"
	cases := map[string]struct {
		reason string
		zone   string
		want   string
	}{
		"Zone":   {reason: "A zone that is a label name is its own key.", zone: "example.com", want: LabelZonePrefix + "example.com"},
		"Long":   {reason: "A zone over 63 characters is keyed by a digest.", zone: long, want: LabelZonePrefix + digest(long)},
		"Single": {reason: "The zone of single labels, \"\", is keyed by a digest.", zone: "", want: LabelZonePrefix + digest("")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := zoneLabel(tc.zone)
			if diff := cmp.Diff(tc.want, got); diff != "" || len(validation.IsQualifiedName(got)) > 0 {
				t.Errorf("%s\nzoneLabel(%q): -want, +got:\n%s", tc.reason, tc.zone, diff)
			}
		})
	}
}
