package cacheserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   []string
	}{
		"Valid": {
			reason: "The smallest CacheServer is valid.",
			cs:     basic(),
		},
		"ValidExternal": {
			reason: "An external etcd with TLS and 3 replicas is valid.",
			cs:     basic(withEtcd(tlsEtcd), func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](3) }),
		},
		"MissingIssuerRef": {
			reason: "quirk 6: kcp-operator panics without issuerRef; we say what to set.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.Certificates = v1alpha1.Certificates{} }),
			want: []string{"spec.certificates.issuerRef: Required value: a CacheServer's CA must be issued by cert-manager: " +
				"set issuerRef to the Issuer or ClusterIssuer that issues it, for example {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}"},
		},
		"CASecretRefOnly": {
			reason: "A CA Secret cannot replace the cert-manager issued <cs>-ca that consumers mount.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
			}),
			want: []string{"spec.certificates.caSecretRef: Forbidden: a CacheServer's CA is always issued by cert-manager into the Secret <name>-ca that shards mount; " +
				"remove caSecretRef and set issuerRef to a cert-manager Issuer or ClusterIssuer"},
		},
		"BothCASources": {
			reason: "issuerRef and caSecretRef together are rejected too.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.Certificates.CASecretRef = &corev1.LocalObjectReference{Name: "my-ca"}
			}),
			want: []string{"spec.certificates.caSecretRef: Forbidden: a CacheServer's CA is always issued by cert-manager into the Secret <name>-ca that shards mount; " +
				"remove caSecretRef and set issuerRef to a cert-manager Issuer or ClusterIssuer"},
		},
		"IssuerRefWithoutName": {
			reason: "The issuer must be named.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.Certificates.IssuerRef.Name = "" }),
			want:   []string{"spec.certificates.issuerRef.name: Required value: name the cert-manager issuer"},
		},
		"IssuerKind": {
			reason: "cert-manager issuers are Issuers or ClusterIssuers.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.Certificates.IssuerRef.Kind = "Issuers" }),
			want:   []string{`spec.certificates.issuerRef.kind: Unsupported value: "Issuers": supported values: "Issuer", "ClusterIssuer"`},
		},
		"ExternalIssuerKind": {
			reason: "Issuers of other groups may have any kind.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: "vault", Kind: "VaultIssuer", Group: "example.io"}
			}),
		},
		"ReplicasWithoutEtcd": {
			reason: "The embedded etcd cannot be shared by several replicas (the XRD's CEL rule says so too).",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](2) }),
			want: []string{"spec.replicas: Invalid value: 2: without spec.etcd the cache server keeps its data in an embedded etcd that only one replica can use; " +
				"remove spec.replicas or set it to 1, or set spec.etcd to an external etcd to run more replicas"},
		},
		"NegativeReplicas": {
			reason: "Replicas cannot be negative.",
			cs:     basic(withEtcd(plainEtcd), func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](-1) }),
			want:   []string{"spec.replicas: Invalid value: -1: must not be negative"},
		},
		"EtcdEndpoints": {
			reason: "An external etcd needs client URLs and a named TLS Secret.",
			cs: basic(withEtcd(v1alpha1.EtcdConfig{
				Endpoints: []string{"etcd:2379"}, TLSConfig: &v1alpha1.EtcdTLSConfig{},
			})),
			want: []string{
				`spec.etcd.endpoints[0]: Invalid value: "etcd:2379": must be an etcd client URL such as https://etcd:2379`,
				"spec.etcd.tlsConfig.secretRef.name: Required value: name the Secret with tls.crt, tls.key and ca.crt for etcd",
			},
		},
		"EmptyEtcd": {
			reason: "spec.etcd: {} is an external etcd without endpoints.",
			cs:     basic(withEtcd(v1alpha1.EtcdConfig{})),
			want:   []string{"spec.etcd.endpoints: Required value: list at least one etcd client URL, for example https://etcd:2379"},
		},
		"ImageTag": {
			reason: "An image tag with illegal characters never pulls.",
			cs:     basic(withTag("v0.32:3")),
			want:   []string{`spec.image.tag: Invalid value: "v0.32:3": must be a valid image tag (letters, digits, '_', '.', '-'; at most 128 characters), for example v0.32.3`},
		},
		"ClusterDomain": {
			reason: "The cluster domain is a DNS name.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.ClusterDomain = "Cluster_Local" }),
			want: []string{`spec.clusterDomain: Invalid value: "Cluster_Local": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
				`and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
		"NameTooLong": {
			reason: "<name>-cache-server must fit a 63-character Service name.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Name = strings.Repeat("c", 51) }),
			want:   []string{"metadata.name: Too long: may not be more than 50 bytes"},
		},
		"NameLongest": {
			reason: "50 characters fit.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Name = strings.Repeat("c", 50) }),
		},
		"ExtraVolumeClash": {
			reason: "An extra volume may not reuse a generated volume name; extra mounts name existing volumes.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.ExtraVolumes = []corev1.Volume{{Name: "etcd-scratch"}, {Name: "mine"}}
				cs.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "mine", MountPath: "/mine"}, {Name: "nope", MountPath: "/nope"}}
			}),
			want: []string{
				`spec.extraVolumes[0].name: Duplicate value: "etcd-scratch"`,
				`spec.extraVolumeMounts[1].name: Not found: "nope"`,
			},
		},
		"ExtraVolumeMountsGenerated": {
			reason: "Extra mounts may mount a generated volume elsewhere; etcd-scratch is free with an external etcd.",
			cs: basic(withEtcd(plainEtcd), func(cs *v1alpha1.CacheServer) {
				cs.Spec.ExtraVolumes = []corev1.Volume{{Name: "etcd-scratch"}}
				cs.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "serving-cert", MountPath: "/again"}}
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.cs) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   []string
	}{
		"None": {
			reason: "The known template keys warn of nothing.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{"root-ca": {}, "server": {}, "client": {}}
				cs.Spec.Replicas = ptr.To[int32](1)
			}),
		},
		"UnknownTemplateKeys": {
			reason: "Keys that match no certificate are named, sorted.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{"server-ca": {}, "ca": {}}
			}),
			want: []string{
				`spec.certificateTemplates["ca"] matches no certificate and is ignored; known keys: [root-ca server client]`,
				`spec.certificateTemplates["server-ca"] matches no certificate and is ignored; known keys: [root-ca server client]`,
			},
		},
		"ZeroReplicasEmbedded": {
			reason: "kcp-operator ignores spec.replicas with the embedded etcd; 0 does not stop it.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](0) }),
			want:   []string{"spec.replicas: 0 is ignored without spec.etcd: a cache server with an embedded etcd always runs exactly 1 replica"},
		},
		"IgnoredEtcdPrefix": {
			reason: "kcp v0.32.3's cache server keeps its data under /cache whatever spec.etcd.prefix says: another cache server on the same etcd would share it.",
			cs:     basic(withEtcd(v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}, Prefix: "/team-a-cache"})),
			want:   []string{"spec.etcd.prefix: kcp v0.32.3's cache server ignores --etcd-prefix=/team-a-cache and keeps its data under /cache, which every other cache server on this etcd shares (kcp#4292 fixes this in the release after v0.32.3): let no other cache server use this etcd, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)"},
		},
		"HonouredEtcdPrefix": {
			reason: "kcp v0.33.0 stores where spec.etcd.prefix says.",
			cs:     basic(withTag("v0.33.0"), withEtcd(v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}, Prefix: "/team-a-cache"})),
		},
		"CachePrefix": {
			reason: "/cache is where kcp v0.32.3 stores anyway.",
			cs:     basic(withEtcd(tlsEtcd)),
		},
		"ZeroReplicasExternal": {
			reason: "With an external etcd 0 replicas is honoured.",
			cs:     basic(withEtcd(plainEtcd), func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](0) }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Warnings(tc.cs)); diff != "" {
				t.Errorf("%s\nWarnings(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
