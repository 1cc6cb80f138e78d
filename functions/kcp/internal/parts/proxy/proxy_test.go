package proxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

const baseURL = "https://root-kcp.kcp.svc.cluster.local:6443"

var rootLabels = map[string]string{
	"app.kubernetes.io/managed-by": "configuration-kcp",
	"app.kubernetes.io/name":       "kcp",
	"app.kubernetes.io/instance":   "root",
	"app.kubernetes.io/component":  "rootshard-proxy",
}

// rootProxy is the root shard's internal proxy as the rootshard composer describes it.
func rootProxy(mods ...func(*Proxy)) Proxy {
	p := Proxy{
		Mode:             RootProxy,
		Name:             "root-proxy",
		Namespace:        "kcp",
		Labels:           rootLabels,
		Image:            kcpimage.Image{Repository: "ghcr.io/kcp-dev/kcp", Tag: "v0.32.3"},
		Replicas:         2,
		ServicePort:      6443,
		RootShardBaseURL: baseURL,
		Secrets: Secrets{
			DynamicKubeconfig: "root-proxy-dynamic-kubeconfig",
			KubeconfigCert:    "root-proxy-kubeconfig",
			ServingCert:       "root-proxy-server",
			RequestHeaderCert: "root-proxy-requestheader",
			RootCA:            "root-ca",
			RequestHeaderCA:   "root-requestheader-client-ca",
			MergedClientCA:    "root-proxy-merged-client-ca",
			ConfigMap:         "root-proxy-config",
		},
	}
	for _, m := range mods {
		m(&p)
	}
	return p
}

// frontProxy is a FrontProxy "fp" of RootShard "root".
func frontProxy(mods ...func(*Proxy)) Proxy {
	p := rootProxy()
	p.Mode = FrontProxy
	p.Name = "fp-front-proxy"
	p.Labels = map[string]string{
		"app.kubernetes.io/managed-by": "configuration-kcp",
		"app.kubernetes.io/name":       "kcp",
		"app.kubernetes.io/instance":   "fp",
		"app.kubernetes.io/component":  "front-proxy",
	}
	p.Secrets = Secrets{
		DynamicKubeconfig: "root-fp-dynamic-kubeconfig",
		KubeconfigCert:    "root-fp-kubeconfig",
		ServingCert:       "root-fp-server",
		RequestHeaderCert: "root-fp-requestheader",
		RootCA:            "root-ca",
		RequestHeaderCA:   "root-requestheader-client-ca",
		MergedClientCA:    "fp-merged-client-ca",
		ConfigMap:         "fp-config",
	}
	for _, m := range mods {
		m(&p)
	}
	return p
}

func withTag(tag string) func(*Proxy) { return func(p *Proxy) { p.Image.Tag = tag } }

// baseArgs are the flags every proxy gets, in kcp-operator's order.
var baseArgs = []string{
	"--secure-port=6443",
	"--root-kubeconfig=/etc/kcp-front-proxy/kubeconfig/kubeconfig",
	"--shards-kubeconfig=/etc/kcp-front-proxy/kubeconfig/kubeconfig",
	"--tls-private-key-file=/etc/kcp-front-proxy/tls/tls.key",
	"--tls-cert-file=/etc/kcp-front-proxy/tls/tls.crt",
	"--mapping-file=/etc/kcp-front-proxy/config/path-mapping.yaml",
	"--client-ca-file=/etc/kcp-front-proxy/client-ca/tls.crt",
}

func requestHeaderArgs(allowed string) []string {
	return []string{
		"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
		"--requestheader-allowed-names=" + allowed,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
	}
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// fullAuth sets every front-proxy authentication option.
func fullAuth(p *Proxy) {
	p.Auth = &v1alpha1.AuthSpec{
		OIDC: &v1alpha1.OIDCConfiguration{
			IssuerURL: "https://idp.example.com", ClientID: "kcp",
			GroupsClaim: "groups", UsernameClaim: "email", GroupsPrefix: "oidc:", UsernamePrefix: "oidc:",
			CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca"},
		},
		Webhook:        &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn", CacheAuthenticationTTL: &metav1.Duration{Duration: 120_000_000_000}, Version: "v1"},
		TokenAuthFile:  &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"},
		ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true},
		DropGroups:     []string{"system:masters", "system:kcp:admin"},
		PassOnGroups:   []string{"team-a"},
	}
	p.ServiceAccountCerts = []workload.ServiceAccountCert{
		{Owner: "root", Secret: "root-service-account"},
		{Owner: "alpha", Secret: "alpha-service-account"},
	}
}

