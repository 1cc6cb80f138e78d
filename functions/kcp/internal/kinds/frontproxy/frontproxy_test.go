package frontproxy

import (
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

var fpLabels = map[string]string{
	"app.kubernetes.io/managed-by": "configuration-kcp",
	"app.kubernetes.io/name":       "kcp",
	"app.kubernetes.io/instance":   "fp",
	"app.kubernetes.io/component":  "front-proxy",
}

// defaultArgs are the flags of a FrontProxy without options, in kcp-operator's order.
var defaultArgs = []string{
	"--secure-port=6443",
	"--root-kubeconfig=/etc/kcp-front-proxy/kubeconfig/kubeconfig",
	"--shards-kubeconfig=/etc/kcp-front-proxy/kubeconfig/kubeconfig",
	"--tls-private-key-file=/etc/kcp-front-proxy/tls/tls.key",
	"--tls-cert-file=/etc/kcp-front-proxy/tls/tls.crt",
	"--mapping-file=/etc/kcp-front-proxy/config/path-mapping.yaml",
	"--client-ca-file=/etc/kcp-front-proxy/client-ca/tls.crt",
	"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
	"--requestheader-allowed-names=kcp-front-proxy,kcp-mounts-proxy",
	"--requestheader-username-headers=X-Remote-User",
	"--requestheader-group-headers=X-Remote-Group",
	"--requestheader-extra-headers-prefix=X-Remote-Extra-",
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func secretVolume(name, secret string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}
}

func mount(name, path string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true}
}

var configVolume = corev1.Volume{Name: "fp-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
	LocalObjectReference: corev1.LocalObjectReference{Name: "fp-config"},
}}}

