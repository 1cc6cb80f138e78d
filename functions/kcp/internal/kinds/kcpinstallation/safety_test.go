package kcpinstallation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

const installationUID = types.UID("uid-of-team-a")

// tenant is smallest with the UID Crossplane gives it and an Issuer of its own namespace.
func tenant(mods ...func(*v1alpha1.KcpInstallation)) *v1alpha1.KcpInstallation {
	i := smallest()
	i.UID = installationUID
	i.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: "team-ca", Kind: "Issuer", Group: "cert-manager.io"}
	for _, m := range mods {
		m(i)
	}
	return i
}

func clusterIssuer(name string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: name, Kind: "ClusterIssuer", Group: "cert-manager.io"}
	}
}

// policyObject is the platform's EnvironmentConfig with these allowed issuers.
func policyObject(issuers ...map[string]any) map[string]any {
	list := make([]any, 0, len(issuers))
	for _, i := range issuers {
		list = append(list, i)
	}
	return map[string]any{
		"apiVersion": policy.APIVersion, "kind": policy.Kind,
		"metadata": map[string]any{"name": policy.Name},
		"data":     map[string]any{"issuers": list},
	}
}

// gateway exposes the installation's one front-proxy, public, through a Gateway.
func gateway(name, namespace string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Exposure: &v1alpha1.FrontProxyExposure{
			Gateway: &v1alpha1.GatewayExposure{Name: name, Namespace: namespace},
		}}}
	}
}

// gatewayPolicy is the platform's EnvironmentConfig with these allowed Gateways.
func gatewayPolicy(gateways ...map[string]any) map[string]any {
	p := policyObject()
	list := make([]any, 0, len(gateways))
	for _, g := range gateways {
		list = append(list, g)
	}
	p["data"].(map[string]any)["gateways"] = list
	return p
}

// loadBalanced gives the installation's front-proxy every load balancer setting that
// needs the platform's policy.
func loadBalanced(i *v1alpha1.KcpInstallation) {
	i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Service: &v1alpha1.FrontProxyService{
		Annotations:    map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"},
		LoadBalancerIP: "203.0.113.7", LoadBalancerClass: "example.com/lb", NodePort: 30443,
	}}}
}

// featurePolicy is the platform's EnvironmentConfig allowing features in these namespaces,
// and naming platform its namespace.
func featurePolicy(features map[string]any) map[string]any {
	p := policyObject()
	p["data"].(map[string]any)["features"] = features
	p["data"].(map[string]any)["platformNamespaces"] = []any{"platform"}
	return p
}

// profiled turns profiling on for the whole installation.
func profiled(i *v1alpha1.KcpInstallation) {
	i.Spec.Profiling = &v1alpha1.Profiling{Enabled: true}
}

// auditLogged writes the installation's audit events to files.
func auditLogged(i *v1alpha1.KcpInstallation) {
	i.Spec.Audit = &v1alpha1.AuditSpec{
		Policy: &v1alpha1.AuditPolicySpec{ConfigMap: &v1alpha1.LocalDataKeyReference{Name: "audit", Key: "policy.yaml"}},
		Log:    &v1alpha1.AuditLogSpec{},
	}
}

// xr is an XR of one of the function's kinds in the tenant's namespace, controlled by the
// object named by controller ("" for none).
func xr(kind, name string, controller metav1.OwnerReference) map[string]any {
	meta := map[string]any{"name": name, "namespace": "tenant"}
	if controller.UID != "" {
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": controller.Kind, "name": controller.Name, "uid": string(controller.UID), "controller": true}}
	}
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": kind, "metadata": meta}
}

var (
	none           = metav1.OwnerReference{}
	thisOne        = metav1.OwnerReference{Kind: "KcpInstallation", Name: "team-a", UID: installationUID}
	neighbourA     = metav1.OwnerReference{Kind: "KcpInstallation", Name: "team", UID: "uid-of-team"}
	policyAnswered = policy.Requirement.Key()
)

