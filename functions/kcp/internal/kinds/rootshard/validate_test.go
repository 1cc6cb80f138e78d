package rootshard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.RootShard)
		want   []string
	}{
		"Valid": {
			reason: "examples/basic is valid",
			mod:    func(*v1alpha1.RootShard) {},
		},
		"BothCASources": {
			reason: "issuerRef and caSecretRef exclude each other",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Certificates.CASecretRef = &corev1.LocalObjectReference{Name: "ca"}
			},
			want: []string{"spec.certificates: Forbidden: set either issuerRef (a cert-manager issuer for the root CA) or caSecretRef (an existing CA Secret), not both"},
		},
		"IssuerKind": {
			reason: "cert-manager issuers are Issuers or ClusterIssuers",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.Certificates.IssuerRef.Kind = "Issuers" },
			want:   []string{`spec.certificates.issuerRef.kind: Unsupported value: "Issuers": supported values: "Issuer", "ClusterIssuer"`},
		},
		"ExternalIssuerKind": {
			reason: "issuers of other groups may have any kind",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: "vault", Kind: "VaultIssuer", Group: "example.io"}
			},
		},
		"StructuredAuthenticationAndOIDC": {
			reason: "kcp refuses --oidc-* flags beside --authentication-config: one or the other",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Auth = &v1alpha1.AuthSpec{
					OIDC:                        &v1alpha1.OIDCConfiguration{IssuerURL: "https://idp.example.com", ClientID: "kcp"},
					AuthenticationConfiguration: &v1alpha1.LocalDataKeyReference{Name: "authn"},
					ServiceAccount:              &v1alpha1.ServiceAccountAuthentication{Enabled: true},
				}
			},
			want: []string{
				"spec.auth.authenticationConfiguration: Forbidden: set either oidc or authenticationConfiguration, not both: kcp refuses --oidc-* flags beside --authentication-config; move the issuer into the configuration's jwt list",
				"spec.auth.authenticationConfiguration.key: Required value: name the ConfigMap's key holding the AuthenticationConfiguration, e.g. config.yaml",
			},
		},
		"StructuredAuthentication": {
			reason: "a structured authentication configuration alone is fine",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Auth = &v1alpha1.AuthSpec{AuthenticationConfiguration: &v1alpha1.LocalDataKeyReference{Name: "authn", Key: "config.yaml"}}
			},
		},
		"EtcdEndpoint": {
			reason: "etcd endpoints are URLs",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.Etcd.Endpoints = []string{"etcd:2379"} },
			want:   []string{`spec.etcd.endpoints[0]: Invalid value: "etcd:2379": must be an etcd client URL such as https://etcd:2379`},
		},
		"EmbeddedCacheUnderPrefixOnV032": {
			reason: "kcp v0.32.3's embedded cache stores under /cache, apart from a root shard under /root",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.Etcd.Prefix = "/root" },
		},
		"EmbeddedCacheUnderPrefixOnNextKCP": {
			reason: "from kcp v0.33.0 the embedded cache stores under the root shard's prefix, among its keys",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Etcd.Prefix = "/root"
				rs.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"}
			},
			want: []string{"spec.etcd.prefix: Forbidden: kcp v0.33.0's embedded cache stores under the root shard's own --etcd-prefix=/root, among the shard's keys, which kcp then reads as logical clusters of the shard (kcp#4292 made the cache honour the prefix; the embedded cache inherits the shard's); name a CacheServer in spec.cache.ref, store the root shard without a prefix, or stay on kcp v0.32 (spec.image.tag)"},
		},
		"CacheServerUnderPrefixOnNextKCP": {
			reason: "a root shard with a CacheServer runs no embedded cache",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Etcd.Prefix = "/root"
				rs.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"}
				rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"}
			},
		},
		"ObjectLimitOnV032": {
			reason: "kcp v0.32.3 has no object limit flags and would not start with them",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.ObjectLimit = &v1alpha1.ObjectLimit{Total: 10000} },
			want:   []string{"spec.objectLimit: Forbidden: kcp v0.32.3 has no --logical-cluster-total-object-limit and would not start with it (it comes with kcp's release after v0.32.3); remove it, or run kcp v0.33.0 or later (spec.image.tag)"},
		},
		"ObjectLimitOnNextKCP": {
			reason: "kcp v0.33.0 takes the object limit",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.ObjectLimit = &v1alpha1.ObjectLimit{Total: 10000}
				rs.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"}
			},
		},
		"ShardBaseURLWithPath": {
			reason: "the base URL has no path: kcp appends its own",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.example.com:6443/clusters/root" },
			want:   []string{`spec.shardBaseURL: Invalid value: "https://root.example.com:6443/clusters/root": must be an https URL with host and optional port and no path, for example https://root.kcp.svc.cluster.local:6443`},
		},
		"ShardBaseURLOK": {
			reason: "an https URL with port is fine",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.example.com:6443" },
		},
		"HostnameWithPort": {
			reason: "the external hostname has no port",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.External.Hostname = "api.example.com:443" },
			want:   []string{`spec.external.hostname: Invalid value: "api.example.com:443": must be a DNS name or IP address without scheme or port`},
		},
		"HostnameIP": {
			reason: "an IP address is a valid hostname",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.External.Hostname = "192.0.2.10" },
		},
		"Repository": {
			reason: "repositories carry no tag",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Image = &v1alpha1.ImageSpec{Repository: "ghcr.io/kcp-dev/kcp:v1"}
			},
			want: []string{`spec.image.repository: Invalid value: "ghcr.io/kcp-dev/kcp:v1": must be an image repository without tag, for example ghcr.io/kcp-dev/kcp`},
		},
		"ProxyReplicas": {
			reason: "replicas are not negative",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Proxy = &v1alpha1.RootShardProxySpec{Replicas: ptr.To[int32](-1)}
			},
			want: []string{"spec.proxy.replicas: Invalid value: -1: must not be negative"},
		},
		"ExtraVolumeClash": {
			reason: "an extra volume must not reuse a generated volume name",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.ExtraVolumes = []corev1.Volume{{Name: "server-cert"}, {Name: "encryption"}}
				rs.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "encryption"}, {Name: "typo"}}
			},
			want: []string{
				`spec.extraVolumes[0].name: Duplicate value: "server-cert"`,
				`spec.extraVolumeMounts[1].name: Not found: "typo"`,
			},
		},
		"Public": {
			reason: "a public name with a certificate from the user's issuer, beside the in-cluster shardBaseURL",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.ShardBaseURL = "https://root-kcp.kcp.svc.cluster.local:6443"
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", Port: 443, ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}}}
			},
		},
		"PublicHostnameWithScheme": {
			reason: "spec.public.hostname is a DNS name",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "https://root.kcp.example.com"}
			},
			want: []string{`spec.public.hostname: Invalid value: "https://root.kcp.example.com": must be a DNS name without scheme or port`},
		},
		"PublicCertificateIssuer": {
			reason: "the public certificate names its issuer",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{}}
			},
			want: []string{"spec.public.serverCertificate.issuerRef.name: Required value: name the cert-manager issuer"},
		},
		"PublicCertificateOnShardBaseURL": {
			reason: "kcp's components dial shardBaseURL: a wildcard of the public certificate must not cover it",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.ShardBaseURL = "https://internal.kcp.example.com:6443"
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{
					IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}, DNSNames: []string{"*.kcp.example.com"},
				}}
			},
			want: []string{`spec.public.serverCertificate: Invalid value: "internal.kcp.example.com": spec.shardBaseURL names internal.kcp.example.com, which this certificate serves, so kcp's own components would be served a certificate they cannot verify: leave spec.shardBaseURL unset (the in-cluster Service) or set it to another name`},
		},
		"PublicCertVolumeClash": {
			reason: "with a public certificate, public-server-cert is a generated volume",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}}}
				rs.Spec.ExtraVolumes = []corev1.Volume{{Name: "public-server-cert"}}
			},
			want: []string{`spec.extraVolumes[0].name: Duplicate value: "public-server-cert"`},
		},
		"ProxyExtraMountOfGeneratedVolume": {
			reason: "extra mounts may mount a generated volume elsewhere",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Proxy = &v1alpha1.RootShardProxySpec{ExtraVolumeMounts: []corev1.VolumeMount{{Name: "root-proxy-config", MountPath: "/x"}}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(basic(tc.mod)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