var fullAuthArgs = []string{
	"--oidc-issuer-url=https://idp.example.com",
	"--oidc-client-id=kcp",
	"--oidc-groups-claim=groups",
	"--oidc-username-claim=email",
	"--oidc-username-prefix=oidc:",
	"--oidc-groups-prefix=oidc:",
	"--oidc-ca-file=/etc/kcp/tls/oidc/ca.crt",
	"--authentication-token-webhook-cache-ttl=2m0s",
	"--authentication-token-webhook-version=v1",
	"--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig",
	"--token-auth-file=/etc/kcp/authentication/token/token.csv",
	"--service-account-lookup=false",
	"--service-account-key-file=/etc/kcp/tls/root/service-account/tls.crt",
	"--service-account-key-file=/etc/kcp/tls/alpha/service-account/tls.crt",
}

func TestArgs(t *testing.T) {
	cases := map[string]struct {
		reason string
		proxy  Proxy
		want   []string
	}{
		"RootProxyDefault": {
			reason: "The root proxy on the default kcp gets the base flags and the requestheader flags allowing itself and the mounts proxy.",
			proxy:  rootProxy(),
			want:   concat(baseArgs, requestHeaderArgs("kcp-root-shard-proxy,kcp-mounts-proxy")),
		},
		"RootProxy0.31.6": {
			reason: "kcp 0.31.6 got the requestheader flags as a backport.",
			proxy:  rootProxy(withTag("v0.31.6")),
			want:   concat(baseArgs, requestHeaderArgs("kcp-root-shard-proxy,kcp-mounts-proxy")),
		},
		"RootProxyMain": {
			reason: "A tag that is not a version counts as the newest kcp.",
			proxy:  rootProxy(withTag("main")),
			want:   concat(baseArgs, requestHeaderArgs("kcp-root-shard-proxy,kcp-mounts-proxy")),
		},
		"RootProxy0.32.2": {
			reason: "kcp 0.32.2 predates the requestheader flags: none are passed.",
			proxy:  rootProxy(withTag("v0.32.2")),
			want:   baseArgs,
		},
		"RootProxyIgnoresAuth": {
			reason: "The root proxy never gets authentication flags, group dropping included; logging and extra args follow the base flags, extra args last.",
			proxy: rootProxy(fullAuth, func(p *Proxy) {
				p.Logging = &v1alpha1.LoggingSpec{Level: 4}
				p.ExtraArgs = []string{"--v=6", "--profiling"}
			}),
			want: concat(baseArgs, requestHeaderArgs("kcp-root-shard-proxy,kcp-mounts-proxy"), []string{"-v=4", "--v=6", "--profiling"}),
		},
		"RootProxyLoggingZero": {
			reason: "Log level 0 passes no -v flag.",
			proxy:  rootProxy(func(p *Proxy) { p.Logging = &v1alpha1.LoggingSpec{Level: 0} }),
			want:   concat(baseArgs, requestHeaderArgs("kcp-root-shard-proxy,kcp-mounts-proxy")),
		},
		"FrontProxyDefault": {
			reason: "A front-proxy without options allows the front-proxy and mounts proxy identities.",
			proxy:  frontProxy(),
			want:   concat(baseArgs, requestHeaderArgs("kcp-front-proxy,kcp-mounts-proxy")),
		},
		"FrontProxy0.32.2": {
			reason: "The version gate applies to front-proxies too.",
			proxy:  frontProxy(withTag("v0.32.2")),
			want:   baseArgs,
		},
		"FrontProxyFull": {
			reason: "Front-proxy order: base, requestheader, drop/pass-on groups (unquoted, quirk 2 fixed), -v, authentication, then extra args last (quirk 12 fixed).",
			proxy: frontProxy(fullAuth, func(p *Proxy) {
				p.Logging = &v1alpha1.LoggingSpec{Level: 2}
				p.ExtraArgs = []string{"--authentication-drop-groups=override"}
			}),
			want: concat(baseArgs, requestHeaderArgs("kcp-front-proxy,kcp-mounts-proxy"),
				[]string{
					"--authentication-drop-groups=system:masters,system:kcp:admin",
					"--authentication-pass-on-groups=team-a",
					"-v=2",
				},
				fullAuthArgs,
				[]string{"--authentication-drop-groups=override"},
			),
		},
		"FrontProxyProfiling": {
			reason: "A front-proxy's profiler listens on the loopback address, after authentication and before extra args.",
			proxy: frontProxy(func(p *Proxy) {
				p.Profiling = &v1alpha1.Profiling{Enabled: true}
				p.ExtraArgs = []string{"--v=6"}
			}),
			want: concat(baseArgs, requestHeaderArgs("kcp-front-proxy,kcp-mounts-proxy"), []string{"--profiler-address=127.0.0.1:6060", "--v=6"}),
		},
		"FrontProxyDropEmptyGroup": {
			reason: "dropGroups: [\"\"] clears kcp's default drop list with an empty flag value.",
			proxy: frontProxy(func(p *Proxy) {
				p.Auth = &v1alpha1.AuthSpec{DropGroups: []string{""}}
			}),
			want: concat(baseArgs, requestHeaderArgs("kcp-front-proxy,kcp-mounts-proxy"), []string{"--authentication-drop-groups="}),
		},
		"FrontProxyTokenFileKey": {
			reason: "A token file key is used as given; oidc without caFileRef mounts nothing.",
			proxy: frontProxy(func(p *Proxy) {
				p.Auth = &v1alpha1.AuthSpec{
					OIDC:          &v1alpha1.OIDCConfiguration{IssuerURL: "https://idp", ClientID: "kcp"},
					TokenAuthFile: &v1alpha1.TokenAuthFileSpec{SecretName: "tokens", Key: "users.csv"},
				}
			}),
			want: concat(baseArgs, requestHeaderArgs("kcp-front-proxy,kcp-mounts-proxy"), []string{
				"--oidc-issuer-url=https://idp",
				"--oidc-client-id=kcp",
				"--token-auth-file=/etc/kcp/authentication/token/users.csv",
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.proxy.Args()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nArgs(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestArgsExplicitlyEmptyGroups(t *testing.T) {
	p := frontProxy(func(p *Proxy) {
		p.Auth = &v1alpha1.AuthSpec{DropGroups: []string{}, PassOnGroups: []string{}}
	})
	want := concat(baseArgs, requestHeaderArgs("kcp-front-proxy,kcp-mounts-proxy"), []string{
		"--authentication-drop-groups=",
		"--authentication-pass-on-groups=",
	})
	if diff := cmp.Diff(want, p.Args()); diff != "" {
		t.Errorf("dropGroups: [] and passOnGroups: [] are set, and kcp-operator passes both flags (clearing kcp's defaults).\nArgs(): -want, +got:\n%s", diff)
	}
}

func secretVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}
}

func configMapVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: name},
	}}}
}