func TestSafety(t *testing.T) {
	type want struct {
		errs []string // substrings, one per error, in order
	}
	cases := map[string]struct {
		reason string
		inst   *v1alpha1.KcpInstallation
		world  *testworld.World
		want   want
	}{
		"OwnIssuerWithoutPolicy": {
			reason: "An Issuer of the installation's own namespace is the tenant's own: allowed without a policy.",
			inst:   tenant(),
			world:  testworld.New().Answer(policyAnswered),
		},
		"ClusterIssuerWithoutPolicy": {
			reason: "A ClusterIssuer signs for every namespace: refused unless the platform allows it, naming the field and the policy.",
			inst:   tenant(clusterIssuer("corp-root-ca")),
			world:  testworld.New().Answer(policyAnswered),
			want:   want{errs: []string{`spec.certificates.issuerRef: Forbidden: ClusterIssuer corp-root-ca (group cert-manager.io) is not allowed for installations in namespace tenant by the platform's policy (EnvironmentConfig kcp-self-service, data.issuers)`}},
		},
		"ClusterIssuerBeforeThePolicyIsRead": {
			reason: "Crossplane answers the policy requirement before it applies anything: refusing before would stop it from ever asking.",
			inst:   tenant(clusterIssuer("corp-root-ca")),
			world:  testworld.New(),
		},
		"ClusterIssuerAllowedInThisNamespace": {
			reason: "The platform allows a ClusterIssuer per namespace.",
			inst:   tenant(clusterIssuer("corp-root-ca")),
			world:  testworld.New().Answer(policyAnswered).Object(policyObject(map[string]any{"kind": "ClusterIssuer", "name": "corp-root-ca", "namespaces": []any{"tenant"}})),
		},
		"ClusterIssuerAllowedElsewhere": {
			reason: "A rule for other namespaces does not allow this one.",
			inst:   tenant(clusterIssuer("corp-root-ca")),
			world:  testworld.New().Answer(policyAnswered).Object(policyObject(map[string]any{"kind": "ClusterIssuer", "name": "corp-root-ca", "namespaces": []any{"platform"}})),
			want:   want{errs: []string{"spec.certificates.issuerRef: Forbidden: ClusterIssuer corp-root-ca"}},
		},
		"ClusterIssuerAllowedEverywhere": {
			reason: `"*" allows every namespace.`,
			inst:   tenant(clusterIssuer("kcp-selfsigned")),
			world:  testworld.New().Answer(policyAnswered).Object(policyObject(map[string]any{"kind": "ClusterIssuer", "name": "kcp-selfsigned", "namespaces": []any{"*"}})),
		},
		"OtherGroupIssuer": {
			reason: "An issuer of another group acts with its controller's rights: refused unless allowed, even namespaced.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: "pca", Kind: "AWSPCAIssuer", Group: "awspca.cert-manager.io"}
			}),
			world: testworld.New().Answer(policyAnswered).Object(policyObject(map[string]any{"kind": "ClusterIssuer", "name": "*", "namespaces": []any{"*"}})),
			want:  want{errs: []string{"spec.certificates.issuerRef: Forbidden: AWSPCAIssuer pca (group awspca.cert-manager.io)"}},
		},
		"PublicIssuerForAFrontProxy": {
			reason: "A front-proxy's serving certificate from a public ACME ClusterIssuer is refused like the root CA's issuer.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", ServerCertificate: &v1alpha1.InstallationServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt-prod", Kind: "ClusterIssuer"}, DNSNames: []string{"*.corp.example.com"}}}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{"spec.frontProxies[0].serverCertificate.issuerRef: Forbidden: ClusterIssuer letsencrypt-prod"}},
		},
		"PublicIssuerForTheRootShard": {
			reason: "The root shard's public certificate from a ClusterIssuer is refused like the root CA's issuer, naming its field.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{
					Hostname: "root.corp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt-prod", Kind: "ClusterIssuer"}},
				}}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{"spec.rootShard.public.serverCertificate.issuerRef: Forbidden: ClusterIssuer letsencrypt-prod (group cert-manager.io) is not allowed for installations in namespace tenant"}},
		},
		"PublicIssuerForAShard": {
			reason: "A shard's public certificate from a ClusterIssuer is refused at the shard's index; a shard with its namespace's Issuer is fine.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{
					{Name: "alpha", Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{
						Hostname: "alpha.corp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "team-acme"}},
					}}},
					{Name: "beta", Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{
						Hostname: "beta.corp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt-prod", Kind: "ClusterIssuer"}},
					}}},
				}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{"spec.shards[1].public.serverCertificate.issuerRef: Forbidden: ClusterIssuer letsencrypt-prod"}},
		},
		"PublicIssuerAllowed": {
			reason: "The platform allows the public ClusterIssuer for this namespace: the shards' public certificates may use it.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				cert := &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt-prod", Kind: "ClusterIssuer"}}
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "root.corp.example.com", ServerCertificate: cert}}}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "alpha.corp.example.com", ServerCertificate: cert}}}}
			}),
			world: testworld.New().Answer(policyAnswered).Object(policyObject(map[string]any{"kind": "ClusterIssuer", "name": "letsencrypt-prod", "namespaces": []any{"tenant"}})),
		},
		"PolicyUnreadable": {
			reason: "A policy the function cannot read allows nothing beyond the default, and says the platform must fix it.",
			inst:   tenant(clusterIssuer("corp-root-ca")),
			world: testworld.New().Answer(policyAnswered).Object(map[string]any{
				"apiVersion": policy.APIVersion, "kind": policy.Kind, "metadata": map[string]any{"name": policy.Name}, "data": map[string]any{"issuers": "all"},
			}),
			want: want{errs: []string{"the platform's policy (EnvironmentConfig kcp-self-service, data) cannot be read"}},
		},
		"PlatformRootShardOfTheSameName": {
			reason: "A RootShard without a controller (the platform's) named like the installation is not taken over.",
			inst:   tenant(),
			world:  testworld.New().Answer(policyAnswered).Object(xr("RootShard", "team-a", none)),
			want:   want{errs: []string{"spec: Forbidden: the RootShard tenant/team-a this would compose is taken: RootShard tenant/team-a exists and is not controlled by this KcpInstallation (it has no controller); it is left untouched; rename this KcpInstallation"}},
		},
		"NeighbourOwnsTheName": {
			reason: "Installation team-a next to team with shard a: both would compose XRs named team-a; the later one is refused with a message naming the holder.",
			inst:   tenant(),
			world:  testworld.New().Answer(policyAnswered).Object(xr("Shard", "team-a", neighbourA)),
			want:   want{errs: []string{"RootShard tenant/team-a this would compose is taken: Shard tenant/team-a exists and is not controlled by this KcpInstallation (its controller is KcpInstallation team)"}},
		},
		"ShardNamedLikeANeighbour": {
			reason: "A shard whose XR name another installation's XR holds names the shard's field.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "b"}}
			}),
			world: testworld.New().Answer(policyAnswered).Object(xr("RootShard", "team-a-b", metav1.OwnerReference{Kind: "KcpInstallation", Name: "team-a-b", UID: "uid-of-team-a-b"})),
			want:  want{errs: []string{"spec.shards[0]: Forbidden: the Shard tenant/team-a-b this would compose is taken: RootShard tenant/team-a-b exists and is not controlled by this KcpInstallation (its controller is KcpInstallation team-a-b); it is left untouched; choose another spec.shards[0].name or rename this KcpInstallation"}},
		},
		"PlatformFrontProxyOfTheDefaultName": {
			reason: "The default front-proxy's XR name is taken: say how to name it, since the tenant wrote no spec.frontProxies.",
			inst:   tenant(),
			world:  testworld.New().Answer(policyAnswered).Object(xr("FrontProxy", "team-a-public", none)),
			want:   want{errs: []string{"spec.frontProxies[0]: Forbidden: the FrontProxy tenant/team-a-public this would compose is taken: FrontProxy tenant/team-a-public exists and is not controlled by this KcpInstallation (it has no controller); it is left untouched; name the front-proxy yourself in spec.frontProxies (the default is public) or rename this KcpInstallation"}},
		},
		"OwnChildren": {
			reason: "XRs this installation controls are its own, observed or not.",
			inst:   tenant(),
			world:  testworld.New().Answer(policyAnswered).Object(xr("RootShard", "team-a", thisOne)).Object(xr("FrontProxy", "team-a-public", thisOne)),
		},
		"PlatformEtcd": {
			reason: "A StatefulSet of the managed etcd's name that this installation does not control is not taken over.",
			inst:   tenant(),
			world: testworld.New().Answer(policyAnswered).Object(map[string]any{
				"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "team-a-etcd", "namespace": "tenant"},
			}),
			want: want{errs: []string{"metadata.name: Forbidden: the StatefulSet tenant/team-a-etcd this would compose is taken"}},
		},
		"ReservedShardNames": {
			reason: "Shards named proxy, etcd or cache would compose objects named like the root shard's proxy, etcd and the cache server.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "proxy"}, {Name: "etcd"}, {Name: "cache"}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want: want{errs: []string{
				`spec.shards[0].name: Invalid value: "proxy": "proxy" is reserved`,
				`spec.shards[1].name: Invalid value: "etcd": "etcd" is reserved`,
				`spec.shards[2].name: Invalid value: "cache": "cache" is reserved`,
			}},
		},
		"ShardNamedLikeTheDefaultFrontProxy": {
			reason: "Shard public and the default front-proxy public would both be XRs team-a-public.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "public"}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{`spec.shards[0].name: Invalid value: "public": spec.frontProxies[default] already names public`}},
		},
		"ShardAndFrontProxyOfOneName": {
			reason: "A shard and a front-proxy of one name compose the same merged CA Secrets.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "edge"}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "edge"}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{`spec.frontProxies[0].name: Invalid value: "edge": spec.shards[0].name already names edge`}},
		},
		"ShardDerivesARootShardName": {
			reason: "Shard external composes <installation>-external-logical-cluster-admin, the root shard's certificate of that name; no reserved name says so.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "external"}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{"spec.shards[0].name: Forbidden: the Shard team-a-external this makes would compose team-a-external-logical-cluster-admin, which this installation's RootShard team-a composes too; choose another name"}},
		},
		"AdminSecretNamedLikeTheRootCA": {
			reason: "The admin kubeconfig written into the root CA's Secret would replace the CA.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Admin = &v1alpha1.InstallationAdmin{SecretName: "team-a-ca"}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{"spec.admin: Forbidden: the Kubeconfig team-a-admin this makes would compose team-a-ca, which this installation's RootShard team-a composes too"}},
		},
		"AdminSecretNamedLikeTheReference": {
			reason: "Nor into the reference Secret the root shard publishes: it would turn a Secret anyone may read into one that holds a key.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Admin = &v1alpha1.InstallationAdmin{SecretName: "team-a-reference"}
			}),
			world: testworld.New().Answer(policyAnswered),
			want:  want{errs: []string{"spec.admin: Forbidden: the Kubeconfig team-a-admin this makes would compose team-a-reference, which this installation's RootShard team-a composes too"}},
		},
		"GatewayOfItsNamespace": {
			reason: "A Gateway of the installation's own namespace is the tenant's own: allowed without a policy.",
			inst:   tenant(gateway("kcp", "tenant")),
			world:  testworld.New().Answer(policyAnswered),
		},
		"SharedGatewayWithoutPolicy": {
			reason: "A route on the platform's shared Gateway claims a hostname there: refused unless the platform allows it, naming the field and the policy.",
			inst:   tenant(gateway("shared", "gateways")),
			world:  testworld.New().Answer(policyAnswered),
			want:   want{errs: []string{"spec.frontProxies[0].exposure.gateway: Forbidden: Gateway gateways/shared is not allowed for installations in namespace tenant by the platform's policy (EnvironmentConfig kcp-self-service, data.gateways)"}},
		},
		"SharedGatewayAllowedElsewhere": {
			reason: "A rule for other namespaces does not allow this one.",
			inst:   tenant(gateway("shared", "gateways")),
			world:  testworld.New().Answer(policyAnswered).Object(gatewayPolicy(map[string]any{"name": "shared", "namespace": "gateways", "namespaces": []any{"platform"}})),
			want:   want{errs: []string{"spec.frontProxies[0].exposure.gateway: Forbidden: Gateway gateways/shared"}},
		},
		"SharedGatewayAllowed": {
			reason: "The platform allows its Gateway for every namespace.",
			inst:   tenant(gateway("shared", "gateways")),
			world:  testworld.New().Answer(policyAnswered).Object(gatewayPolicy(map[string]any{"name": "shared", "namespace": "gateways", "namespaces": []any{"*"}})),
		},
		"ProfilingWithoutPolicy": {
			reason: "A profile takes the platform's CPU and a heap profile holds kcp's credentials: refused unless the platform allows it, naming the field and the policy.",
			inst:   tenant(profiled),
			world:  testworld.New().Answer(policyAnswered),
			want:   want{errs: []string{"spec.profiling: Forbidden: profiling is not allowed for installations in namespace tenant by the platform's policy (EnvironmentConfig kcp-self-service, data.features.profiling); remove it, or ask the platform team to allow it there"}},
		},
		"ProfilingOfOneComponent": {
			reason: "A component's own profiling is refused at its own field, wherever it is turned on.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "edge", VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{
					External: v1alpha1.InstallationExternal{Hostname: "vw.example.com"}, Profiling: &v1alpha1.Profiling{Enabled: true},
				}}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Profiling: &v1alpha1.Profiling{Enabled: true}}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want: want{errs: []string{
				"spec.shards[0].virtualWorkspace.profiling: Forbidden: profiling is not allowed",
				"spec.frontProxies[0].profiling: Forbidden: profiling is not allowed",
			}},
		},
		"ProfilingOffIsNotAsked": {
			reason: "A component that turns profiling off asks for nothing, whatever the installation says.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Profiling: &v1alpha1.Profiling{Port: 7070}}
			}),
			world: testworld.New().Answer(policyAnswered),
		},
		"ProfilingAllowedElsewhere": {
			reason: "A rule for other namespaces does not allow this one.",
			inst:   tenant(profiled),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(map[string]any{"profiling": []any{"team-b"}})),
			want:   want{errs: []string{"spec.profiling: Forbidden: profiling is not allowed for installations in namespace tenant"}},
		},
		"ProfilingAllowed": {
			reason: "The platform allows profiling in the namespace.",
			inst:   tenant(profiled),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(map[string]any{"profiling": []any{"tenant"}})),
		},
		"ProfilingAllowsNoAuditLog": {
			reason: "Each feature is allowed on its own: profiling allowed everywhere does not allow an audit log.",
			inst:   tenant(profiled, auditLogged),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(map[string]any{"profiling": []any{"*"}})),
			want:   want{errs: []string{"spec.audit.log: Forbidden: an audit log is not allowed for installations in namespace tenant by the platform's policy (EnvironmentConfig kcp-self-service, data.features.auditLogs)"}},
		},
		"AuditLogAllowedEverywhere": {
			reason: `"*" allows every namespace.`,
			inst:   tenant(auditLogged),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(map[string]any{"auditLogs": []any{"*"}})),
		},
		"LoadBalancerSettingsWithoutPolicy": {
			reason: "A hostile tenant asks for a cloud load balancer of its choosing, a platform address, another class and a node port on every node: each is refused at its own field, naming the policy.",
			inst:   tenant(loadBalanced),
			world:  testworld.New().Answer(policyAnswered),
			want: want{errs: []string{
				"spec.frontProxies[0].service.annotations: Forbidden: a front-proxy Service's annotations is not allowed for installations in namespace tenant by the platform's policy (EnvironmentConfig kcp-self-service, data.features.loadBalancers)",
				"spec.frontProxies[0].service.loadBalancerIP: Forbidden: a front-proxy Service's loadBalancerIP is not allowed",
				"spec.frontProxies[0].service.loadBalancerClass: Forbidden: a front-proxy Service's loadBalancerClass is not allowed",
				"spec.frontProxies[0].service.nodePort: Forbidden: a front-proxy Service's nodePort is not allowed",
			}},
		},
		"ExternalTrafficPolicyNeedsNoPolicy": {
			reason: "Keeping the client's address claims nothing of the platform's: allowed without a policy.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Service: &v1alpha1.FrontProxyService{ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal}}}
			}),
			world: testworld.New().Answer(policyAnswered),
		},
		"LoadBalancerSettingsAllowed": {
			reason: "The platform allows load balancer settings in the namespace.",
			inst:   tenant(loadBalanced),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(map[string]any{"loadBalancers": []any{"tenant"}})),
		},
		"LoadBalancerSettingsInAPlatformNamespace": {
			reason: "The platform's own installations may set them without being listed.",
			inst:   tenant(loadBalanced, func(i *v1alpha1.KcpInstallation) { i.Namespace = "platform" }),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(nil)),
		},
		"HostAliasesForWhatKcpDials": {
			reason: "A hostile tenant aliases what its components dial to its own address: a Service, a short name, the cluster's domain, its public name and its external etcd are each refused at their index; a name kcp does not dial is kept.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Etcd = &v1alpha1.InstallationEtcd{External: &v1alpha1.EtcdConfig{Endpoints: []string{"https://etcd.corp.example.com:2379"}}}
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{HostAliases: []corev1.HostAlias{
					{IP: "10.1.2.3", Hostnames: []string{"team-a-cache.tenant.svc.cluster.local", "ldap.corp.example.com", "team-a-etcd", "api.cluster.local"}},
				}}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Extra: &v1alpha1.ComponentExtra{HostAliases: []corev1.HostAlias{
					{IP: "10.1.2.4", Hostnames: []string{"KCP.example.com.", "etcd.corp.example.com", "localhost"}},
				}}}}
			}),
			world: testworld.New().Answer(policyAnswered),
			want: want{errs: []string{
				"spec.rootShard.extra.hostAliases[0].hostnames[0]: Forbidden: team-a-cache.tenant.svc.cluster.local is a Service's name, which kcp's components dial: an alias would send their traffic to 10.1.2.3 instead",
				"spec.rootShard.extra.hostAliases[0].hostnames[2]: Forbidden: team-a-etcd is a single label, which the namespace's search domains resolve to a Service",
				"spec.rootShard.extra.hostAliases[0].hostnames[3]: Forbidden: api.cluster.local is a name of the cluster's domain cluster.local",
				"spec.frontProxies[0].extra.hostAliases[0].hostnames[0]: Forbidden: KCP.example.com. is a name this installation serves (spec.external.hostname)",
				"spec.frontProxies[0].extra.hostAliases[0].hostnames[1]: Forbidden: etcd.corp.example.com is the installation's etcd (spec.etcd.external.endpoints[0])",
				"spec.frontProxies[0].extra.hostAliases[0].hostnames[2]: Forbidden: localhost is the pod itself",
			}},
		},
		"PodUserOfItsOwn": {
			reason: "A tenant may choose another non-root user and groups, with no feature: a pod's IDs reach nothing of another team's (no host volume is offered, and a claim's files are the tenant's own).",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{SecurityContext: &v1alpha1.PodSecurity{RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](1000)}}}
			}),
			world: testworld.New().Answer(policyAnswered),
		},
		"HostAliasesOfOtherNames": {
			reason: "A name kcp does not dial (a directory, an OIDC issuer) may be aliased by a tenant.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{HostAliases: []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"ldap.corp.example.com"}}}}}
			}),
			world: testworld.New().Answer(policyAnswered),
		},
		"HostAliasesInAPlatformNamespace": {
			reason: "The platform's own installations may alias anything.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Namespace = "platform"
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{HostAliases: []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"kcp.example.com", "team-a-etcd"}}}}}
			}),
			world: testworld.New().Answer(policyAnswered).Object(featurePolicy(nil)),
		},
		"FeaturesInAPlatformNamespace": {
			reason: "The platform's own installations may turn on every feature.",
			inst:   tenant(profiled, auditLogged, func(i *v1alpha1.KcpInstallation) { i.Namespace = "platform" }),
			world:  testworld.New().Answer(policyAnswered).Object(featurePolicy(nil)),
		},
		"RouteNameTaken": {
			reason: "A TLSRoute of the front-proxy's name that this installation does not control is left alone.",
			inst:   tenant(gateway("kcp", "tenant")),
			world: testworld.New().Answer(policyAnswered).Object(map[string]any{
				"apiVersion": "gateway.networking.k8s.io/v1", "kind": "TLSRoute", "metadata": map[string]any{"name": "team-a-public", "namespace": "tenant"},
			}),
			want: want{errs: []string{"spec.frontProxies[0].exposure: Forbidden: the TLSRoute tenant/team-a-public this would compose is taken: TLSRoute tenant/team-a-public exists and is not controlled by this KcpInstallation (it has no controller); it is left untouched"}},
		},
		"OlderNeighbourDerivesTheName": {
			reason: "Installation team-proxy next to an older team: its root shard's serving certificate team-proxy-server is team's internal proxy's; the later one yields, naming the holder.",
			inst:   tenant(named("team-proxy", "2026-01-02T00:00:00Z")),
			world:  testworld.New().Answer(policyAnswered).Object(neighbour("team", "2026-01-01T00:00:00Z")),
			want:   want{errs: []string{"metadata.name: Forbidden: the RootShard team-proxy this makes would compose team-proxy-server, which the RootShard team of KcpInstallation tenant/team (created before this one) composes; nothing of it is changed; rename this KcpInstallation or the part"}},
		},
		"YoungerNeighbourYields": {
			reason: "Of two installations deriving one name, the one created first keeps running: the later one is refused, not this one.",
			inst:   tenant(named("team", "2026-01-01T00:00:00Z")),
			world:  testworld.New().Answer(policyAnswered).Object(neighbour("team-proxy", "2026-01-02T00:00:00Z")),
		},
		"NeighbourShardDerivesTheName": {
			reason: "A neighbour's shard counts like its root shard: team with shard a-b composes team-a-b-server, team-a's shard b composes it too.",
			inst: tenant(named("team-a", "2026-01-02T00:00:00Z"), func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "b"}}
			}),
			world: testworld.New().Answer(policyAnswered).Object(neighbour("team", "2026-01-01T00:00:00Z", func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "a-b"}}
			})),
			want: want{errs: []string{"spec.shards[0].name: Forbidden: the Shard team-a-b this makes would compose team-a-b-server, which the Shard team-a-b of KcpInstallation tenant/team (created before this one) composes"}},
		},
		"PlatformRootShardDerivesTheName": {
			reason: "The platform's RootShard team composes team-proxy-server: an installation team-proxy would fight it for that Certificate.",
			inst:   tenant(named("team-proxy", "2026-01-02T00:00:00Z")),
			world:  testworld.New().Answer(policyAnswered).Object(xr("RootShard", "team", none)),
			want:   want{errs: []string{"metadata.name: Forbidden: the RootShard team-proxy this makes would compose team-proxy-server, which the tenant/RootShard team, which this installation does not control, composes"}},
		},
		"UnrelatedNeighbours": {
			reason: "Installations whose names only share a prefix (prod, prod-eu) derive no common name.",
			inst:   tenant(named("prod-eu", "2026-01-02T00:00:00Z")),
			world:  testworld.New().Answer(policyAnswered).Object(neighbour("prod", "2026-01-01T00:00:00Z")).Object(xr("RootShard", "prod", neighbourA)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.inst, tc.world.State(), noValidation)
			got := make([]string, 0, len(errs))
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want.errs) {
				t.Fatalf("%s\nCompose(...): got errors %q, want %d matching %q", tc.reason, got, len(tc.want.errs), tc.want.errs)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want.errs[i]) {
					t.Errorf("%s\nCompose(...): error %d\n got: %s\nwant: ...%s...", tc.reason, i, got[i], tc.want.errs[i])
				}
			}
			if len(errs) > 0 && len(r.Desired.Objects()) > 0 {
				t.Errorf("%s\nCompose(...): refused but desired %d objects", tc.reason, len(r.Desired.Objects()))
			}
		})
	}
}

