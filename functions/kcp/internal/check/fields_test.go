package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestPublic(t *testing.T) {
	p := field.NewPath("spec", "public")
	letsencrypt := v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}
	withCert := func(host string, dnsNames ...string) *v1alpha1.PublicEndpoint {
		return &v1alpha1.PublicEndpoint{Hostname: host, ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt, DNSNames: dnsNames}}
	}
	cases := map[string]struct {
		reason       string
		public       *v1alpha1.PublicEndpoint
		shardBaseURL string
		want         []string
	}{
		"Unset": {
			reason: "Without spec.public there is nothing to check.",
		},
		"Valid": {
			reason: "A DNS name, a port and a certificate from an issuer are fine; the in-cluster shardBaseURL is another name.",
			public: &v1alpha1.PublicEndpoint{
				Hostname: "alpha.kcp.example.com", Port: 443,
				ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt, DNSNames: []string{"alpha.kcp.example.com", "*.alpha.kcp.example.com"}},
			},
			shardBaseURL: "https://alpha-shard-kcp.kcp.svc.cluster.local:6443",
		},
		"DefaultPort": {
			reason: "Port 0 is the default, 6443.",
			public: &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com"},
		},
		"NoHostname": {
			reason: "A public endpoint needs its name; the message says which and how to do without.",
			public: &v1alpha1.PublicEndpoint{},
			want:   []string{"spec.public.hostname: Required value: set the shard's public DNS name, for example alpha.kcp.example.com, or remove spec.public"},
		},
		"HostnameWithSchemeAndPort": {
			reason: "The hostname is a name only: the scheme is https and the port has its own field.",
			public: &v1alpha1.PublicEndpoint{Hostname: "https://alpha.kcp.example.com:443"},
			want:   []string{`spec.public.hostname: Invalid value: "https://alpha.kcp.example.com:443": must be a DNS name without scheme or port`},
		},
		"PortTooBig": {
			reason: "A port above 65535 is no port.",
			public: &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", Port: 65536},
			want:   []string{"spec.public.port: Invalid value: 65536: must be a port between 1 and 65535, for example 6443"},
		},
		"HighestPort": {
			reason: "65535 is a port.",
			public: &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", Port: 65535},
		},
		"CertificateWithoutIssuer": {
			reason: "The public certificate's issuer is checked like every issuerRef, under serverCertificate.",
			public: &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{
				IssuerRef: v1alpha1.ObjectReference{Kind: "Issuers"},
			}},
			want: []string{
				"spec.public.serverCertificate.issuerRef.name: Required value: name the cert-manager issuer",
				`spec.public.serverCertificate.issuerRef.kind: Unsupported value: "Issuers": supported values: "Issuer", "ClusterIssuer"`,
			},
		},
		"CertificateBadDNSName": {
			reason: "Each of the certificate's names is a DNS name or a wildcard, reported at its index.",
			public: withCert("alpha.kcp.example.com", "alpha.kcp.example.com", "bad name", "*.kcp.example.com"),
			want:   []string{`spec.public.serverCertificate.dnsNames[1]: Invalid value: "bad name": must be a DNS name, optionally starting with *.`},
		},
		"ShardBaseURLIsThePublicHostname": {
			reason:       "kcp's components dial shardBaseURL and would be served the public certificate, which they cannot verify: refused, saying how to fix it.",
			public:       withCert("alpha.kcp.example.com"),
			shardBaseURL: "https://alpha.kcp.example.com:6443",
			want:         []string{`spec.public.serverCertificate: Invalid value: "alpha.kcp.example.com": spec.shardBaseURL names alpha.kcp.example.com, which this certificate serves, so kcp's own components would be served a certificate they cannot verify: leave spec.shardBaseURL unset (the in-cluster Service) or set it to another name`},
		},
		"ShardBaseURLAmongTheDNSNames": {
			reason:       "The certificate's dnsNames, not only the hostname, are what it serves.",
			public:       withCert("alpha.kcp.example.com", "alpha.kcp.example.com", "internal.kcp.example.com"),
			shardBaseURL: "https://internal.kcp.example.com:6443",
			want:         []string{`spec.public.serverCertificate: Invalid value: "internal.kcp.example.com": spec.shardBaseURL names internal.kcp.example.com, which this certificate serves`},
		},
		"ShardBaseURLUnderAWildcard": {
			reason:       "TLS SNI picks a wildcard's certificate for a name one label below it: kcp's components would be served the public certificate as well.",
			public:       withCert("alpha.kcp.example.com", "*.kcp.example.com"),
			shardBaseURL: "https://internal.kcp.example.com:6443",
			want:         []string{`spec.public.serverCertificate: Invalid value: "internal.kcp.example.com": spec.shardBaseURL names internal.kcp.example.com, which this certificate serves`},
		},
		"ShardBaseURLTwoLabelsBelowAWildcard": {
			reason:       "A wildcard covers one label only, as in TLS SNI.",
			public:       withCert("alpha.kcp.example.com", "*.example.com"),
			shardBaseURL: "https://internal.kcp.example.com:6443",
		},
		"ShardBaseURLWithoutServerCertificate": {
			reason:       "Without a certificate of its own the shard's certificate from the installation's CA serves the public name too: shardBaseURL may be that name.",
			public:       &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com"},
			shardBaseURL: "https://alpha.kcp.example.com:6443",
		},
		"DNSNamesReplaceTheHostname": {
			reason:       "With dnsNames the hostname is not among the certificate's names: a shardBaseURL of the hostname is served the installation's certificate.",
			public:       withCert("alpha.kcp.example.com", "public.kcp.example.com"),
			shardBaseURL: "https://alpha.kcp.example.com:6443",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := messages(Public(p, tc.public, tc.shardBaseURL))
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nPublic(...): -want, +got:\n%s", tc.reason, cmp.Diff(tc.want, got))
			}
			for i := range got {
				if len(got[i]) < len(tc.want[i]) || got[i][:len(tc.want[i])] != tc.want[i] {
					t.Errorf("%s\nPublic(...): error %d: -want, +got:\n%s", tc.reason, i, cmp.Diff(tc.want[i], got[i]))
				}
			}
		})
	}
}

