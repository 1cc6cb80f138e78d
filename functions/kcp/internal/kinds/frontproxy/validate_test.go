package frontproxy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestValidate(t *testing.T) {
	oidc := &v1alpha1.OIDCConfiguration{IssuerURL: "https://idp.example.com", ClientID: "kcp"}
	mapping := v1alpha1.PathMappingEntry{Path: "/services/x/", Backend: "https://x.kcp.svc:6443", BackendServerCA: "/ca", ProxyClientCert: "/crt", ProxyClientKey: "/key"}
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.FrontProxy)
		want   []string
	}{
		"Valid": {reason: "the smallest FrontProxy is valid", mod: func(*v1alpha1.FrontProxy) {}},
		"ValidFull": {reason: "every option set correctly", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}
			fp.Spec.Auth = &v1alpha1.AuthSpec{OIDC: oidc, ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}
			fp.Spec.AdditionalPathMappings = []v1alpha1.PathMappingEntry{mapping}
			fp.Spec.ExtraVolumes = []corev1.Volume{{Name: "plugins"}}
			fp.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "plugins", MountPath: "/plugins"}}
		}},
		"ValidExternalHostname": {reason: "the deprecated externalHostname may have a port", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.ExternalHostname = "kcp.example.com:443" }},
		"NoRoot": {reason: "a front-proxy serves a RootShard", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.RootShard.Ref = nil },
			want: []string{"spec.rootShard.ref.name: Required value: name the RootShard (in the same namespace) this front-proxy serves, or set secretRef to its reference Secret"}},
		"LongName": {reason: "<name>-front-proxy must be a valid Service name", mod: func(fp *v1alpha1.FrontProxy) { fp.Name = strings.Repeat("a", 52); fp.Spec.RootShard.Ref = nil },
			want: []string{
				"metadata.name: Too long: may not be more than 51 bytes",
				"spec.rootShard.ref.name: Required value: name the RootShard (in the same namespace) this front-proxy serves, or set secretRef to its reference Secret",
			}},
		"LongVolumeName": {reason: "<rs>-<fp>-dynamic-kubeconfig is a volume name, at most 63 characters", mod: func(fp *v1alpha1.FrontProxy) { fp.Name = strings.Repeat("f", 40) },
			want: []string{`metadata.name: Invalid value: "ffffffffffffffffffffffffffffffffffffffff": with RootShard root (spec.rootShard.ref.name) the front-proxy would mount volumes named root-ffffffffffffffffffffffffffffffffffffffff-dynamic-kubeconfig, which are not valid volume names (at most 63 lowercase letters, digits and '-'): shorten the FrontProxy's name`}},
		"BothHostnames": {reason: "externalHostname and external.hostname exclude each other (the XRD says so too)", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.ExternalHostname = "old.example.com"
			fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}
		}, want: []string{"spec.externalHostname: Forbidden: cannot set both externalHostname (deprecated) and external.hostname; use external.hostname and external.port only"}},
		"BadExternal": {reason: "external needs a hostname and a port", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "https://kcp.example.com"}
		},
			want: []string{
				`spec.external.hostname: Invalid value: "https://kcp.example.com": must be a DNS name or IP address without scheme or port`,
				"spec.external.port: Invalid value: 0: must be a port between 1 and 65535, for example 6443",
			}},
		"PortWithoutHostname": {reason: "a port alone is not an address", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.External = v1alpha1.ExternalConfig{Port: 443} },
			want: []string{"spec.external.hostname: Required value: set the public hostname clients use, for example api.example.com"}},
		"BadExternalHostname": {reason: "the deprecated externalHostname is host[:port]", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.ExternalHostname = "https://kcp.example.com" },
			want: []string{`spec.externalHostname: Invalid value: "https://kcp.example.com": must be a DNS name or IP address with an optional port between 1 and 65535, for example api.example.com:443; better, use external.hostname and external.port`}},
		"BadExternalHostnamePort": {reason: "its port is a port", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.ExternalHostname = "kcp.example.com:0" },
			want: []string{`spec.externalHostname: Invalid value: "kcp.example.com:0": must be a DNS name or IP address with an optional port between 1 and 65535, for example api.example.com:443; better, use external.hostname and external.port`}},
		"OIDCWithoutServiceAccounts": {reason: "OIDC requires service account auth (the XRD says so too)", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.Auth = &v1alpha1.AuthSpec{OIDC: oidc} },
			want: []string{"spec.auth.serviceAccount.enabled: Required value: OIDC requires ServiceAccount auth to be enabled: set auth.serviceAccount.enabled to true"}},
		"BadOIDC": {reason: "OIDC issuer and client", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.Auth = &v1alpha1.AuthSpec{OIDC: &v1alpha1.OIDCConfiguration{IssuerURL: "idp"}, ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}
		}, want: []string{
			`spec.auth.oidc.issuerURL: Invalid value: "idp": must be an https URL`,
			"spec.auth.oidc.clientID: Required value: set the OIDC client ID",
		}},
		"BadImage": {reason: "image tags are tags", mod: func(fp *v1alpha1.FrontProxy) { fp.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.32:3"} },
			want: []string{`spec.image.tag: Invalid value: "v0.32:3": must be a valid image tag (letters, digits, '_', '.', '-'; at most 128 characters), for example v0.32.3`}},
		"NegativeReplicas": {reason: "replicas are not negative", mod: func(fp *v1alpha1.FrontProxy) { r := int32(-1); fp.Spec.Replicas = &r },
			want: []string{"spec.replicas: Invalid value: -1: must not be negative"}},
		"EmptyBundleRefs": {reason: "bundle references name a Secret", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{}
			fp.Spec.ClientCABundleRef = &corev1.LocalObjectReference{}
		}, want: []string{
			"spec.caBundleSecretRef.name: Required value: name the Secret whose tls.crt holds the CA bundle, or remove caBundleSecretRef",
			"spec.clientCABundleRef.name: Required value: name the Secret whose tls.crt holds the additional client CAs, or remove clientCABundleRef",
		}},
		"BadPathMapping": {reason: "path mappings need every field and a backend URL", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.AdditionalPathMappings = []v1alpha1.PathMappingEntry{mapping, {Backend: "custom:8443"}}
		}, want: []string{
			"spec.additionalPathMappings[1].path: Required value: set the URL path prefix to route, for example /services/my-service/",
			"spec.additionalPathMappings[1].backend_server_ca: Required value: set the path of the backend's CA file inside the front-proxy container",
			"spec.additionalPathMappings[1].proxy_client_cert: Required value: set the path of the client certificate the front-proxy presents to the backend",
			"spec.additionalPathMappings[1].proxy_client_key: Required value: set the path of the key of that client certificate",
			`spec.additionalPathMappings[1].backend: Invalid value: "custom:8443": must be a URL such as https://my-service.kcp.svc:6443`,
		}},
		"PathMappingTakesWorkspaces": {reason: "a mapping under /clusters/ (or /) would take workspaces' requests, and their users' identities, to another backend; one without a leading / matches nothing", mod: func(fp *v1alpha1.FrontProxy) {
			m := func(path string) v1alpha1.PathMappingEntry { m := mapping; m.Path = path; return m }
			fp.Spec.AdditionalPathMappings = []v1alpha1.PathMappingEntry{m("/clusters/root/"), m("/"), m("ext/"), m("/services/ext/")}
		}, want: []string{
			"spec.additionalPathMappings[0].path: Forbidden: /clusters/root/ is where the front-proxy routes workspaces' requests to their shards; choose a prefix of your own, for example /services/my-service/",
			"spec.additionalPathMappings[1].path: Forbidden: / is where the front-proxy routes workspaces' requests to their shards; choose a prefix of your own, for example /services/my-service/",
			`spec.additionalPathMappings[2].path: Invalid value: "ext/": must start with /, for example /services/my-service/`,
		}},
		"VolumeClash": {reason: "extra volumes must not reuse generated names", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.ExtraVolumes = []corev1.Volume{{Name: "fp-config"}, {Name: "token-auth-file"}, {Name: "root-service-account"}}
		}, want: []string{
			`spec.extraVolumes[0].name: Duplicate value: "fp-config"`,
			`spec.extraVolumes[1].name: Duplicate value: "token-auth-file"`,
			`spec.extraVolumes[2].name: Duplicate value: "root-service-account"`,
		}},
		"PublicServerCertificate": {reason: "a public certificate from the user's issuer", mod: withPublicCert("kcp.example.com", "*.kcp.example.com")},
		"BadPublicServerCertificate": {reason: "the public certificate's issuer and names are checked under publicServerCertificate", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.PublicServerCertificate = &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Kind: "ClusterIssuers"}, DNSNames: []string{"kcp.example.com:443"}}
		}, want: []string{
			"spec.publicServerCertificate.issuerRef.name: Required value: name the cert-manager issuer",
			`spec.publicServerCertificate.issuerRef.kind: Unsupported value: "ClusterIssuers": supported values: "Issuer", "ClusterIssuer"`,
			`spec.publicServerCertificate.dnsNames[0]: Invalid value: "kcp.example.com:443": must be a DNS name, optionally starting with *.`,
		}},
		"PublicCertVolumeClash": {reason: "with a public certificate, its Secret's name is a generated volume", mod: func(fp *v1alpha1.FrontProxy) {
			withPublicCert()(fp)
			fp.Spec.ExtraVolumes = []corev1.Volume{{Name: "root-fp-public-serving"}}
		}, want: []string{`spec.extraVolumes[0].name: Duplicate value: "root-fp-public-serving"`}},
		"UnknownMount": {reason: "extra mounts mount existing volumes", mod: func(fp *v1alpha1.FrontProxy) {
			fp.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "plugins", MountPath: "/plugins"}, {Name: "root-ca", MountPath: "/ca"}}
		}, want: []string{`spec.extraVolumeMounts[0].name: Not found: "plugins"`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp := frontProxy()
			tc.mod(fp)
			var got []string
			for _, e := range Validate(fp) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	fp := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.ExternalHostname = "kcp.example.com"
		fp.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{"server": {}, "client": {}}
	})
	want := []string{
		`spec.certificateTemplates["client"] matches no certificate and is ignored; known keys: [server kubeconfig requestheader]`,
		"spec.externalHostname is deprecated: use spec.external.hostname and spec.external.port",
	}
	if diff := cmp.Diff(want, Warnings(fp)); diff != "" {
		t.Errorf("Warnings(...): -want, +got:\n%s", diff)
	}
	if got := Warnings(frontProxy()); len(got) != 0 {
		t.Errorf("no warnings for a plain FrontProxy, got %v", got)
	}
}