// TestSafetyRequirements checks that the installation asks Crossplane for what its checks
// read: the policy, every XR that could hold a child's name, and the etcd StatefulSet.
func TestSafetyRequirements(t *testing.T) {
	r, errs := Compose(tenant(), testworld.New().State(), noValidation)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := make([]string, 0, len(r.Requirements))
	for _, q := range r.Requirements {
		got = append(got, q.Key())
	}
	want := []string{"environmentconfig/kcp-self-service", "rootshard/*", "shard/*", "cacheserver/*", "frontproxy/*", "virtualworkspace/*", "kubeconfig/*", "kcpinstallation/*", "statefulset/team-a-etcd",
		"rootshard/zone.kcp.crossplane.io/example.com=true", "shard/zone.kcp.crossplane.io/example.com=true", "frontproxy/zone.kcp.crossplane.io/example.com=true", "virtualworkspace/zone.kcp.crossplane.io/example.com=true",
		"frontproxy/kcp.crossplane.io/hostname=kcp.example.com"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compose(...).Requirements: -want, +got:\n%s", diff)
	}
	if !r.Requirements[0].ClusterScoped {
		t.Errorf("the policy requirement must be cluster-scoped: %+v", r.Requirements[0])
	}
}

// named renames the installation and sets when it was created.
func named(name, created string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		ts, err := time.Parse(time.RFC3339, created)
		if err != nil {
			panic(err)
		}
		i.Name, i.CreationTimestamp = name, metav1.NewTime(ts)
	}
}

// neighbour is another tenant's installation in the namespace, as Crossplane returns it.
func neighbour(name, created string, mods ...func(*v1alpha1.KcpInstallation)) map[string]any {
	i := smallest()
	i.UID = types.UID("uid-of-" + name)
	named(name, created)(i)
	for _, m := range mods {
		m(i)
	}
	i.APIVersion, i.Kind = v1alpha1.Group+"/"+v1alpha1.Version, "KcpInstallation"
	raw, err := json.Marshal(i)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}

// noValidation stands in for fn.go's kinds: these cases are about the installation's own
// checks.
var noValidation = Kinds{}