func TestComposeConverged(t *testing.T) {
	r := converge(frontProxy(), testworld.RootShard(), nil)

	wantKeys := []resource.Name{
		"certificate-root-fp-kubeconfig", "certificate-root-fp-requestheader", "certificate-root-fp-server",
		"configmap-config", "deployment-front-proxy", "poddisruptionbudget-front-proxy", "secret-merged-client-ca", "secret-reference", "secret-root-fp-dynamic-kubeconfig",
		"service-front-proxy",
	}
	if diff := cmp.Diff(wantKeys, r.Desired.Names()); diff != "" {
		t.Errorf("A FrontProxy composes kcp-operator's 3 certificates, merged client CA, path mapping, dynamic kubeconfig, Deployment and Service, a PodDisruptionBudget for its 2 replicas, and its reference.\n-want, +got:\n%s", diff)
	}
	wantConds := []condition.Condition{
		{Type: condition.TypeCertificatesReady, Status: true, Reason: condition.ReasonIssued, Message: "All 3 certificates are issued."},
		{Type: condition.TypeInputsReady, Status: true, Reason: condition.ReasonAllPresent, Message: "Every Secret and ConfigMap the spec references exists."},
		{Type: condition.TypeAvailable, Status: true, Reason: condition.ReasonReplicasUp, Message: "Deployment kcp/fp-front-proxy is fully up and running."},
		{Type: condition.TypeUpgraded, Status: true, Reason: condition.ReasonImageComposed, Message: "The Deployment is composed with the image spec.image names (ghcr.io/kcp-dev/kcp:v0.32.3)."},
	}
	if diff := cmp.Diff(wantConds, r.Conditions); diff != "" {
		t.Errorf("conditions: -want, +got:\n%s", diff)
	}
	two := int32(2)
	if diff := cmp.Diff(v1alpha1.FrontProxyStatus{Phase: v1alpha1.PhaseRunning, Image: "ghcr.io/kcp-dev/kcp:v0.32.3", URL: "https://api.example.com:6443", AvailableReplicas: &two}, r.Status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
	if r.NotReady {
		t.Errorf("a converged FrontProxy must not be forced not ready")
	}
	wantReqs := []result.Requirement{
		{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard", Name: "root"},
		{Kind: "Secret", Name: "root-ca"},
		{Kind: "Secret", Name: "root-requestheader-client-ca"},
		{Kind: "Secret", Name: "root-client-ca"},
		{Kind: "Secret", Name: "root-server-ca"}, // published in its reference
	}
	if diff := cmp.Diff(wantReqs, r.Requirements); diff != "" {
		t.Errorf("requirements: -want, +got:\n%s", diff)
	}

	d := deployment(t, r)
	if diff := cmp.Diff(fpLabels, d.Labels); diff != "" {
		t.Errorf("Unlike kcp-operator (quirk 8) the Deployment carries the resource labels: -want, +got:\n%s", diff)
	}
	if got := *d.Spec.Replicas; got != 2 {
		t.Errorf("replicas = %d, want 2", got)
	}
	pod := d.Spec.Template.Spec
	ctr := pod.Containers[0]
	if ctr.Name != "kcp-front-proxy" || ctr.Image != "ghcr.io/kcp-dev/kcp:v0.32.3" || ctr.Command[0] != "/kcp-front-proxy" {
		t.Errorf("container %s runs %s %v", ctr.Name, ctr.Image, ctr.Command)
	}
	if diff := cmp.Diff(defaultArgs, ctr.Args); diff != "" {
		t.Errorf("front-proxy flags must match kcp-operator's, in order.\n-want, +got:\n%s", diff)
	}
	wantVols := []corev1.Volume{
		secretVolume("root-fp-dynamic-kubeconfig", "root-fp-dynamic-kubeconfig"),
		secretVolume("root-fp-kubeconfig", "root-fp-kubeconfig"),
		secretVolume("root-fp-server", "root-fp-server"),
		secretVolume("root-fp-requestheader", "root-fp-requestheader"),
		secretVolume("root-ca", "root-ca"),
		secretVolume("root-requestheader-client-ca", "root-requestheader-client-ca"),
		secretVolume("fp-merged-client-ca", "fp-merged-client-ca"),
		configVolume,
	}
	if diff := cmp.Diff(wantVols, pod.Volumes); diff != "" {
		t.Errorf("volumes: -want, +got:\n%s", diff)
	}
	wantMounts := []corev1.VolumeMount{
		{Name: "root-fp-dynamic-kubeconfig", MountPath: "/etc/kcp-front-proxy/kubeconfig"},
		mount("root-fp-kubeconfig", "/etc/kcp-front-proxy/kubeconfig-client-cert"),
		mount("root-fp-server", "/etc/kcp-front-proxy/tls"),
		mount("root-fp-requestheader", "/etc/kcp-front-proxy/requestheader-client"),
		mount("root-ca", "/etc/kcp/tls/ca"),
		mount("root-requestheader-client-ca", "/etc/kcp/tls/ca/requestheader-client"),
		mount("fp-merged-client-ca", "/etc/kcp-front-proxy/client-ca"),
		mount("fp-config", "/etc/kcp-front-proxy/config"),
	}
	if diff := cmp.Diff(wantMounts, ctr.VolumeMounts); diff != "" {
		t.Errorf("mounts (the dynamic kubeconfig is not read-only, as in kcp-operator): -want, +got:\n%s", diff)
	}
	wantAnnotations := map[string]string{"kcp.crossplane.io/certificate-revisions": "root-fp-kubeconfig=1,root-fp-requestheader=1,root-fp-server=1"}
	if got := d.Spec.Template.Annotations["kcp.crossplane.io/certificate-revisions"]; got != wantAnnotations["kcp.crossplane.io/certificate-revisions"] {
		t.Errorf("pods roll on renewal of each mounted certificate: %q", got)
	}

	o, _ := r.Desired.Get("secret-root-fp-dynamic-kubeconfig")
	sec := o.Resource.(*corev1.Secret)
	wantKubeconfig := `clusters:
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
	if diff := cmp.Diff(wantKubeconfig, string(sec.Data["kubeconfig"])); diff != "" {
		t.Errorf("dynamic kubeconfig: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(fpLabels, sec.Labels); diff != "" {
		t.Errorf("dynamic kubeconfig labels: -want, +got:\n%s", diff)
	}
	o, _ = r.Desired.Get("configmap-config")
	if diff := cmp.Diff(fpLabels, o.Resource.(*corev1.ConfigMap).Labels); diff != "" {
		t.Errorf("ConfigMap labels: -want, +got:\n%s", diff)
	}

	o, _ = r.Desired.Get("service-front-proxy")
	wantSvc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "fp-front-proxy", Namespace: "kcp", Labels: fpLabels},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: fpLabels,
			Ports: []corev1.ServicePort{{
				Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443,
				TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https"),
			}},
		},
	}
	if diff := cmp.Diff(wantSvc, o.Resource); diff != "" {
		t.Errorf("Service: -want, +got:\n%s", diff)
	}
}

// withAuth sets spec.auth.
func withAuth(a *v1alpha1.AuthSpec) func(*v1alpha1.FrontProxy) {
	return func(fp *v1alpha1.FrontProxy) { fp.Spec.Auth = a }
}

// twoShards adds Shards alpha and beta of root, gamma of another RootShard, and the service
// account key Secrets of all three and of root.
func twoShards(w *testworld.World) {
	other := shard("gamma")
	other.Spec.RootShard.Ref.Name = "other"
	w.Object(shard("beta")).Object(other).Object(shard("alpha"))
	w.Secret("root-service-account").Secret("alpha-service-account").Secret("beta-service-account").Secret("gamma-service-account")
}

func TestArgs(t *testing.T) {
	saArgs := []string{
		"--service-account-lookup=false",
		"--service-account-key-file=/etc/kcp/tls/root/service-account/tls.crt",
		"--service-account-key-file=/etc/kcp/tls/alpha/service-account/tls.crt",
		"--service-account-key-file=/etc/kcp/tls/beta/service-account/tls.crt",
	}
	cases := map[string]struct {
		reason string
		fp     func(*v1alpha1.FrontProxy)
		extra  func(*testworld.World)
		want   []string
	}{
		"Default": {
			reason: "Without options: kcp-operator's base flags and the requestheader flags of kcp 0.32.3.",
			want:   defaultArgs,
		},
		"DropAndPassOnGroups": {
			reason: "Groups are joined with commas without literal quotes (quirk 2 fixed), before -v, and extraArgs come last (quirk 12 fixed).",
			fp: func(fp *v1alpha1.FrontProxy) {
				fp.Spec.Auth = &v1alpha1.AuthSpec{DropGroups: []string{"system:masters", "system:kcp:admin"}, PassOnGroups: []string{"team-a"}}
				fp.Spec.Logging = &v1alpha1.LoggingSpec{Level: 4}
				fp.Spec.ExtraArgs = []string{"--v=6", "--profiler-address=:6060"}
			},
			want: concat(defaultArgs, []string{
				"--authentication-drop-groups=system:masters,system:kcp:admin",
				"--authentication-pass-on-groups=team-a",
				"-v=4",
				"--v=6", "--profiler-address=:6060",
			}),
		},
		"EmptyDropGroups": {
			reason: "An explicitly empty dropGroups clears kcp's default list.",
			fp:     withAuth(&v1alpha1.AuthSpec{DropGroups: []string{}}),
			want:   concat(defaultArgs, []string{"--authentication-drop-groups="}),
		},
		"OIDCAndServiceAccountsTwoShards": {
			reason: "OIDC flags (ca.crt by default, quirk 11 fixed), then one key file per shard of the RootShard: root first, shards sorted, other RootShards' shards left out.",
			fp: withAuth(&v1alpha1.AuthSpec{
				OIDC: &v1alpha1.OIDCConfiguration{
					IssuerURL: "https://idp.example.com", ClientID: "kcp", GroupsClaim: "groups", UsernameClaim: "email",
					UsernamePrefix: "oidc:", GroupsPrefix: "oidc:", CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca"},
				},
				ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true},
			}),
			extra: func(w *testworld.World) { twoShards(w); w.Secret("idp-ca") },
			want: concat(defaultArgs, []string{
				"--oidc-issuer-url=https://idp.example.com",
				"--oidc-client-id=kcp",
				"--oidc-groups-claim=groups",
				"--oidc-username-claim=email",
				"--oidc-username-prefix=oidc:",
				"--oidc-groups-prefix=oidc:",
				"--oidc-ca-file=/etc/kcp/tls/oidc/ca.crt",
			}, saArgs),
		},
		"Webhook": {
			reason: "A token webhook: its cache TTL, version and config file.",
			fp: withAuth(&v1alpha1.AuthSpec{Webhook: &v1alpha1.AuthenticationWebhookSpec{
				ConfigSecretName: "authn", CacheAuthenticationTTL: &metav1.Duration{Duration: 120_000_000_000}, Version: "v1",
			}}),
			extra: func(w *testworld.World) { w.Secret("authn") },
			want: concat(defaultArgs, []string{
				"--authentication-token-webhook-cache-ttl=2m0s",
				"--authentication-token-webhook-version=v1",
				"--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig",
			}),
		},
		"TokenFile": {
			reason: "A token file with a custom key.",
			fp:     withAuth(&v1alpha1.AuthSpec{TokenAuthFile: &v1alpha1.TokenAuthFileSpec{SecretName: "tokens", Key: "users.csv"}}),
			extra:  func(w *testworld.World) { w.Secret("tokens") },
			want:   concat(defaultArgs, []string{"--token-auth-file=/etc/kcp/authentication/token/users.csv"}),
		},
		"TokenFileDefaultKey": {
			reason: "A token file's key defaults to token.csv.",
			fp:     withAuth(&v1alpha1.AuthSpec{TokenAuthFile: &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"}}),
			extra:  func(w *testworld.World) { w.Secret("tokens") },
			want:   concat(defaultArgs, []string{"--token-auth-file=/etc/kcp/authentication/token/token.csv"}),
		},
		"PublicServerCertificate": {
			reason: "The public certificate is served by SNI for the public hostname (the RootShard's by default), right after the serving certificate.",
			fp:     withPublicCert(),
			want: concat(defaultArgs[:5], []string{
				"--tls-sni-cert-key=/etc/kcp-front-proxy/public-tls/tls.crt,/etc/kcp-front-proxy/public-tls/tls.key:api.example.com",
			}, defaultArgs[5:]),
		},
		"RequestHeaderGate0.32.2": {
			reason: "kcp 0.32.2 predates the front-proxy's requestheader flags.",
			fp:     func(fp *v1alpha1.FrontProxy) { fp.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.32.2"} },
			want:   defaultArgs[:7],
		},
		"RequestHeaderGate0.31.6": {
			reason: "kcp 0.31.6 has them (~0.31.6).",
			fp:     func(fp *v1alpha1.FrontProxy) { fp.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.31.6"} },
			want:   defaultArgs,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp := frontProxy()
			if tc.fp != nil {
				tc.fp(fp)
			}
			r := converge(fp, testworld.RootShard(), tc.extra)
			if diff := cmp.Diff(tc.want, deployment(t, r).Spec.Template.Spec.Containers[0].Args); diff != "" {
				t.Errorf("%s\nargs: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMounts(t *testing.T) {
	base := []corev1.Volume{
		secretVolume("root-fp-dynamic-kubeconfig", "root-fp-dynamic-kubeconfig"),
		secretVolume("root-fp-kubeconfig", "root-fp-kubeconfig"),
		secretVolume("root-fp-server", "root-fp-server"),
		secretVolume("root-fp-requestheader", "root-fp-requestheader"),
	}
	baseMounts := []corev1.VolumeMount{
		{Name: "root-fp-dynamic-kubeconfig", MountPath: "/etc/kcp-front-proxy/kubeconfig"},
		mount("root-fp-kubeconfig", "/etc/kcp-front-proxy/kubeconfig-client-cert"),
		mount("root-fp-server", "/etc/kcp-front-proxy/tls"),
		mount("root-fp-requestheader", "/etc/kcp-front-proxy/requestheader-client"),
	}
	tail := []corev1.Volume{secretVolume("fp-merged-client-ca", "fp-merged-client-ca"), configVolume}
	tailMounts := []corev1.VolumeMount{mount("fp-merged-client-ca", "/etc/kcp-front-proxy/client-ca"), mount("fp-config", "/etc/kcp-front-proxy/config")}
	rootCA := secretVolume("root-ca", "root-ca")
	rootCAMount := mount("root-ca", "/etc/kcp/tls/ca")
	rh := secretVolume("root-requestheader-client-ca", "root-requestheader-client-ca")
	rhMount := mount("root-requestheader-client-ca", "/etc/kcp/tls/ca/requestheader-client")
	vols := func(parts ...[]corev1.Volume) []corev1.Volume {
		var out []corev1.Volume
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	mounts := func(parts ...[]corev1.VolumeMount) []corev1.VolumeMount {
		var out []corev1.VolumeMount
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	extraVol := corev1.Volume{Name: "plugins", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	extraMount := corev1.VolumeMount{Name: "plugins", MountPath: "/plugins"}

	cases := map[string]struct {
		reason     string
		fp         func(*v1alpha1.FrontProxy)
		rs         func(*v1alpha1.RootShard)
		extra      func(*testworld.World)
		wantVols   []corev1.Volume
		wantMounts []corev1.VolumeMount
	}{
		"CABundleOnOldKcp": {
			reason: "With caBundleSecretRef the merged CA bundle is mounted; kcp 0.32.2 gets no requestheader CA.",
			fp: func(fp *v1alpha1.FrontProxy) {
				fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "backend-ca"}
				fp.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.32.2"}
			},
			extra:      func(w *testworld.World) { w.Secret("backend-ca") },
			wantVols:   vols(base, []corev1.Volume{rootCA, secretVolume("fp-merged-ca-bundle", "fp-merged-ca-bundle")}, tail),
			wantMounts: mounts(baseMounts, []corev1.VolumeMount{rootCAMount, mount("fp-merged-ca-bundle", "/etc/kcp/tls/ca/ca-bundle")}, tailMounts),
		},
		"CASecretRef": {
			reason: "Unlike kcp-operator (quirk 5) the root CA is the RootShard's caSecretRef Secret, whatever its name.",
			rs: func(rs *v1alpha1.RootShard) {
				rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
			},
			extra:      func(w *testworld.World) { w.Secret("my-ca") },
			wantVols:   vols(base, []corev1.Volume{secretVolume("my-ca", "my-ca"), rh}, tail),
			wantMounts: mounts(baseMounts, []corev1.VolumeMount{mount("my-ca", "/etc/kcp/tls/ca"), rhMount}, tailMounts),
		},
		"AllAuthWithShards": {
			reason: "Authentication mounts follow the generated ones: OIDC CA, webhook, token file, then each service account key, root first and shards sorted.",
			fp: withAuth(&v1alpha1.AuthSpec{
				OIDC:           &v1alpha1.OIDCConfiguration{IssuerURL: "https://idp.example.com", ClientID: "kcp", CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca", Key: "ca.pem"}},
				Webhook:        &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn"},
				TokenAuthFile:  &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"},
				ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true},
			}),
			extra: func(w *testworld.World) { twoShards(w); w.Secret("idp-ca").Secret("authn").Secret("tokens") },
			wantVols: vols(base, []corev1.Volume{rootCA, rh}, tail, []corev1.Volume{
				secretVolume("oidc-ca-file", "idp-ca"),
				secretVolume("authentication-webhook-config", "authn"),
				secretVolume("token-auth-file", "tokens"),
				secretVolume("root-service-account", "root-service-account"),
				secretVolume("alpha-service-account", "alpha-service-account"),
				secretVolume("beta-service-account", "beta-service-account"),
			}),
			wantMounts: mounts(baseMounts, []corev1.VolumeMount{rootCAMount, rhMount}, tailMounts, []corev1.VolumeMount{
				mount("oidc-ca-file", "/etc/kcp/tls/oidc"),
				mount("authentication-webhook-config", "/etc/kcp/authentication/webhook"),
				mount("token-auth-file", "/etc/kcp/authentication/token"),
				mount("root-service-account", "/etc/kcp/tls/root/service-account"),
				mount("alpha-service-account", "/etc/kcp/tls/alpha/service-account"),
				mount("beta-service-account", "/etc/kcp/tls/beta/service-account"),
			}),
		},
		"PublicServerCertificate": {
			reason: "The public certificate's Secret is mounted right after the serving certificate's.",
			fp:     withPublicCert(),
			wantVols: vols(base[:3], []corev1.Volume{secretVolume("root-fp-public-serving", "root-fp-public-serving")}, base[3:],
				[]corev1.Volume{rootCA, rh}, tail),
			wantMounts: mounts(baseMounts[:3], []corev1.VolumeMount{mount("root-fp-public-serving", "/etc/kcp-front-proxy/public-tls")}, baseMounts[3:],
				[]corev1.VolumeMount{rootCAMount, rhMount}, tailMounts),
		},
		"ExtraVolumesFirst": {
			reason: "Extra volumes and mounts come first, as in kcp-operator's proxies.",
			fp: func(fp *v1alpha1.FrontProxy) {
				fp.Spec.ExtraVolumes = []corev1.Volume{extraVol}
				fp.Spec.ExtraVolumeMounts = []corev1.VolumeMount{extraMount}
			},
			wantVols:   vols([]corev1.Volume{extraVol}, base, []corev1.Volume{rootCA, rh}, tail),
			wantMounts: mounts([]corev1.VolumeMount{extraMount}, baseMounts, []corev1.VolumeMount{rootCAMount, rhMount}, tailMounts),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp, rs := frontProxy(), testworld.RootShard()
			if tc.fp != nil {
				tc.fp(fp)
			}
			if tc.rs != nil {
				tc.rs(rs)
			}
			pod := deployment(t, converge(fp, rs, tc.extra)).Spec.Template.Spec
			if diff := cmp.Diff(tc.wantVols, pod.Volumes); diff != "" {
				t.Errorf("%s\nvolumes: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantMounts, pod.Containers[0].VolumeMounts); diff != "" {
				t.Errorf("%s\nmounts: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCertificates(t *testing.T) {
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) {
		rs.Spec.ClusterDomain = "k8s.example"
		rs.Spec.External.PrivateHostname = "api.internal"
	})
	fp := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}
		fp.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{
			"requestheader": {Spec: &v1alpha1.CertificateSpecTemplate{RenewBefore: &metav1.Duration{Duration: 48 * 3600_000_000_000}}},
		}
	})
	r := composeOK(fp, testworld.New().Object(rs).RootCAs().State())

	secretTemplate := &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/rootshard": "root", "operator.kcp.io/front-proxy": "fp"}}
	cert := func(name string, spec cmv1.CertificateSpec) *cmv1.Certificate {
		spec.SecretName = name
		spec.SecretTemplate = secretTemplate
		spec.PrivateKey = &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096}
		spec.Duration = &metav1.Duration{Duration: 8760 * 3600_000_000_000}
		if spec.RenewBefore == nil {
			spec.RenewBefore = &metav1.Duration{Duration: 168 * 3600_000_000_000}
		}
		return &cmv1.Certificate{
			TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp", Labels: fpLabels},
			Spec:       spec,
		}
	}
	issuer := func(name string) cmmeta.IssuerReference {
		return cmmeta.IssuerReference{Name: name, Kind: "Issuer", Group: "cert-manager.io"}
	}
	want := map[resource.Name]*cmv1.Certificate{
		"certificate-root-fp-server": cert("root-fp-server", cmv1.CertificateSpec{
			DNSNames: []string{
				"fp-front-proxy", "fp-front-proxy.kcp", "fp-front-proxy.kcp.svc.k8s.example",
				"api.example.com", "api.internal", "kcp.example.com",
			},
			Usages:    []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
			IssuerRef: issuer("root-server-ca"),
		}),
		"certificate-root-fp-kubeconfig": cert("root-fp-kubeconfig", cmv1.CertificateSpec{
			CommonName: "kcp-front-proxy",
			Subject:    &cmv1.X509Subject{Organizations: []string{"system:masters"}},
			Usages:     []cmv1.KeyUsage{cmv1.UsageClientAuth},
			IssuerRef:  issuer("root-client-ca"),
		}),
		"certificate-root-fp-requestheader": cert("root-fp-requestheader", cmv1.CertificateSpec{
			CommonName:  "kcp-front-proxy",
			Usages:      []cmv1.KeyUsage{cmv1.UsageClientAuth},
			IssuerRef:   issuer("root-requestheader-client-ca"),
			RenewBefore: &metav1.Duration{Duration: 48 * 3600_000_000_000},
		}),
	}
	got := map[resource.Name]*cmv1.Certificate{}
	var order []string
	for _, o := range r.Desired.Objects() {
		if c, ok := o.Resource.(*cmv1.Certificate); ok {
			got[o.Name] = c
			order = append(order, c.Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Certificates as kcp-operator's, SANs with the RootShard's clusterDomain (quirk 9 fixed), its private hostname and the front-proxy's hostname, templates applied.\n-want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"root-fp-server", "root-fp-kubeconfig", "root-fp-requestheader"}, order); diff != "" {
		t.Errorf("certificate order: -want, +got:\n%s", diff)
	}
}

func TestServerDNSNames(t *testing.T) {
	svc := []string{"fp-front-proxy", "fp-front-proxy.kcp", "fp-front-proxy.kcp.svc.cluster.local"}
	cases := map[string]struct {
		reason string
		fp     func(*v1alpha1.FrontProxy)
		rs     func(*v1alpha1.RootShard)
		want   []string
	}{
		"Default": {
			reason: "The Service names (cluster.local by default) and the RootShard's public hostname.",
			want:   concat(svc, []string{"api.example.com"}),
		},
		"DeprecatedExternalHostnameWithPort": {
			reason: "The deprecated externalHostname is added without its port.",
			fp:     func(fp *v1alpha1.FrontProxy) { fp.Spec.ExternalHostname = "kcp.example.com:443" },
			want:   concat(svc, []string{"api.example.com", "kcp.example.com"}),
		},
		"DeprecatedExternalHostname": {
			reason: "The deprecated externalHostname without port is added as it is.",
			fp:     func(fp *v1alpha1.FrontProxy) { fp.Spec.ExternalHostname = "kcp.example.com" },
			want:   concat(svc, []string{"api.example.com", "kcp.example.com"}),
		},
		"Duplicates": {
			reason: "A name is listed once, where it first appears.",
			fp: func(fp *v1alpha1.FrontProxy) {
				fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 443}
			},
			rs:   func(rs *v1alpha1.RootShard) { rs.Spec.External.PrivateHostname = "api.example.com" },
			want: concat(svc, []string{"api.example.com"}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp, rs := frontProxy(), testworld.RootShard()
			if tc.fp != nil {
				tc.fp(fp)
			}
			if tc.rs != nil {
				tc.rs(rs)
			}
			r := composeOK(fp, testworld.New().Object(rs).State())
			o, _ := r.Desired.Get("certificate-root-fp-server")
			if diff := cmp.Diff(tc.want, o.Resource.(*cmv1.Certificate).Spec.DNSNames); diff != "" {
				t.Errorf("%s\nDNS names: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// withPublicCert sets spec.publicServerCertificate from ClusterIssuer letsencrypt with dnsNames.
func withPublicCert(dnsNames ...string) func(*v1alpha1.FrontProxy) {
	return func(fp *v1alpha1.FrontProxy) {
		fp.Spec.PublicServerCertificate = &v1alpha1.PublicServerCertificate{
			IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"},
			DNSNames:  dnsNames,
		}
	}
}

func TestPublicServerCertificate(t *testing.T) {
	publicCert := func(dnsNames ...string) *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
			ObjectMeta: metav1.ObjectMeta{Name: "root-fp-public-serving", Namespace: "kcp", Labels: fpLabels},
			Spec: cmv1.CertificateSpec{
				SecretName:     "root-fp-public-serving",
				SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/rootshard": "root", "operator.kcp.io/front-proxy": "fp"}},
				PrivateKey:     &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096},
				DNSNames:       dnsNames,
				Usages:         []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
				IssuerRef:      cmmeta.IssuerReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"},
			},
		}
	}
	sni := func(names string) []string {
		return []string{"--tls-sni-cert-key=/etc/kcp-front-proxy/public-tls/tls.crt,/etc/kcp-front-proxy/public-tls/tls.key:" + names}
	}
	cases := map[string]struct {
		reason   string
		fp       func(*v1alpha1.FrontProxy)
		wantSNI  []string // the flags between --tls-cert-file and --mapping-file
		wantCert *cmv1.Certificate
	}{
		"None": {
			reason: "Without publicServerCertificate: one serving certificate, no SNI flag.",
		},
		"RootShardHostname": {
			reason:   "Without a hostname of its own the front-proxy serves the RootShard's public hostname.",
			fp:       withPublicCert(),
			wantSNI:  sni("api.example.com"),
			wantCert: publicCert("api.example.com"),
		},
		"ExternalHostname": {
			reason: "The front-proxy's external.hostname is its public name.",
			fp: func(fp *v1alpha1.FrontProxy) {
				withPublicCert()(fp)
				fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}
			},
			wantSNI:  sni("kcp.example.com"),
			wantCert: publicCert("kcp.example.com"),
		},
		"DeprecatedExternalHostname": {
			reason: "The deprecated externalHostname, without its port.",
			fp: func(fp *v1alpha1.FrontProxy) {
				withPublicCert()(fp)
				fp.Spec.ExternalHostname = "kcp.example.com:443"
			},
			wantSNI:  sni("kcp.example.com"),
			wantCert: publicCert("kcp.example.com"),
		},
		"DNSNames": {
			reason: "dnsNames replace the public hostname, in order, on the certificate and in the SNI flag.",
			fp: func(fp *v1alpha1.FrontProxy) {
				withPublicCert("kcp.example.com", "*.kcp.example.com")(fp)
				fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "other.example.com", Port: 443}
			},
			wantSNI:  sni("kcp.example.com,*.kcp.example.com"),
			wantCert: publicCert("kcp.example.com", "*.kcp.example.com"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp := frontProxy()
			if tc.fp != nil {
				tc.fp(fp)
			}
			r := converge(fp, testworld.RootShard(), nil)
			args := deployment(t, r).Spec.Template.Spec.Containers[0].Args
			var sniArgs []string
			for i, a := range args {
				if a == "--tls-cert-file=/etc/kcp-front-proxy/tls/tls.crt" {
					for _, b := range args[i+1:] {
						if strings.HasPrefix(b, "--mapping-file=") {
							break
						}
						sniArgs = append(sniArgs, b)
					}
				}
			}
			if diff := cmp.Diff(tc.wantSNI, sniArgs); diff != "" {
				t.Errorf("%s\nflags after --tls-cert-file: -want, +got:\n%s", tc.reason, diff)
			}
			var got *cmv1.Certificate
			if o, ok := r.Desired.Get("certificate-root-fp-public-serving"); ok {
				got = o.Resource.(*cmv1.Certificate)
			}
			if diff := cmp.Diff(tc.wantCert, got); diff != "" {
				t.Errorf("%s\ncertificate-root-fp-public-serving: -want, +got:\n%s", tc.reason, diff)
			}
			o, _ := r.Desired.Get("certificate-root-fp-server")
			if diff := cmp.Diff([]string{"fp-front-proxy", "fp-front-proxy.kcp", "fp-front-proxy.kcp.svc.cluster.local", "api.example.com"}, o.Resource.(*cmv1.Certificate).Spec.DNSNames[:4]); diff != "" {
				t.Errorf("%s\nthe certificate from the installation's CA keeps serving the in-cluster names: -want, +got:\n%s", tc.reason, diff)
			}
			wantCount := "All 3 certificates are issued."
			if tc.wantCert != nil {
				wantCount = "All 4 certificates are issued."
			}
			if got := r.Conditions[0].Message; got != wantCount {
				t.Errorf("%s\nCertificatesReady: got %q, want %q", tc.reason, got, wantCount)
			}
		})
	}
}

func TestPathMapping(t *testing.T) {
	fp := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "backend-ca"}
		fp.Spec.AdditionalPathMappings = []v1alpha1.PathMappingEntry{{
			Path: "/services/custom/", Backend: "https://custom.kcp.svc:8443", BackendServerCA: "/etc/custom/ca.crt",
			ProxyClientCert: "/etc/custom/tls.crt", ProxyClientKey: "/etc/custom/tls.key",
		}}
	})
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.kcp.example:6443" })
	r := composeOK(fp, testworld.New().Object(rs).State())
	o, ok := r.Desired.Get("configmap-config")
	if !ok {
		t.Fatalf("the path mapping is composed at once; desired: %v", r.Desired.Names())
	}
	want := `- backend: https://root.kcp.example:6443
  backend_server_ca: /etc/kcp/tls/ca/ca-bundle/tls.crt
  path: /clusters/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
- backend: https://root.kcp.example:6443
  backend_server_ca: /etc/kcp/tls/ca/ca-bundle/tls.crt
  path: /services/
  proxy_client_cert: /etc/kcp-front-proxy/requestheader-client/tls.crt
  proxy_client_key: /etc/kcp-front-proxy/requestheader-client/tls.key
- backend: https://custom.kcp.svc:8443
  backend_server_ca: /etc/custom/ca.crt
  path: /services/custom/
  proxy_client_cert: /etc/custom/tls.crt
  proxy_client_key: /etc/custom/tls.key
`
	if diff := cmp.Diff(want, o.Resource.(*corev1.ConfigMap).Data["path-mapping.yaml"]); diff != "" {
		t.Errorf("The root shard's base URL serves /clusters/ and /services/, trusted through the merged CA bundle, then the additional mappings verbatim.\n-want, +got:\n%s", diff)
	}
}

func TestServicePort(t *testing.T) {
	cases := map[string]struct {
		reason string
		fp     v1alpha1.FrontProxySpec
		rsPort uint32
		want   int32
	}{
		"ExternalPort":               {reason: "external.port wins.", fp: v1alpha1.FrontProxySpec{External: v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}}, rsPort: 8443, want: 443},
		"ExternalPortWithoutHost":    {reason: "external.port wins even before externalHostname.", fp: v1alpha1.FrontProxySpec{External: v1alpha1.ExternalConfig{Port: 8444}, ExternalHostname: "kcp.example.com:443"}, rsPort: 8443, want: 8444},
		"ExternalHostnamePort":       {reason: "The deprecated externalHostname's port.", fp: v1alpha1.FrontProxySpec{ExternalHostname: "kcp.example.com:9443"}, rsPort: 8443, want: 9443},
		"ExternalHostnameNoPort":     {reason: "externalHostname without port means 6443, not the RootShard's port.", fp: v1alpha1.FrontProxySpec{ExternalHostname: "kcp.example.com"}, rsPort: 8443, want: 6443},
		"ExternalHostnameBadPort":    {reason: "An invalid port means 6443.", fp: v1alpha1.FrontProxySpec{ExternalHostname: "kcp.example.com:https"}, rsPort: 8443, want: 6443},
		"ExternalHostnamePortTooBig": {reason: "A port out of range means 6443.", fp: v1alpha1.FrontProxySpec{ExternalHostname: "kcp.example.com:70000"}, rsPort: 8443, want: 6443},
		"RootShardPort":              {reason: "Else the RootShard's external port.", rsPort: 8443, want: 8443},
		"Default":                    {reason: "Else 6443.", want: 6443},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp := frontProxy(func(fp *v1alpha1.FrontProxy) { fp.Spec = tc.fp })
			rs := testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.Spec.External.Port = tc.rsPort })
			if diff := cmp.Diff(tc.want, ServicePort(fp, rs)); diff != "" {
				t.Errorf("%s\nServicePort(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestService(t *testing.T) {
	fp := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}
		fp.Spec.ServiceTemplate = &v1alpha1.ServiceTemplate{
			Metadata: &v1alpha1.ServiceMetadataTemplate{Annotations: map[string]string{"lb.example.com/internal": "false"}},
			Spec:     &v1alpha1.ServiceSpecTemplate{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.0.0.10"},
		}
	})
	r := converge(fp, testworld.RootShard(), nil)
	o, ok := r.Desired.Get("service-front-proxy")
	if !ok {
		t.Fatal("service-front-proxy is not desired")
	}
	want := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "fp-front-proxy", Namespace: "kcp", Labels: fpLabels,
			Annotations: map[string]string{"lb.example.com/internal": "false"}},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeLoadBalancer,
			ClusterIP: "10.0.0.10",
			Selector:  fpLabels,
			Ports: []corev1.ServicePort{{
				Name: "https", Protocol: corev1.ProtocolTCP, Port: 443,
				TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https"),
			}},
		},
	}
	if diff := cmp.Diff(want, o.Resource); diff != "" {
		t.Errorf("The Service listens on the external port, targets 6443 and applies the template's type and clusterIP.\n-want, +got:\n%s", diff)
	}
}

func TestURL(t *testing.T) {
	cases := map[string]struct {
		reason string
		fp     v1alpha1.FrontProxySpec
		rs     *v1alpha1.RootShard
		want   string
	}{
		"External":             {reason: "spec.external first.", fp: v1alpha1.FrontProxySpec{External: v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443}}, rs: testworld.RootShard(), want: "https://kcp.example.com:443"},
		"ExternalHostnamePort": {reason: "The deprecated externalHostname with its port.", fp: v1alpha1.FrontProxySpec{ExternalHostname: "kcp.example.com:443"}, rs: testworld.RootShard(), want: "https://kcp.example.com:443"},
		"ExternalHostname":     {reason: "The deprecated externalHostname, port 6443.", fp: v1alpha1.FrontProxySpec{ExternalHostname: "kcp.example.com"}, rs: testworld.RootShard(), want: "https://kcp.example.com:6443"},
		"RootShard": {reason: "Else the RootShard's public address, never its private one.", rs: testworld.RootShard(func(rs *v1alpha1.RootShard) {
			rs.Spec.External = v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 8443, PrivateHostname: "api.internal"}
		}), want: "https://api.example.com:8443"},
		"RootShardUnknown": {reason: "Unknown without the RootShard.", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp := frontProxy(func(fp *v1alpha1.FrontProxy) { fp.Spec = tc.fp })
			if diff := cmp.Diff(tc.want, names.FrontProxyURL(fp, tc.rs)); diff != "" {
				t.Errorf("%s\nURL(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMergedBundles(t *testing.T) {
	fp := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "fp-clients"}
		fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "backend-ca"}
	})
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) {
		rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "root-clients"}
	})
	r := converge(fp, rs, func(w *testworld.World) { w.Secret("fp-clients").Secret("root-clients").Secret("backend-ca") })
	labels := map[string]string{"operator.kcp.io/front-proxy": "fp"}
	for key, want := range map[resource.Name]*corev1.Secret{
		"secret-merged-client-ca": {
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: "fp-merged-client-ca", Namespace: "kcp", Labels: labels},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{"tls.crt": []byte("PEM(root-client-ca)\nPEM(root-clients)\nPEM(fp-clients)")},
		},
		"secret-merged-ca-bundle": {
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: "fp-merged-ca-bundle", Namespace: "kcp", Labels: labels},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{"tls.crt": []byte("PEM(root-server-ca)\nPEM(backend-ca)")},
		},
	} {
		o, ok := r.Desired.Get(key)
		if !ok {
			t.Errorf("%s is not desired", key)
			continue
		}
		if diff := cmp.Diff(want, o.Resource); diff != "" {
			t.Errorf("%s: the client CA merges the RootShard's client CA, the RootShard's and the FrontProxy's bundles; the CA bundle the server CA and caBundleSecretRef.\n-want, +got:\n%s", key, diff)
		}
	}
	deployment(t, r)
}

func TestMissingRootShard(t *testing.T) {
	converged := converge(frontProxy(), testworld.RootShard(), nil)
	w := testworld.New().RootCAs().Settle(converged.Desired)
	r := composeOK(frontProxy(), w.State())

	if diff := cmp.Diff(converged.Desired.Names(), r.Desired.Names()); diff != "" {
		t.Errorf("A vanished RootShard must not shrink the desired set.\n-want, +got:\n%s", diff)
	}
	for _, o := range r.Desired.Objects() {
		if o.Kept == nil {
			t.Errorf("%s must be kept exactly as observed", o.Name)
		}
	}
	want := []condition.Condition{{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing,
		Message: "RootShard root (spec.rootShard.ref.name) does not exist in namespace kcp; create it or fix the reference. Everything composed so far is kept unchanged meanwhile."}}
	if diff := cmp.Diff(want, r.Conditions); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	if !r.NotReady || r.Status.Phase != v1alpha1.PhaseProvisioning {
		t.Errorf("the FrontProxy must not be ready without its RootShard: %+v", r.Status)
	}
	if diff := cmp.Diff([]result.Requirement{{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard", Name: "root"}}, r.Requirements); diff != "" {
		t.Errorf("the RootShard is still required: -want, +got:\n%s", diff)
	}

	fresh := composeOK(frontProxy(), testworld.New().State())
	if len(fresh.Desired.Objects()) != 0 {
		t.Errorf("Nothing is composed for a FrontProxy whose RootShard never existed, got %v", fresh.Desired.Names())
	}
	if fresh.Conditions[0].Message != "RootShard root (spec.rootShard.ref.name) does not exist in namespace kcp; create it or fix the reference." {
		t.Errorf("condition = %+v", fresh.Conditions[0])
	}
}

func TestGating(t *testing.T) {
	cases := map[string]struct {
		reason    string
		fp        func(*v1alpha1.FrontProxy)
		rs        func(*v1alpha1.RootShard)
		world     func() *testworld.World
		first     bool
		inputs    string
		available string
	}{
		"CertificatesNotIssued": {
			reason:    "The first render composes certificates, bundles and configuration but no Deployment.",
			world:     func() *testworld.World { return testworld.New().RootCAs() },
			first:     true,
			inputs:    "Every Secret and ConfigMap the spec references exists.",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"RootCAMissing": {
			reason:    "The RootShard's root CA Secret is an input.",
			world:     func() *testworld.World { return issued().Drop("Secret", "root-ca") },
			inputs:    "Waiting for Secret root-ca (spec.rootShard.ref.name (RootShard root)).",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"CASecretRefMissing": {
			reason: "With caSecretRef the RootShard's CA Secret is that Secret.",
			rs: func(rs *v1alpha1.RootShard) {
				rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
			},
			world:     func() *testworld.World { return issued() },
			inputs:    "Waiting for Secret my-ca (spec.rootShard.ref.name (RootShard root)).",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"RequestHeaderCAMissing": {
			reason:    "The requestheader CA is an input of kcp 0.32.3.",
			world:     func() *testworld.World { return issued().Drop("Secret", "root-requestheader-client-ca") },
			inputs:    "Waiting for Secret root-requestheader-client-ca (spec.rootShard.ref.name (RootShard root)).",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"ShardServiceAccountKeyMissing": {
			reason: "Every service account key is an input.",
			fp:     withAuth(&v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}),
			world: func() *testworld.World {
				w := issued()
				twoShards(w)
				return w.Drop("Secret", "beta-service-account")
			},
			inputs:    "Waiting for Secret beta-service-account (spec.auth.serviceAccount (service account key of beta)).",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"UserSecretsMissing": {
			reason: "The OIDC CA, webhook config and token file Secrets are inputs, each named with its field.",
			fp: withAuth(&v1alpha1.AuthSpec{
				OIDC:           &v1alpha1.OIDCConfiguration{IssuerURL: "https://idp.example.com", ClientID: "kcp", CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca"}},
				Webhook:        &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "authn"},
				TokenAuthFile:  &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"},
				ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true},
			}),
			world:     func() *testworld.World { return issued().Secret("root-service-account") },
			inputs:    "Waiting for Secret authn (spec.auth.webhook.configSecretName); Secret idp-ca (spec.auth.oidc.caFileRef.name); Secret tokens (spec.auth.tokenAuthFile.secretName).",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"RootShardStillIssuing": {
			reason: "While the RootShard says it is issuing, InputsReady names it, not each of its Secrets not there yet: the message stays the same until they are all there.",
			world: func() *testworld.World {
				w := issued().Drop("Secret", "root-ca").Object(testworld.RootShard())
				w.Required("RootShard", "root")["status"] = map[string]any{"conditions": []any{
					map[string]any{"type": "CertificatesReady", "status": "False", "reason": "Issuing"}}}
				return w
			},
			inputs:    "Waiting for RootShard root to issue its certificates (its condition CertificatesReady); the Secrets it issues are checked after that.",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
		"ClientCABundleMissing": {
			reason: "A client CA bundle that does not exist holds the merged client CA and so the Deployment.",
			fp: func(fp *v1alpha1.FrontProxy) {
				fp.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "fp-clients"}
			},
			world:     func() *testworld.World { return issued() },
			inputs:    "Waiting for tls.crt of Secret fp-clients (to build Secret fp-merged-client-ca).",
			available: "Deployment kcp/fp-front-proxy is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp, rs := frontProxy(), testworld.RootShard()
			if tc.fp != nil {
				tc.fp(fp)
			}
			if tc.rs != nil {
				tc.rs(rs)
			}
			world := func() *testworld.World {
				w := tc.world()
				if w.Required("RootShard", "root") == nil || tc.rs != nil {
					w.Object(rs)
				}
				return w
			}
			r := composeOK(fp, world().State())
			if !tc.first {
				// Settle what was composed so only the input under test is missing.
				r = composeOK(fp, world().Settle(r.Desired).State())
			}
			if r.Desired.Has("deployment-front-proxy") {
				t.Errorf("%s\nthe Deployment must wait", tc.reason)
			}
			if !r.NotReady {
				t.Errorf("the XR must be forced not ready while its Deployment waits")
			}
			got := map[string]string{}
			for _, c := range r.Conditions {
				got[c.Type] = c.Message
			}
			if diff := cmp.Diff(tc.inputs, got[condition.TypeInputsReady]); diff != "" {
				t.Errorf("%s\nInputsReady: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.available, got[condition.TypeAvailable]); diff != "" {
				t.Errorf("%s\nAvailable: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// issued is a world in which the RootShard's CAs exist and the FrontProxy's certificates are
// issued, so that only what a test drops is missing.
func issued() *testworld.World {
	w := testworld.New().RootCAs()
	for _, s := range []string{"root-fp-server", "root-fp-kubeconfig", "root-fp-requestheader"} {
		w.Secret(s)
	}
	return w
}

func TestInputVanishesKeepsDeployment(t *testing.T) {
	fp := frontProxy(withAuth(&v1alpha1.AuthSpec{TokenAuthFile: &v1alpha1.TokenAuthFileSpec{SecretName: "tokens"}}))
	converged := converge(fp, testworld.RootShard(), func(w *testworld.World) { w.Secret("tokens") })
	deployment(t, converged)
	w := testworld.New().Object(testworld.RootShard()).RootCAs().Settle(converged.Desired).Drop("Secret", "tokens")
	r := composeOK(fp, w.State())
	o, ok := r.Desired.Get("deployment-front-proxy")
	if !ok || o.Kept == nil {
		t.Fatalf("A Deployment whose input vanished is kept exactly as observed, got %+v", o)
	}
	if o, ok := r.Desired.Get("service-front-proxy"); !ok || o.Kept == nil {
		t.Errorf("and so is its Service")
	}
	for _, c := range r.Conditions {
		if c.Type == condition.TypeInputsReady && !strings.Contains(c.Message, "Secret tokens (spec.auth.tokenAuthFile.secretName)") {
			t.Errorf("InputsReady = %+v", c)
		}
	}
}