func ro(name, path string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true}
}

func TestMounts(t *testing.T) {
	type want struct {
		secrets []string
		volumes []corev1.Volume
		mounts  []corev1.VolumeMount
	}
	extraVolume := corev1.Volume{Name: "extra", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	extraMount := corev1.VolumeMount{Name: "extra", MountPath: "/extra"}
	cases := map[string]struct {
		reason string
		proxy  Proxy
		want   want
	}{
		"RootProxy": {
			reason: "The root proxy mounts, in order: dynamic kubeconfig (writable), kubeconfig client cert, serving cert, requestheader cert, root CA, requestheader CA, merged client CA, path mapping.",
			proxy:  rootProxy(),
			want: want{
				secrets: []string{
					"root-proxy-dynamic-kubeconfig", "root-proxy-kubeconfig", "root-proxy-server", "root-proxy-requestheader",
					"root-ca", "root-requestheader-client-ca", "root-proxy-merged-client-ca",
				},
				volumes: []corev1.Volume{
					secretVolume("root-proxy-dynamic-kubeconfig"),
					secretVolume("root-proxy-kubeconfig"),
					secretVolume("root-proxy-server"),
					secretVolume("root-proxy-requestheader"),
					secretVolume("root-ca"),
					secretVolume("root-requestheader-client-ca"),
					secretVolume("root-proxy-merged-client-ca"),
					configMapVolume("root-proxy-config"),
				},
				mounts: []corev1.VolumeMount{
					{Name: "root-proxy-dynamic-kubeconfig", MountPath: "/etc/kcp-front-proxy/kubeconfig"},
					ro("root-proxy-kubeconfig", "/etc/kcp-front-proxy/kubeconfig-client-cert"),
					ro("root-proxy-server", "/etc/kcp-front-proxy/tls"),
					ro("root-proxy-requestheader", "/etc/kcp-front-proxy/requestheader-client"),
					ro("root-ca", "/etc/kcp/tls/ca"),
					ro("root-requestheader-client-ca", "/etc/kcp/tls/ca/requestheader-client"),
					ro("root-proxy-merged-client-ca", "/etc/kcp-front-proxy/client-ca"),
					ro("root-proxy-config", "/etc/kcp-front-proxy/config"),
				},
			},
		},
		"RootProxyOldKcpWithCABundle": {
			reason: "kcp 0.32.2 gets no requestheader CA; a merged CA bundle is mounted before the client CA; extra volumes come first; root proxies ignore auth.",
			proxy: rootProxy(withTag("v0.32.2"), fullAuth, func(p *Proxy) {
				p.Secrets.MergedCABundle = "root-proxy-merged-ca-bundle"
				p.ExtraVolumes = []corev1.Volume{extraVolume}
				p.ExtraVolumeMounts = []corev1.VolumeMount{extraMount}
			}),
			want: want{
				secrets: []string{
					"root-proxy-dynamic-kubeconfig", "root-proxy-kubeconfig", "root-proxy-server", "root-proxy-requestheader",
					"root-ca", "root-proxy-merged-ca-bundle", "root-proxy-merged-client-ca",
				},
				volumes: []corev1.Volume{
					extraVolume,
					secretVolume("root-proxy-dynamic-kubeconfig"),
					secretVolume("root-proxy-kubeconfig"),
					secretVolume("root-proxy-server"),
					secretVolume("root-proxy-requestheader"),
					secretVolume("root-ca"),
					secretVolume("root-proxy-merged-ca-bundle"),
					secretVolume("root-proxy-merged-client-ca"),
					configMapVolume("root-proxy-config"),
				},
				mounts: []corev1.VolumeMount{
					extraMount,
					{Name: "root-proxy-dynamic-kubeconfig", MountPath: "/etc/kcp-front-proxy/kubeconfig"},
					ro("root-proxy-kubeconfig", "/etc/kcp-front-proxy/kubeconfig-client-cert"),
					ro("root-proxy-server", "/etc/kcp-front-proxy/tls"),
					ro("root-proxy-requestheader", "/etc/kcp-front-proxy/requestheader-client"),
					ro("root-ca", "/etc/kcp/tls/ca"),
					ro("root-proxy-merged-ca-bundle", "/etc/kcp/tls/ca/ca-bundle"),
					ro("root-proxy-merged-client-ca", "/etc/kcp-front-proxy/client-ca"),
					ro("root-proxy-config", "/etc/kcp-front-proxy/config"),
				},
			},
		},
		"FrontProxyWithAuth": {
			reason: "A front-proxy's authentication volumes follow the path mapping ConfigMap: oidc CA, webhook config, token file, then one service-account cert per shard.",
			proxy:  frontProxy(fullAuth),
			want: want{
				secrets: []string{
					"root-fp-dynamic-kubeconfig", "root-fp-kubeconfig", "root-fp-server", "root-fp-requestheader",
					"root-ca", "root-requestheader-client-ca", "fp-merged-client-ca",
					"idp-ca", "authn", "tokens", "root-service-account", "alpha-service-account",
				},
				volumes: []corev1.Volume{
					secretVolume("root-fp-dynamic-kubeconfig"),
					secretVolume("root-fp-kubeconfig"),
					secretVolume("root-fp-server"),
					secretVolume("root-fp-requestheader"),
					secretVolume("root-ca"),
					secretVolume("root-requestheader-client-ca"),
					secretVolume("fp-merged-client-ca"),
					configMapVolume("fp-config"),
					{Name: "oidc-ca-file", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "idp-ca"}}},
					{Name: "authentication-webhook-config", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "authn"}}},
					{Name: "token-auth-file", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tokens"}}},
					secretVolume("root-service-account"),
					secretVolume("alpha-service-account"),
				},
				mounts: []corev1.VolumeMount{
					{Name: "root-fp-dynamic-kubeconfig", MountPath: "/etc/kcp-front-proxy/kubeconfig"},
					ro("root-fp-kubeconfig", "/etc/kcp-front-proxy/kubeconfig-client-cert"),
					ro("root-fp-server", "/etc/kcp-front-proxy/tls"),
					ro("root-fp-requestheader", "/etc/kcp-front-proxy/requestheader-client"),
					ro("root-ca", "/etc/kcp/tls/ca"),
					ro("root-requestheader-client-ca", "/etc/kcp/tls/ca/requestheader-client"),
					ro("fp-merged-client-ca", "/etc/kcp-front-proxy/client-ca"),
					ro("fp-config", "/etc/kcp-front-proxy/config"),
					ro("oidc-ca-file", "/etc/kcp/tls/oidc"),
					ro("authentication-webhook-config", "/etc/kcp/authentication/webhook"),
					ro("token-auth-file", "/etc/kcp/authentication/token"),
					ro("root-service-account", "/etc/kcp/tls/root/service-account"),
					ro("alpha-service-account", "/etc/kcp/tls/alpha/service-account"),
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m, vols, mounts := tc.proxy.Mounts()
			if diff := cmp.Diff(tc.want.secrets, m.SecretNames()); diff != "" {
				t.Errorf("%s\nMounts(): generated Secrets: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.volumes, vols); diff != "" {
				t.Errorf("%s\nMounts(): volumes: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.mounts, mounts); diff != "" {
				t.Errorf("%s\nMounts(): mounts: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPathMappingYAML(t *testing.T) {
	cases := map[string]struct {
		reason string
		proxy  Proxy
		want   string
	}{
		"Default": {
			reason: "The proxy sends /clusters/ and /services/ to the root shard, trusting the root CA and presenting its requestheader cert; keys sorted as sigs.k8s.io/yaml writes them.",
			proxy:  rootProxy(),
			want: `- backend: https://root-kcp.kcp.svc.cluster.local:6443
  backend_server_ca: /etc/kcp/tls/ca/tls.crt
  path: /clusters/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
- backend: https://root-kcp.kcp.svc.cluster.local:6443
  backend_server_ca: /etc/kcp/tls/ca/tls.crt
  path: /services/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
`,
		},
		"MergedCABundle": {
			reason: "With a merged CA bundle the backend CA is the bundle.",
			proxy: rootProxy(func(p *Proxy) {
				p.Secrets.MergedCABundle = "root-proxy-merged-ca-bundle"
				p.RootShardBaseURL = "https://kcp.internal:6443"
			}),
			want: `- backend: https://kcp.internal:6443
  backend_server_ca: /etc/kcp/tls/ca/ca-bundle/tls.crt
  path: /clusters/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
- backend: https://kcp.internal:6443
  backend_server_ca: /etc/kcp/tls/ca/ca-bundle/tls.crt
  path: /services/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
`,
		},
		"AdditionalPathMappings": {
			reason: "Additional path mappings are appended verbatim, empty fields included (kcp-operator's PathMappingEntry has no omitempty).",
			proxy: frontProxy(func(p *Proxy) {
				p.AdditionalPathMappings = []PathMapping{
					{Path: "/apis/", Backend: "https://other:6443", BackendServerCA: "/ca.crt", ProxyClientCert: "/c.crt", ProxyClientKey: "/c.key"},
					{Path: "/metrics", Backend: "https://metrics:8443"},
				}
			}),
			want: `- backend: https://root-kcp.kcp.svc.cluster.local:6443
  backend_server_ca: /etc/kcp/tls/ca/tls.crt
  path: /clusters/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
- backend: https://root-kcp.kcp.svc.cluster.local:6443
  backend_server_ca: /etc/kcp/tls/ca/tls.crt
  path: /services/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
- backend: https://other:6443
  backend_server_ca: /ca.crt
  path: /apis/
  proxy_client_cert: /c.crt
  proxy_client_key: /c.key
- backend: https://metrics:8443
  backend_server_ca: ""
  path: /metrics
  proxy_client_cert: ""
  proxy_client_key: ""
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := string(tc.proxy.PathMappingYAML())
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nPathMappingYAML(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDynamicKubeconfig(t *testing.T) {
	// kcp-operator v0.9.0 (client-go v0.36) writes yaml.Marshal(clientcmdv1.Config{...}):
	// no apiVersion and kind, and no "preferences: {}" since Preferences is omitzero.
	cases := map[string]struct {
		reason string
		proxy  Proxy
		want   string
	}{
		"RootShardBaseURL": {
			reason: "The dynamic kubeconfig reaches the root shard as system:admin with the kubeconfig client cert, trusting the root CA.",
			proxy:  rootProxy(),
			want: `clusters:
- cluster:
    certificate-authority: /etc/kcp/tls/ca/tls.crt
    server: https://root-kcp.kcp.svc.cluster.local:6443
  name: system:admin
contexts:
- context:
    cluster: system:admin
    user: admin
  name: system:admin
current-context: system:admin
users:
- name: admin
  user:
    client-certificate: /etc/kcp-front-proxy/kubeconfig-client-cert/tls.crt
    client-key: /etc/kcp-front-proxy/kubeconfig-client-cert/tls.key
`,
		},
		"CABundleDoesNotChangeKubeconfig": {
			reason: "The dynamic kubeconfig always trusts the root CA, even with a merged CA bundle.",
			proxy: frontProxy(func(p *Proxy) {
				p.Secrets.MergedCABundle = "fp-merged-ca-bundle"
				p.RootShardBaseURL = "https://kcp.internal:6443"
			}),
			want: `clusters:
- cluster:
    certificate-authority: /etc/kcp/tls/ca/tls.crt
    server: https://kcp.internal:6443
  name: system:admin
contexts:
- context:
    cluster: system:admin
    user: admin
  name: system:admin
current-context: system:admin
users:
- name: admin
  user:
    client-certificate: /etc/kcp-front-proxy/kubeconfig-client-cert/tls.crt
    client-key: /etc/kcp-front-proxy/kubeconfig-client-cert/tls.key
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := string(tc.proxy.DynamicKubeconfig())
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDynamicKubeconfig(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDynamicKubeconfigContent(t *testing.T) {
	// Everything but the preferences line, which TestDynamicKubeconfig covers.
	want := `clusters:
- cluster:
    certificate-authority: /etc/kcp/tls/ca/tls.crt
    server: https://root-kcp.kcp.svc.cluster.local:6443
  name: system:admin
contexts:
- context:
    cluster: system:admin
    user: admin
  name: system:admin
current-context: system:admin
users:
- name: admin
  user:
    client-certificate: /etc/kcp-front-proxy/kubeconfig-client-cert/tls.crt
    client-key: /etc/kcp-front-proxy/kubeconfig-client-cert/tls.key
`
	got := string(rootProxy().DynamicKubeconfig())
	got = removeLine(got, "preferences: {}\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("The dynamic kubeconfig has no apiVersion or kind and reaches the root shard as system:admin.\nDynamicKubeconfig(): -want, +got:\n%s", diff)
	}
}

func removeLine(s, line string) string {
	for i := 0; i+len(line) <= len(s); i++ {
		if s[i:i+len(line)] == line && (i == 0 || s[i-1] == '\n') {
			return s[:i] + s[i+len(line):]
		}
	}
	return s
}

func TestService(t *testing.T) {
	cases := map[string]struct {
		reason string
		proxy  Proxy
		want   *corev1.Service
	}{
		"RootProxy": {
			reason: "The root proxy Service is a ClusterIP Service with one https port 6443 targeting 6443.",
			proxy:  rootProxy(),
			want: &corev1.Service{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
				ObjectMeta: metav1.ObjectMeta{Name: "root-proxy", Namespace: "kcp", Labels: rootLabels},
				Spec: corev1.ServiceSpec{
					Type:     corev1.ServiceTypeClusterIP,
					Selector: rootLabels,
					Ports: []corev1.ServicePort{{
						Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443,
						TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https"),
					}},
				},
			},
		},
		"FrontProxyExternalPort": {
			reason: "A front-proxy Service listens on its external port, still targeting 6443, and applies the service template.",
			proxy: frontProxy(func(p *Proxy) {
				p.ServicePort = 443
				p.ServiceTemplate = &v1alpha1.ServiceTemplate{
					Metadata: &v1alpha1.ServiceMetadataTemplate{Annotations: map[string]string{"lb": "yes"}},
					Spec:     &v1alpha1.ServiceSpecTemplate{Type: corev1.ServiceTypeLoadBalancer},
				}
			}),
			want: &corev1.Service{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
				ObjectMeta: metav1.ObjectMeta{
					Name: "fp-front-proxy", Namespace: "kcp",
					Labels:      frontProxy().Labels,
					Annotations: map[string]string{"lb": "yes"},
				},
				Spec: corev1.ServiceSpec{
					Type:     corev1.ServiceTypeLoadBalancer,
					Selector: frontProxy().Labels,
					Ports: []corev1.ServicePort{{
						Name: "https", Protocol: corev1.ProtocolTCP, Port: 443,
						TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https"),
					}},
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.proxy.Service()); diff != "" {
				t.Errorf("%s\nService(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func probe(path string) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS,
		}},
		InitialDelaySeconds: 15, PeriodSeconds: 10, TimeoutSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
	}
}

func TestDeployment(t *testing.T) {
	resources := &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	p := rootProxy(func(p *Proxy) {
		p.Replicas = 3
		p.Resources = resources
		p.Image = kcpimage.Image{Repository: "registry.example.com/kcp", Tag: "v0.32.3", PullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}}
	})
	_, vols, mounts := p.Mounts()
	want := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		// Unlike kcp-operator (quirk 8) the proxy Deployment carries the resource labels.
		ObjectMeta: metav1.ObjectMeta{Name: "root-proxy", Namespace: "kcp", Labels: rootLabels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: rootLabels},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: rootLabels, Annotations: map[string]string{"roll": "1"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:            "kcp-front-proxy",
						Image:           "registry.example.com/kcp:v0.32.3",
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         []string{"/kcp-front-proxy"},
						Args:            concat(baseArgs, requestHeaderArgs("kcp-root-shard-proxy,kcp-mounts-proxy")),
						Ports:           []corev1.ContainerPort{{Name: "https", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}},
						VolumeMounts:    mounts,
						Resources:       *resources,
						SecurityContext: &corev1.SecurityContext{
							SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
							ReadOnlyRootFilesystem:   ptr.To(true),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						ReadinessProbe: probe("/readyz"),
						LivenessProbe:  probe("/livez"),
					}},
					Volumes:          vols,
					ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &restricted,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					AutomountServiceAccountToken: &noToken,
					TopologySpreadConstraints:    workload.DefaultSpread(rootLabels, true), // Unlike kcp-operator: spread where the scheduler can.
				},
			},
		},
	}
	got := p.Deployment(map[string]string{"roll": "1"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("The proxy Deployment runs /kcp-front-proxy with readiness and liveness probes (15/10/10/3, no startup probe), the hardened security context, the user's resources only, and labels on the Deployment itself.\nDeployment(...): -want, +got:\n%s", diff)
	}
}

func TestDeploymentNoDefaultResources(t *testing.T) {
	got := rootProxy().Deployment(nil).Spec.Template.Spec.Containers[0].Resources
	if diff := cmp.Diff(corev1.ResourceRequirements{}, got); diff != "" {
		t.Errorf("Proxies have no default resources, unlike shards.\nDeployment(...): -want, +got:\n%s", diff)
	}
}

// kcp-operator writes the mapping file as JSON turned into YAML (sigs.k8s.io/yaml), from a
// type with the JSON tags of v1alpha1.PathMappingEntry. PathMappingYAML writes YAML directly;
// users' additional mappings must come out byte for byte the same, whatever they hold.
func TestPathMappingYAMLMatchesJSONToYAML(t *testing.T) {
	for _, s := range []string{"", "yes", "1234", "null", "~", "a: b", "- x", "#x", " lead", "'q'", `"dq"`, "multi\nline", "ünï", "https://[::1]:6443/"} {
		p := rootProxy()
		p.AdditionalPathMappings = []PathMapping{{Path: s, Backend: s, BackendServerCA: s, ProxyClientCert: s, ProxyClientKey: s}}
		var entries []v1alpha1.PathMappingEntry
		for _, m := range p.mappings() {
			entries = append(entries, v1alpha1.PathMappingEntry{Path: m.Path, Backend: m.Backend, BackendServerCA: m.BackendServerCA, ProxyClientCert: m.ProxyClientCert, ProxyClientKey: m.ProxyClientKey})
		}
		want, err := sigsyaml.Marshal(entries)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(p.PathMappingYAML())); diff != "" {
			t.Errorf("mapping %q: PathMappingYAML must write what sigs.k8s.io/yaml writes.\n-want, +got:\n%s", s, diff)
		}
	}
}

// Pod Security "restricted": pods run as non-root and carry no service account token.
var restricted, noToken = true, false