func TestPublicServerCertificate(t *testing.T) {
	p := field.NewPath("spec", "publicServerCertificate")
	cases := map[string]struct {
		reason string
		cert   *v1alpha1.PublicServerCertificate
		want   []string
	}{
		"Valid": {
			reason: "An issuer of another group may have any kind; names and wildcards are fine.",
			cert: &v1alpha1.PublicServerCertificate{
				IssuerRef: v1alpha1.ObjectReference{Name: "pca", Kind: "AWSPCAIssuer", Group: "awspca.cert-manager.io"},
				DNSNames:  []string{"kcp.example.com", "*.kcp.example.com"},
			},
		},
		"NoDNSNames": {
			reason: "dnsNames default to the public hostname.",
			cert:   &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}},
		},
		"Everything": {
			reason: "The issuer's name, its kind and every bad name are reported on their own fields.",
			cert: &v1alpha1.PublicServerCertificate{
				IssuerRef: v1alpha1.ObjectReference{Kind: "Certificate", Group: "cert-manager.io"},
				DNSNames:  []string{"", "kcp.example.com", "https://kcp.example.com", "*.*.example.com"},
			},
			want: []string{
				"spec.publicServerCertificate.issuerRef.name: Required value: name the cert-manager issuer",
				`spec.publicServerCertificate.issuerRef.kind: Unsupported value: "Certificate": supported values: "Issuer", "ClusterIssuer"`,
				`spec.publicServerCertificate.dnsNames[0]: Invalid value: "": must be a DNS name, optionally starting with *.`,
				`spec.publicServerCertificate.dnsNames[2]: Invalid value: "https://kcp.example.com": must be a DNS name, optionally starting with *.`,
				`spec.publicServerCertificate.dnsNames[3]: Invalid value: "*.*.example.com": must be a DNS name, optionally starting with *.`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, messages(PublicServerCertificate(p, tc.cert))); diff != "" {
				t.Errorf("%s\nPublicServerCertificate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
