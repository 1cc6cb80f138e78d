package workload

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

func secretMount(volume, secret, path string) Mount {
	return Mount{
		Volume: corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}},
		Mount:  corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: true},
	}
}

func configMapMount(volume, cm, path string) Mount {
	return Mount{
		Volume: corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm},
		}}},
		Mount: corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: true},
	}
}

// emptyIsNil treats a nil and an empty flag or mount list alike.
var emptyIsNil = cmpopts.EquateEmpty()

func TestEtcd(t *testing.T) {
	cases := map[string]struct {
		reason string
		etcd   v1alpha1.EtcdConfig
		want   Spec
	}{
		"EndpointsOnly": {
			reason: "Plain etcd: only --etcd-servers, endpoints joined by commas, nothing mounted.",
			etcd:   v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-0:2379", "http://etcd-1:2379"}},
			want:   Spec{Args: []string{"--etcd-servers=http://etcd-0:2379,http://etcd-1:2379"}},
		},
		"Everything": {
			reason: "A prefix adds --etcd-prefix; TLS mounts the client Secret at /etc/etcd/tls and points the cert, key and CA flags at it.",
			etcd: v1alpha1.EtcdConfig{
				Endpoints: []string{"https://etcd:2379"},
				Prefix:    "/kcp",
				TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: corev1.LocalObjectReference{Name: "etcd-client"}},
			},
			want: Spec{
				Args: []string{
					"--etcd-servers=https://etcd:2379",
					"--etcd-prefix=/kcp",
					"--etcd-certfile=/etc/etcd/tls/tls.crt",
					"--etcd-keyfile=/etc/etcd/tls/tls.key",
					"--etcd-cafile=/etc/etcd/tls/ca.crt",
				},
				Mounts: Mounts{secretMount("etcd-client-cert", "etcd-client", "/etc/etcd/tls")},
			},
		},
		"Embedded": {
			reason: "kcp's own spelling asks for its embedded etcd: no --etcd-servers (its default is the embedded etcd), the directory on an emptyDir bounded on the node's disk, since the root filesystem is read-only and --root-directory is empty.",
			etcd:   v1alpha1.EtcdConfig{Endpoints: []string{"embedded"}},
			want: Spec{
				Args: []string{"--embedded-etcd-directory=/var/etcd"},
				Mounts: Mounts{{
					Volume: corev1.Volume{Name: "etcd-scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("4Gi"))}}},
					Mount:  corev1.VolumeMount{Name: "etcd-scratch", MountPath: "/var/etcd"},
				}},
			},
		},
		"EmbeddedAmongOthers": {
			reason: "Only the single endpoint embedded asks for the embedded etcd; beside others it is an endpoint like any (and refused by check.Etcd).",
			etcd:   v1alpha1.EtcdConfig{Endpoints: []string{"embedded", "https://etcd:2379"}},
			want:   Spec{Args: []string{"--etcd-servers=embedded,https://etcd:2379"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Etcd(tc.etcd), emptyIsNil); diff != "" {
				t.Errorf("%s\nEtcd(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEtcdFlags(t *testing.T) {
	tlsEtcd := v1alpha1.EtcdConfig{
		Endpoints: []string{"https://etcd-0:2379", "https://etcd-1:2379"},
		Prefix:    "/cache",
		TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: corev1.LocalObjectReference{Name: "etcd-client"}},
	}
	cases := map[string]struct {
		reason string
		etcd   v1alpha1.EtcdConfig
		dir    string
		order  EtcdTLSOrder
		want   []string
	}{
		"PlainEtcd": {
			reason: "Without TLS the order does not matter: servers, then the prefix when set.",
			etcd:   v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}},
			dir:    "/unused", order: CACertKey,
			want: []string{"--etcd-servers=http://etcd:2379"},
		},
		"ShardOrder": {
			reason: "A shard's TLS flags come certificate, key, CA, as kcp-operator writes them.",
			etcd:   tlsEtcd, dir: "/etc/etcd/tls", order: CertKeyCA,
			want: []string{"--etcd-servers=https://etcd-0:2379,https://etcd-1:2379", "--etcd-prefix=/cache",
				"--etcd-certfile=/etc/etcd/tls/tls.crt", "--etcd-keyfile=/etc/etcd/tls/tls.key", "--etcd-cafile=/etc/etcd/tls/ca.crt"},
		},
		"CacheServerOrder": {
			reason: "A cache server's TLS flags come CA, certificate, key, from its own mount directory.",
			etcd:   tlsEtcd, dir: "/etc/cache-server/etcd", order: CACertKey,
			want: []string{"--etcd-servers=https://etcd-0:2379,https://etcd-1:2379", "--etcd-prefix=/cache",
				"--etcd-cafile=/etc/cache-server/etcd/ca.crt", "--etcd-certfile=/etc/cache-server/etcd/tls.crt", "--etcd-keyfile=/etc/cache-server/etcd/tls.key"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, EtcdFlags(tc.etcd, tc.dir, tc.order)); diff != "" {
				t.Errorf("%s\nEtcdFlags(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestAudit(t *testing.T) {
	cases := map[string]struct {
		reason string
		audit  *v1alpha1.AuditSpec
		want   Spec
	}{
		"Nil": {
			reason: "No audit spec, no flags or mounts.",
			audit:  nil,
			want:   Spec{},
		},
		"Empty": {
			reason: "An empty audit spec adds nothing.",
			audit:  &v1alpha1.AuditSpec{Policy: &v1alpha1.AuditPolicySpec{}, Webhook: &v1alpha1.AuditWebhookSpec{}},
			want:   Spec{},
		},
		"Everything": {
			reason: "Policy first, then every webhook option in kcp-operator's order with Go durations; the truncate flag is --audit-webhook-truncate-max-event-size (quirk 1 fixed); the config file flag and mount come last.",
			audit: &v1alpha1.AuditSpec{
				Policy: &v1alpha1.AuditPolicySpec{ConfigMap: &v1alpha1.LocalDataKeyReference{Name: "audit", Key: "policy.yaml"}},
				Webhook: &v1alpha1.AuditWebhookSpec{
					BatchBufferSize:      10000,
					BatchMaxSize:         400,
					BatchMaxWait:         dur(30 * time.Second),
					BatchThrottleBurst:   15,
					BatchThrottleEnable:  true,
					BatchThrottleQPS:     "10.5",
					ConfigSecretName:     "audit-webhook",
					InitialBackoff:       dur(90 * time.Second),
					Mode:                 "batch",
					TruncateEnabled:      true,
					TruncateMaxBatchSize: 10485760,
					TruncateMaxEventSize: 102400,
					Version:              "audit.k8s.io/v1",
				},
			},
			want: Spec{
				Args: []string{
					"--audit-policy-file=/etc/kcp/audit/policy/policy.yaml",
					"--audit-webhook-batch-buffer-size=10000",
					"--audit-webhook-batch-max-size=400",
					"--audit-webhook-batch-max-wait=30s",
					"--audit-webhook-batch-throttle-burst=15",
					"--audit-webhook-batch-throttle-enable",
					"--audit-webhook-batch-throttle-qps=10.5",
					"--audit-webhook-initial-backoff=1m30s",
					"--audit-webhook-mode=batch",
					"--audit-webhook-truncate-enabled",
					"--audit-webhook-truncate-max-batch-size=10485760",
					"--audit-webhook-truncate-max-event-size=102400",
					"--audit-webhook-version=audit.k8s.io/v1",
					"--audit-webhook-config-file=/etc/kcp/audit/webhook/kubeconfig",
				},
				Mounts: Mounts{
					configMapMount("audit-policy", "audit", "/etc/kcp/audit/policy"),
					secretMount("audit-webhook-config", "audit-webhook", "/etc/kcp/audit/webhook"),
				},
			},
		},
		"WebhookOnly": {
			reason: "A webhook without policy passes only the webhook flags that are set.",
			audit: &v1alpha1.AuditSpec{Webhook: &v1alpha1.AuditWebhookSpec{
				Mode:             "blocking-strict",
				ConfigSecretName: "audit-webhook",
			}},
			want: Spec{
				Args: []string{
					"--audit-webhook-mode=blocking-strict",
					"--audit-webhook-config-file=/etc/kcp/audit/webhook/kubeconfig",
				},
				Mounts: Mounts{secretMount("audit-webhook-config", "audit-webhook", "/etc/kcp/audit/webhook")},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Audit(tc.audit), emptyIsNil); diff != "" {
				t.Errorf("%s\nAudit(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestAuthorization(t *testing.T) {
	cases := map[string]struct {
		reason string
		authz  *v1alpha1.AuthorizationSpec
		want   Spec
	}{
		"Nil": {
			reason: "No authorization spec, nothing.",
			want:   Spec{},
		},
		"NoWebhook": {
			reason: "An authorization spec without webhook adds nothing.",
			authz:  &v1alpha1.AuthorizationSpec{},
			want:   Spec{},
		},
		"Everything": {
			reason: "Allow paths joined by commas, TTLs as Go durations, version, then the config file flag and its mount.",
			authz: &v1alpha1.AuthorizationSpec{Webhook: &v1alpha1.AuthorizationWebhookSpec{
				AllowPaths:           []string{"/healthz", "/readyz", "/livez"},
				CacheAuthorizedTTL:   dur(5 * time.Minute),
				CacheUnauthorizedTTL: dur(30 * time.Second),
				ConfigSecretName:     "authz-webhook",
				Version:              "v1",
			}},
			want: Spec{
				Args: []string{
					"--authorization-always-allow-paths=/healthz,/readyz,/livez",
					"--authorization-webhook-cache-authorized-ttl=5m0s",
					"--authorization-webhook-cache-unauthorized-ttl=30s",
					"--authorization-webhook-version=v1",
					"--authorization-webhook-config-file=/etc/kcp/authorization/webhook/kubeconfig",
				},
				Mounts: Mounts{secretMount("authorization-webhook-config", "authz-webhook", "/etc/kcp/authorization/webhook")},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Authorization(tc.authz), emptyIsNil); diff != "" {
				t.Errorf("%s\nAuthorization(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestExplicitZeroDurations(t *testing.T) {
	zero := dur(0)
	cases := map[string]struct {
		reason string
		got    Spec
		want   []string
	}{
		"Audit": {
			reason: "kcp-operator passes batchMaxWait and initialBackoff whenever they are set, 0s included.",
			got:    Audit(&v1alpha1.AuditSpec{Webhook: &v1alpha1.AuditWebhookSpec{BatchMaxWait: zero, InitialBackoff: zero}}),
			want:   []string{"--audit-webhook-batch-max-wait=0s", "--audit-webhook-initial-backoff=0s"},
		},
		"Authorization": {
			reason: "A cache TTL of 0s disables the authorization webhook cache; it must reach kcp.",
			got: Authorization(&v1alpha1.AuthorizationSpec{Webhook: &v1alpha1.AuthorizationWebhookSpec{
				CacheAuthorizedTTL: zero, CacheUnauthorizedTTL: zero,
			}}),
			want: []string{"--authorization-webhook-cache-authorized-ttl=0s", "--authorization-webhook-cache-unauthorized-ttl=0s"},
		},
		"Authentication": {
			reason: "A cache TTL of 0s disables the token webhook cache; it must reach kcp.",
			got: Authentication(&v1alpha1.AuthSpec{Webhook: &v1alpha1.AuthenticationWebhookSpec{
				ConfigSecretName: "authn", CacheAuthenticationTTL: zero,
			}}, nil),
			want: []string{
				"--authentication-token-webhook-cache-ttl=0s",
				"--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got.Args); diff != "" {
				t.Errorf("%s\n%s(...): -want, +got:\n%s", tc.reason, name, diff)
			}
		})
	}
}

func TestAuthentication(t *testing.T) {
	type args struct {
		auth  *v1alpha1.AuthSpec
		certs []ServiceAccountCert
	}
	certs := []ServiceAccountCert{
		{Owner: "root", Secret: "root-service-account"},
		{Owner: "alpha", Secret: "alpha-service-account"},
		{Owner: "beta", Secret: "beta-service-account"},
	}
	cases := map[string]struct {
		reason string
		args   args
		want   Spec
	}{
		"Nil": {
			reason: "No auth spec, nothing, even with service-account certificates known.",
			args:   args{certs: certs},
			want:   Spec{},
		},
		"Everything": {
			reason: "OIDC, token webhook, token file and service accounts, in kcp-operator's order, each mount next to its flags.",
			args: args{
				auth: &v1alpha1.AuthSpec{
					OIDC: &v1alpha1.OIDCConfiguration{
						IssuerURL: "https://idp.example.com", ClientID: "kcp", ClientSecret: "unused",
						GroupsClaim: "groups", UsernameClaim: "email", GroupsPrefix: "g:", UsernamePrefix: "u:",
						CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca", Key: "idp.pem"},
					},
					Webhook:        &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn", CacheAuthenticationTTL: dur(2 * time.Minute), Version: "v1beta1"},
					TokenAuthFile:  &v1alpha1.TokenAuthFileSpec{SecretName: "tokens", Key: "users.csv"},
					ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true},
					DropGroups:     []string{"ignored-on-shards"},
				},
				certs: certs,
			},
			want: Spec{
				Args: []string{
					"--oidc-issuer-url=https://idp.example.com",
					"--oidc-client-id=kcp",
					"--oidc-groups-claim=groups",
					"--oidc-username-claim=email",
					"--oidc-username-prefix=u:",
					"--oidc-groups-prefix=g:",
					"--oidc-ca-file=/etc/kcp/tls/oidc/idp.pem",
					"--authentication-token-webhook-cache-ttl=2m0s",
					"--authentication-token-webhook-version=v1beta1",
					"--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig",
					"--token-auth-file=/etc/kcp/authentication/token/users.csv",
					"--service-account-lookup=false",
					"--service-account-key-file=/etc/kcp/tls/root/service-account/tls.crt",
					"--service-account-key-file=/etc/kcp/tls/alpha/service-account/tls.crt",
					"--service-account-key-file=/etc/kcp/tls/beta/service-account/tls.crt",
				},
				Mounts: Mounts{
					secretMount("oidc-ca-file", "idp-ca", "/etc/kcp/tls/oidc"),
					secretMount("authentication-webhook-config", "authn", "/etc/kcp/authentication/webhook"),
					secretMount("token-auth-file", "tokens", "/etc/kcp/authentication/token"),
					secretMount("root-service-account", "root-service-account", "/etc/kcp/tls/root/service-account"),
					secretMount("alpha-service-account", "alpha-service-account", "/etc/kcp/tls/alpha/service-account"),
					secretMount("beta-service-account", "beta-service-account", "/etc/kcp/tls/beta/service-account"),
				},
			},
		},
		"Defaults": {
			reason: "The OIDC CA key defaults to ca.crt (quirk 11 fixed), the token file key to token.csv; unset OIDC claims and webhook options pass no flag.",
			args: args{auth: &v1alpha1.AuthSpec{
				OIDC:          &v1alpha1.OIDCConfiguration{IssuerURL: "https://idp", ClientID: "kcp", CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca"}},
				Webhook:       &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn"},
				TokenAuthFile: &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"},
			}},
			want: Spec{
				Args: []string{
					"--oidc-issuer-url=https://idp",
					"--oidc-client-id=kcp",
					"--oidc-ca-file=/etc/kcp/tls/oidc/ca.crt",
					"--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig",
					"--token-auth-file=/etc/kcp/authentication/token/token.csv",
				},
				Mounts: Mounts{
					secretMount("oidc-ca-file", "idp-ca", "/etc/kcp/tls/oidc"),
					secretMount("authentication-webhook-config", "authn", "/etc/kcp/authentication/webhook"),
					secretMount("token-auth-file", "tokens", "/etc/kcp/authentication/token"),
				},
			},
		},
		"StructuredConfiguration": {
			reason: "A structured authentication configuration is mounted from its ConfigMap and passed as --authentication-config, beside a token webhook.",
			args: args{auth: &v1alpha1.AuthSpec{
				AuthenticationConfiguration: &v1alpha1.LocalDataKeyReference{Name: "authn-config", Key: "config.yaml"},
				Webhook:                     &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn"},
			}},
			want: Spec{
				Args: []string{
					"--authentication-config=/etc/kcp/authentication/config/config.yaml",
					"--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig",
				},
				Mounts: Mounts{
					configMapMount("authentication-config", "authn-config", "/etc/kcp/authentication/config"),
					secretMount("authentication-webhook-config", "authn", "/etc/kcp/authentication/webhook"),
				},
			},
		},
		"ServiceAccountDisabled": {
			reason: "serviceAccount.enabled: false mounts no service-account certificates.",
			args: args{
				auth:  &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: false}},
				certs: certs,
			},
			want: Spec{},
		},
		"ServiceAccountRootOnly": {
			reason: "With only the root shard, one key file.",
			args: args{
				auth:  &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}},
				certs: certs[:1],
			},
			want: Spec{
				Args: []string{
					"--service-account-lookup=false",
					"--service-account-key-file=/etc/kcp/tls/root/service-account/tls.crt",
				},
				Mounts: Mounts{secretMount("root-service-account", "root-service-account", "/etc/kcp/tls/root/service-account")},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Authentication(tc.args.auth, tc.args.certs), emptyIsNil); diff != "" {
				t.Errorf("%s\nAuthentication(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
