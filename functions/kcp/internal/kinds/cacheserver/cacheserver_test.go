package cacheserver

import (
	"slices"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// basic is the smallest CacheServer: embedded etcd, CA from a ClusterIssuer.
func basic(mods ...func(*v1alpha1.CacheServer)) *v1alpha1.CacheServer {
	cs := &v1alpha1.CacheServer{
		ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: "kcp"},
		Spec: v1alpha1.CacheServerSpec{
			Certificates: v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "kcp-selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"}},
		},
	}
	for _, m := range mods {
		m(cs)
	}
	return cs
}

func withEtcd(e v1alpha1.EtcdConfig) func(*v1alpha1.CacheServer) {
	return func(cs *v1alpha1.CacheServer) { cs.Spec.Etcd = &e }
}

func withTag(tag string) func(*v1alpha1.CacheServer) {
	return func(cs *v1alpha1.CacheServer) { cs.Spec.Image = &v1alpha1.ImageSpec{Tag: tag} }
}

var (
	plainEtcd = v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-0:2379", "http://etcd-1:2379"}}
	tlsEtcd   = v1alpha1.EtcdConfig{
		Endpoints: []string{"https://etcd:2379"}, Prefix: "/cache",
		TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: corev1.LocalObjectReference{Name: "etcd-client"}},
	}
)

// converge composes repeatedly, issuing certificates and creating objects, as the world
// would. extra adds the user's objects to every round.
func converge(cs *v1alpha1.CacheServer, extra func(*testworld.World)) (Result, *testworld.World) {
	w := testworld.New()
	if extra != nil {
		extra(w)
	}
	r := composeOK(cs, w.State())
	for range 4 {
		w = testworld.New()
		if extra != nil {
			extra(w)
		}
		w.Issued(r.Desired, 1).Exists(r.Desired)
		r = composeOK(cs, w.State())
	}
	return r, w
}

func keys(s *desired.Set) []string {
	var out []string
	for _, n := range s.Names() {
		out = append(out, string(n))
	}
	return out
}

func get[T any](t *testing.T, r Result, key resource.Name) T {
	t.Helper()
	o, ok := r.Desired.Get(key)
	if !ok {
		t.Fatalf("%s is not desired; desired: %v", key, keys(&r.Desired))
	}
	v, ok := o.Resource.(T)
	if !ok {
		t.Fatalf("%s is %T (kept: %v), not the expected type", key, o.Resource, o.Kept != nil)
	}
	return v
}

func cond(r Result, t string) condition.Condition {
	for _, c := range r.Conditions {
		if c.Type == t {
			return c
		}
	}
	return condition.Condition{}
}

var labels = map[string]string{
	"app.kubernetes.io/managed-by": "configuration-kcp",
	"app.kubernetes.io/name":       "kcp",
	"app.kubernetes.io/instance":   "cache",
	"app.kubernetes.io/component":  "cache-server",
}

func TestComposeFresh(t *testing.T) {
	r := composeOK(basic(), testworld.New().State())

	want := []string{"certificate-ca", "certificate-client-certificate", "certificate-server", "issuer-ca", "secret-kubeconfig"}
	if diff := cmp.Diff(want, keys(&r.Desired)); diff != "" {
		t.Errorf("Before any certificate is issued only the PKI and the kubeconfig are composed.\n-want, +got:\n%s", diff)
	}
	if !r.NotReady {
		t.Errorf("The XR must be explicitly not ready while its Deployment is not composed")
	}
	if diff := cmp.Diff([]result.Requirement{{Kind: "Secret", Name: "cache-ca"}}, r.Requirements); diff != "" {
		t.Errorf("An embedded-etcd CacheServer reads no user Secrets, only its own CA, which its reference publishes: -want, +got:\n%s", diff)
	}
	wantStatus := v1alpha1.CacheServerStatus{Phase: v1alpha1.PhaseProvisioning, URL: "https://cache-cache-server.kcp.svc.cluster.local:6443", Storage: v1alpha1.StorageEmbedded}
	if diff := cmp.Diff(wantStatus, r.Status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
	wantConds := []condition.Condition{
		{Type: "CertificatesReady", Reason: "Issuing", Message: "Waiting for cert-manager to issue the 3 certificates (kubectl get certificates -n kcp shows each one's state)."},
		{Type: "InputsReady", Status: true, Reason: "AllPresent", Message: "Every Secret and ConfigMap the spec references exists."},
		{Type: "Available", Reason: "WaitingForInputs", Message: "Deployment kcp/cache-cache-server is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady). " + EmbeddedStorageNote},
	}
	if diff := cmp.Diff(wantConds, r.Conditions); diff != "" {
		t.Errorf("conditions: -want, +got:\n%s", diff)
	}
	for _, o := range r.Desired.Objects() {
		if o.Ready != resource.ReadyFalse {
			t.Errorf("fresh: %s must not be ready before it is observed", o.Name)
		}
	}
}

func TestComposeConverged(t *testing.T) {
	cases := map[string]struct {
		reason      string
		cs          *v1alpha1.CacheServer
		extra       func(*testworld.World)
		wantStatus  v1alpha1.CacheServerStatus
		wantMessage string
	}{
		"Embedded": {
			reason:      "An embedded-etcd CacheServer runs, and says its storage is lost on restart.",
			cs:          basic(),
			wantStatus:  v1alpha1.CacheServerStatus{Phase: v1alpha1.PhaseRunning, Image: "ghcr.io/kcp-dev/kcp:v0.32.3", URL: "https://cache-cache-server.kcp.svc.cluster.local:6443", Storage: v1alpha1.StorageEmbedded},
			wantMessage: "Deployment kcp/cache-cache-server is fully up and running. " + EmbeddedStorageNote,
		},
		"ExternalWithClusterDomain": {
			reason: "An external-etcd CacheServer runs; its URL uses spec.clusterDomain.",
			cs: basic(withEtcd(tlsEtcd), func(cs *v1alpha1.CacheServer) {
				cs.Spec.ClusterDomain = "corp.internal"
			}),
			extra: func(w *testworld.World) {
				w.SecretData("etcd-client", map[string]string{"tls.crt": "x"}).ResourceVersion("Secret", "etcd-client", "5")
			},
			wantStatus:  v1alpha1.CacheServerStatus{Phase: v1alpha1.PhaseRunning, Image: "ghcr.io/kcp-dev/kcp:v0.32.3", URL: "https://cache-cache-server.kcp.svc.corp.internal:6443", Storage: v1alpha1.StorageExternal},
			wantMessage: "Deployment kcp/cache-cache-server is fully up and running.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.cs, tc.extra)
			want := []string{"certificate-ca", "certificate-client-certificate", "certificate-server", "deployment-cache-server", "issuer-ca", "secret-kubeconfig", "secret-reference", "service-cache-server"}
			if tc.cs.Spec.Etcd != nil {
				// Two replicas with an external etcd: at most one may be disrupted at a time.
				want = append(want, "poddisruptionbudget-cache-server")
				slices.Sort(want)
			}
			if diff := cmp.Diff(want, keys(&r.Desired)); diff != "" {
				t.Errorf("%s\nconverged objects: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantStatus, r.Status); diff != "" {
				t.Errorf("%s\nstatus: -want, +got:\n%s", tc.reason, diff)
			}
			if r.NotReady {
				t.Errorf("%s\nconverged: the XR must not be forced not ready", tc.reason)
			}
			for _, c := range r.Conditions {
				if !c.Status {
					t.Errorf("%s\nconverged: condition %s is False: %s", tc.reason, c.Type, c.Message)
				}
			}
			if got := cond(r, condition.TypeAvailable).Message; got != tc.wantMessage {
				t.Errorf("%s\nAvailable message:\n got %q\nwant %q", tc.reason, got, tc.wantMessage)
			}
			for _, o := range r.Desired.Objects() {
				if o.Ready != resource.ReadyTrue {
					t.Errorf("%s\nconverged: %s is not ready", tc.reason, o.Name)
				}
			}
		})
	}
}

func TestCertificates(t *testing.T) {
	secretTemplate := &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/cache-server": "cache"}}
	rsa := &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096}
	tm := metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"}
	ca := func(issuer cmmeta.IssuerReference) *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta:   tm,
			ObjectMeta: metav1.ObjectMeta{Name: "cache-ca", Namespace: "kcp", Labels: labels},
			Spec: cmv1.CertificateSpec{
				CommonName: "cache-ca", IsCA: true, SecretName: "cache-ca", SecretTemplate: secretTemplate,
				Duration: &metav1.Duration{Duration: 87600 * time.Hour}, RenewBefore: &metav1.Duration{Duration: 720 * time.Hour},
				PrivateKey: &cmv1.CertificatePrivateKey{RotationPolicy: cmv1.RotationPolicyNever, Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096}, IssuerRef: issuer,
			},
		}
	}
	leafIssuer := cmmeta.IssuerReference{Name: "cache-ca", Kind: "Issuer", Group: "cert-manager.io"}
	server := func(dns ...string) *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta:   tm,
			ObjectMeta: metav1.ObjectMeta{Name: "cache-server", Namespace: "kcp", Labels: labels},
			Spec: cmv1.CertificateSpec{
				SecretName: "cache-server", SecretTemplate: secretTemplate, DNSNames: dns,
				Usages:   []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
				Duration: &metav1.Duration{Duration: 8760 * time.Hour}, RenewBefore: &metav1.Duration{Duration: 168 * time.Hour},
				PrivateKey: rsa, IssuerRef: leafIssuer,
			},
		}
	}
	client := &cmv1.Certificate{
		TypeMeta:   tm,
		ObjectMeta: metav1.ObjectMeta{Name: "cache-client-certificate", Namespace: "kcp", Labels: labels},
		Spec: cmv1.CertificateSpec{
			CommonName: "cache-client", Subject: &cmv1.X509Subject{Organizations: []string{"system:masters"}},
			SecretName: "cache-client-certificate", SecretTemplate: secretTemplate,
			Usages:   []cmv1.KeyUsage{cmv1.UsageClientAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
			Duration: &metav1.Duration{Duration: 8760 * time.Hour}, RenewBefore: &metav1.Duration{Duration: 168 * time.Hour},
			PrivateKey: rsa, IssuerRef: leafIssuer,
		},
	}
	issuer := &cmv1.Issuer{
		TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Issuer"},
		ObjectMeta: metav1.ObjectMeta{Name: "cache-ca", Namespace: "kcp", Labels: labels},
		Spec:       cmv1.IssuerSpec{IssuerConfig: cmv1.IssuerConfig{CA: &cmv1.CAIssuer{SecretName: "cache-ca"}}},
	}

	type want struct {
		ca, server, client *cmv1.Certificate
		issuer             *cmv1.Issuer
	}
	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   want
	}{
		"Default": {
			reason: "kcp-operator's CacheServer chain: the root CA from issuerRef, an Issuer on it, and two leaves.",
			cs:     basic(),
			want: want{
				ca:     ca(cmmeta.IssuerReference{Name: "kcp-selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"}),
				server: server("localhost", "cache-cache-server.kcp.svc.cluster.local"),
				client: client, issuer: issuer,
			},
		},
		"IssuerRefVerbatimAndClusterDomain": {
			reason: "An issuerRef without kind and group is copied as it is; the server SAN uses spec.clusterDomain.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: "ca-issuer"}
				cs.Spec.ClusterDomain = "corp.internal"
			}),
			want: want{
				ca:     ca(cmmeta.IssuerReference{Name: "ca-issuer"}),
				server: server("localhost", "cache-cache-server.kcp.svc.corp.internal"),
				client: client, issuer: issuer,
			},
		},
		"Templates": {
			reason: "Templates root-ca, server and client apply to their certificates with kcp-operator's merge rules.",
			cs: basic(func(cs *v1alpha1.CacheServer) {
				cs.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{
					"root-ca": {Spec: &v1alpha1.CertificateSpecTemplate{Duration: &metav1.Duration{Duration: 1000 * time.Hour}}},
					"server":  {Spec: &v1alpha1.CertificateSpecTemplate{DNSNames: []string{"cache.example.com"}}},
					"client":  {Spec: &v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{Organizations: []string{"acme"}}}},
				}
			}),
			want: func() want {
				c := ca(cmmeta.IssuerReference{Name: "kcp-selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"})
				c.Spec.Duration = &metav1.Duration{Duration: 1000 * time.Hour}
				cl := client.DeepCopy()
				cl.Spec.Subject.Organizations = []string{"acme", "system:masters"}
				return want{
					ca:     c,
					server: server("cache-cache-server.kcp.svc.cluster.local", "cache.example.com", "localhost"),
					client: cl, issuer: issuer,
				}
			}(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(tc.cs, testworld.New().State())
			got := want{
				ca:     get[*cmv1.Certificate](t, r, "certificate-ca"),
				server: get[*cmv1.Certificate](t, r, "certificate-server"),
				client: get[*cmv1.Certificate](t, r, "certificate-client-certificate"),
				issuer: get[*cmv1.Issuer](t, r, "issuer-ca"),
			}
			if diff := cmp.Diff(tc.want.ca, got.ca); diff != "" {
				t.Errorf("%s\n<cs>-ca: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.server, got.server); diff != "" {
				t.Errorf("%s\n<cs>-server: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.client, got.client); diff != "" {
				t.Errorf("%s\n<cs>-client-certificate: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.issuer, got.issuer); diff != "" {
				t.Errorf("%s\nIssuer <cs>-ca: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestKubeconfigSecret(t *testing.T) {
	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   string
	}{
		"Default": {
			reason: "kcp-operator's <cs>-kubeconfig, byte for byte: cluster, user and context all named cache, files where consumers mount them.",
			cs:     basic(),
			want: `apiVersion: v1
clusters:
- cluster:
    certificate-authority: /etc/cache-server/tls/ca/root/tls.crt
    server: https://cache-cache-server.kcp.svc.cluster.local:6443
  name: cache
contexts:
- context:
    cluster: cache
    user: cache
  name: cache
current-context: cache
kind: Config
users:
- name: cache
  user:
    client-certificate: /etc/cache-server/tls/client-certificate/tls.crt
    client-key: /etc/cache-server/tls/client-certificate/tls.key
`,
		},
		"ClusterDomain": {
			reason: "The server URL uses spec.clusterDomain.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.ClusterDomain = "corp.internal" }),
			want: `apiVersion: v1
clusters:
- cluster:
    certificate-authority: /etc/cache-server/tls/ca/root/tls.crt
    server: https://cache-cache-server.kcp.svc.corp.internal:6443
  name: cache
contexts:
- context:
    cluster: cache
    user: cache
  name: cache
current-context: cache
kind: Config
users:
- name: cache
  user:
    client-certificate: /etc/cache-server/tls/client-certificate/tls.crt
    client-key: /etc/cache-server/tls/client-certificate/tls.key
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(tc.cs, testworld.New().State())
			s := get[*corev1.Secret](t, r, "secret-kubeconfig")
			wantMeta := metav1.ObjectMeta{Name: "cache-kubeconfig", Namespace: "kcp", Labels: map[string]string{"operator.kcp.io/cache-server": "cache"}}
			if diff := cmp.Diff(wantMeta, s.ObjectMeta); diff != "" {
				t.Errorf("%s\nmetadata: -want, +got:\n%s", tc.reason, diff)
			}
			if s.Type != corev1.SecretTypeOpaque || len(s.Data) != 1 {
				t.Errorf("%s\nan Opaque Secret with the single key kubeconfig, got type %q keys %d", tc.reason, s.Type, len(s.Data))
			}
			if diff := cmp.Diff(tc.want, string(s.Data["kubeconfig"])); diff != "" {
				t.Errorf("%s\nkubeconfig: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	base := []string{
		"--tls-cert-file=/etc/cache-server/tls/server/tls.crt",
		"--tls-private-key-file=/etc/cache-server/tls/server/tls.key",
		"--root-directory=",
	}
	clientCA := "--client-ca-file=/etc/cache-server/tls/ca/root/tls.crt"
	with := func(parts ...string) []string { return append(append([]string{}, base...), parts...) }

	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   []string
	}{
		"EmbeddedDefaultTag": {
			reason: "The default kcp v0.32.3 authenticates clients with the cache's CA; embedded etcd in /var/etcd.",
			cs:     basic(),
			want:   with(clientCA, "--embedded-etcd-directory=/var/etcd"),
		},
		"EmbeddedOldKcp": {
			reason: "kcp v0.30.1 predates --client-ca-file on the cache server (~0.30.2).",
			cs:     basic(withTag("v0.30.1")),
			want:   with("--embedded-etcd-directory=/var/etcd"),
		},
		"EmbeddedPatchedKcp": {
			reason: "kcp v0.30.2 has it.",
			cs:     basic(withTag("v0.30.2")),
			want:   with(clientCA, "--embedded-etcd-directory=/var/etcd"),
		},
		"EmbeddedNonSemverTag": {
			reason: "A tag that is not a version (main) is treated as the newest kcp.",
			cs:     basic(withTag("main")),
			want:   with(clientCA, "--embedded-etcd-directory=/var/etcd"),
		},
		"ExternalPlain": {
			reason: "External etcd without prefix or TLS: endpoints joined by commas.",
			cs:     basic(withEtcd(plainEtcd)),
			want:   with(clientCA, "--etcd-servers=http://etcd-0:2379,http://etcd-1:2379"),
		},
		"ExternalPrefixAndTLS": {
			reason: "Prefix, then the three TLS files under /etc/cache-server/etcd.",
			cs:     basic(withEtcd(tlsEtcd)),
			want: with(clientCA,
				"--etcd-servers=https://etcd:2379",
				"--etcd-prefix=/cache",
				"--etcd-cafile=/etc/cache-server/etcd/ca.crt",
				"--etcd-certfile=/etc/cache-server/etcd/tls.crt",
				"--etcd-keyfile=/etc/cache-server/etcd/tls.key",
			),
		},
		"ExternalOldKcpLoggingExtraArgs": {
			reason: "-v follows the etcd flags and extraArgs come last.",
			cs: basic(withEtcd(plainEtcd), withTag("v0.30.1"), func(cs *v1alpha1.CacheServer) {
				cs.Spec.Logging = &v1alpha1.LoggingSpec{Level: 4}
				cs.Spec.ExtraArgs = []string{"--etcd-servers=http://override:2379", "--shutdown-delay-duration=5s"}
			}),
			want: with(
				"--etcd-servers=http://etcd-0:2379,http://etcd-1:2379",
				"-v=4",
				"--etcd-servers=http://override:2379",
				"--shutdown-delay-duration=5s",
			),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.cs, func(w *testworld.World) { w.SecretData("etcd-client", map[string]string{"tls.crt": "x"}) })
			d := get[*appsv1.Deployment](t, r, "deployment-cache-server")
			if diff := cmp.Diff(tc.want, d.Spec.Template.Spec.Containers[0].Args); diff != "" {
				t.Errorf("%s\nflags must match kcp-operator's, in order.\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMounts(t *testing.T) {
	type mount struct {
		Volume, Source, Path string
		ReadOnly             bool
	}
	scratch := mount{"etcd-scratch", "emptyDir", "/var/etcd", false}
	serving := mount{"serving-cert", "cache-server", "/etc/cache-server/tls/server", true}
	clientCA := mount{"client-ca", "cache-ca", "/etc/cache-server/tls/ca/root", true}
	etcdCert := mount{"etcd-cert", "etcd-client", "/etc/cache-server/etcd", true}
	extra := func(cs *v1alpha1.CacheServer) {
		cs.Spec.ExtraVolumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}}
		cs.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}}
	}

	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   []mount
	}{
		"Embedded": {
			reason: "The emptyDir comes first, then the serving certificate and the client CA.",
			cs:     basic(),
			want:   []mount{scratch, serving, clientCA},
		},
		"EmbeddedOldKcp": {
			reason: "Without --client-ca-file the CA is not mounted.",
			cs:     basic(withTag("v0.30.1")),
			want:   []mount{scratch, serving},
		},
		"EmbeddedExtraVolumes": {
			reason: "kcp-operator places extra volumes between the emptyDir and the Secrets.",
			cs:     basic(extra),
			want:   []mount{scratch, {"extra", "cm", "/extra", false}, serving, clientCA},
		},
		"ExternalPlain": {
			reason: "No emptyDir and no etcd Secret.",
			cs:     basic(withEtcd(plainEtcd)),
			want:   []mount{serving, clientCA},
		},
		"ExternalTLSExtraVolumes": {
			reason: "Extra volumes first, then the Secrets, the etcd client certificate last.",
			cs:     basic(withEtcd(tlsEtcd), extra),
			want:   []mount{{"extra", "cm", "/extra", false}, serving, clientCA, etcdCert},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.cs, func(w *testworld.World) { w.SecretData("etcd-client", map[string]string{"tls.crt": "x"}) })
			ps := get[*appsv1.Deployment](t, r, "deployment-cache-server").Spec.Template.Spec
			if len(ps.Volumes) != len(ps.Containers[0].VolumeMounts) {
				t.Fatalf("%d volumes but %d mounts", len(ps.Volumes), len(ps.Containers[0].VolumeMounts))
			}
			var got []mount
			for i, v := range ps.Volumes {
				m := ps.Containers[0].VolumeMounts[i]
				if m.Name != v.Name {
					t.Errorf("mount %d is of volume %q, not %q", i, m.Name, v.Name)
				}
				src := "?"
				switch {
				case v.EmptyDir != nil:
					src = "emptyDir"
				case v.Secret != nil:
					src = v.Secret.SecretName
				case v.ConfigMap != nil:
					src = v.ConfigMap.Name
				}
				got = append(got, mount{v.Name, src, m.MountPath, m.ReadOnly})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nvolumes and mounts must match kcp-operator's, in order.\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDeploymentAndService(t *testing.T) {
	r, _ := converge(basic(func(cs *v1alpha1.CacheServer) {
		cs.Spec.Image = &v1alpha1.ImageSpec{Repository: "registry.example.com/kcp", ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}}
		cs.Spec.DeploymentTemplate = &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{
			Template: &v1alpha1.PodTemplateSpec{Spec: &v1alpha1.PodSpecTemplate{NodeSelector: map[string]string{"zone": "a"}}},
		}}
		cs.Spec.ServiceTemplate = &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{Type: corev1.ServiceTypeLoadBalancer}}
	}), nil)

	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS}},
			InitialDelaySeconds: 15, PeriodSeconds: 10, TimeoutSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
		}
	}
	want := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "cache-cache-server", Namespace: "kcp", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{names.AnnotationCertificateRevisions: "cache-ca=1,cache-server=1"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:            "cache-server",
						Image:           "registry.example.com/kcp:v0.32.3",
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         []string{"/cache-server"},
						Args: []string{
							"--tls-cert-file=/etc/cache-server/tls/server/tls.crt",
							"--tls-private-key-file=/etc/cache-server/tls/server/tls.key",
							"--root-directory=",
							"--client-ca-file=/etc/cache-server/tls/ca/root/tls.crt",
							"--embedded-etcd-directory=/var/etcd",
						},
						Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "etcd-scratch", MountPath: "/var/etcd"},
							{Name: "serving-cert", MountPath: "/etc/cache-server/tls/server", ReadOnly: true},
							{Name: "client-ca", MountPath: "/etc/cache-server/tls/ca/root", ReadOnly: true},
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("500m"), corev1.ResourceMemory: kresource.MustParse("1Gi")},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("1"), corev1.ResourceMemory: kresource.MustParse("2Gi")},
						},
						SecurityContext: &corev1.SecurityContext{
							SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
							ReadOnlyRootFilesystem:   ptr.To(true),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						ReadinessProbe: probe("/readyz"),
						LivenessProbe:  probe("/livez"),
					}},
					Volumes: []corev1.Volume{
						{Name: "etcd-scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "serving-cert", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "cache-server"}}},
						{Name: "client-ca", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "cache-ca"}}},
					},
					ImagePullSecrets:             []corev1.LocalObjectReference{{Name: "pull"}},
					NodeSelector:                 map[string]string{"zone": "a"},
					SecurityContext:              &corev1.PodSecurityContext{RunAsNonRoot: &restricted, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					AutomountServiceAccountToken: &noToken,
					TopologySpreadConstraints:    workload.DefaultSpread(labels, true), // Unlike kcp-operator: spread where the scheduler can.
				},
			},
		},
	}
	if diff := cmp.Diff(want, get[*appsv1.Deployment](t, r, "deployment-cache-server")); diff != "" {
		t.Errorf("The <cs>-cache-server Deployment: kcp-operator's container (no startup probe, fixed resources), one replica with the embedded etcd; a nodeSelector keeps the pull secrets (quirk 3).\n-want, +got:\n%s", diff)
	}

	wantSvc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "cache-cache-server", Namespace: "kcp", Labels: labels},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443, TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https")}},
		},
	}
	if diff := cmp.Diff(wantSvc, get[*corev1.Service](t, r, "service-cache-server")); diff != "" {
		t.Errorf("The <cs>-cache-server Service: one https port 6443, serviceTemplate type applied.\n-want, +got:\n%s", diff)
	}
}

func TestReplicas(t *testing.T) {
	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   int32
	}{
		"EmbeddedDefault": {
			reason: "The embedded etcd allows exactly one replica.",
			cs:     basic(),
			want:   1,
		},
		"EmbeddedIgnoresZero": {
			reason: "kcp-operator ignores spec.replicas with the embedded etcd (Warnings says so).",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](0) }),
			want:   1,
		},
		"ExternalDefault": {
			reason: "With an external etcd the default is 2.",
			cs:     basic(withEtcd(plainEtcd)),
			want:   2,
		},
		"ExternalSpec": {
			reason: "With an external etcd spec.replicas wins.",
			cs:     basic(withEtcd(plainEtcd), func(cs *v1alpha1.CacheServer) { cs.Spec.Replicas = ptr.To[int32](5) }),
			want:   5,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.cs, nil)
			if got := *get[*appsv1.Deployment](t, r, "deployment-cache-server").Spec.Replicas; got != tc.want {
				t.Errorf("%s\nreplicas = %d, want %d", tc.reason, got, tc.want)
			}
		})
	}

	// An embedded-etcd Deployment scaled up by hand is forced back to one replica.
	first, _ := converge(basic(), nil)
	w := testworld.New().Issued(first.Desired, 1).Exists(first.Desired)
	w.Composed("deployment-cache-server").Object["spec"] = map[string]any{"replicas": int64(3)}
	r := composeOK(basic(), w.State())
	if got := *get[*appsv1.Deployment](t, r, "deployment-cache-server").Spec.Replicas; got != 1 {
		t.Errorf("a live embedded-etcd Deployment with 3 replicas must be set back to 1, got %d", got)
	}
}

func TestGating(t *testing.T) {
	etcdTLS := basic(withEtcd(tlsEtcd))
	wantReq := []result.Requirement{{Kind: "Secret", Name: "etcd-client"}, {Kind: "Secret", Name: "cache-ca"}}

	// Certificates issued, but the user's etcd client Secret does not exist.
	r, _ := converge(etcdTLS, nil)
	if r.Desired.Has("deployment-cache-server") || r.Desired.Has("service-cache-server") {
		t.Errorf("The Deployment must wait for the etcd TLS Secret it mounts; desired: %v", keys(&r.Desired))
	}
	if diff := cmp.Diff(wantReq, r.Requirements); diff != "" {
		t.Errorf("The etcd TLS Secret is read as a required resource.\n-want, +got:\n%s", diff)
	}
	wantInputs := condition.Condition{Type: "InputsReady", Reason: "Missing", Message: "Waiting for Secret etcd-client (spec.etcd.tlsConfig.secretRef.name)."}
	if diff := cmp.Diff(wantInputs, cond(r, condition.TypeInputsReady)); diff != "" {
		t.Errorf("InputsReady names the missing Secret and its field.\n-want, +got:\n%s", diff)
	}
	wantAvail := condition.Condition{Type: "Available", Reason: "WaitingForInputs", Message: "Deployment kcp/cache-cache-server is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady)."}
	if diff := cmp.Diff(wantAvail, cond(r, condition.TypeAvailable)); diff != "" {
		t.Errorf("Available says why the Deployment is not created.\n-want, +got:\n%s", diff)
	}
	if !r.NotReady {
		t.Errorf("The XR is not ready while its Deployment waits")
	}

	// Once the Secret exists the Deployment is composed, rolled by the Secret's resourceVersion.
	withSecret := func(w *testworld.World) { w.SecretData("etcd-client", map[string]string{"tls.crt": "x"}) }
	converged, w := converge(etcdTLS, withSecret)
	ann := get[*appsv1.Deployment](t, converged, "deployment-cache-server").Spec.Template.Annotations
	if ann[names.AnnotationCertificateRevisions] != "cache-ca=1,cache-server=1" || ann[names.AnnotationConfigHash] == "" {
		t.Errorf("pod annotations = %v; want certificate revisions and a config hash of the etcd Secret", ann)
	}
	changed := composeOK(etcdTLS, testworld.New().Issued(converged.Desired, 1).Exists(converged.Desired).
		SecretData("etcd-client", nil).ResourceVersion("Secret", "etcd-client", "2").State())
	if got := get[*appsv1.Deployment](t, changed, "deployment-cache-server").Spec.Template.Annotations[names.AnnotationConfigHash]; got == ann[names.AnnotationConfigHash] {
		t.Errorf("A changed etcd TLS Secret must roll the pods; config hash stayed %q", got)
	}

	cases := map[string]struct {
		reason string
		world  func() *testworld.World
		want   condition.Condition
	}{
		"EtcdSecretDeleted": {
			reason: "The etcd TLS Secret vanishes: InputsReady names it and says the running Deployment is kept.",
			world: func() *testworld.World {
				w2 := testworld.New().ComposedFrom(w)
				for _, s := range []string{"cache-ca", "cache-server", "cache-client-certificate"} {
					w2.SecretData(s, map[string]string{"tls.crt": "x"})
				}
				return w2
			},
			want: condition.Condition{Type: "InputsReady", Reason: "Missing", Message: "Waiting for Secret etcd-client (spec.etcd.tlsConfig.secretRef.name). Deployment kcp/cache-cache-server is kept unchanged meanwhile."},
		},
		"ServerCertificateReissuing": {
			reason: "cert-manager is re-issuing the serving certificate: CertificatesReady is False, with the message it has while certificates are issued.",
			world: func() *testworld.World {
				return w.Clone().Certificate("certificate-server", "cache-server", testworld.Cert{Revision: 1})
			},
			want: condition.Condition{Type: "CertificatesReady", Reason: "Issuing", Message: "Waiting for cert-manager to issue the 3 certificates (kubectl get certificates -n kcp shows each one's state)."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(etcdTLS, tc.world().State())
			if diff := cmp.Diff(keys(&converged.Desired), keys(&r.Desired)); diff != "" {
				t.Errorf("%s\nNothing that exists may disappear when inputs go missing.\n-want, +got:\n%s", tc.reason, diff)
			}
			for _, k := range []resource.Name{"deployment-cache-server", "service-cache-server"} {
				if o, _ := r.Desired.Get(k); o.Kept == nil {
					t.Errorf("%s\n%s must be kept exactly as observed while its inputs are missing", tc.reason, k)
				}
			}
			if r.NotReady {
				t.Errorf("%s\nA kept Deployment still counts as composed", tc.reason)
			}
			if diff := cmp.Diff(tc.want, cond(r, tc.want.Type)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			// The kept Deployment still runs the old pods: Available stays True.
			if c := cond(r, condition.TypeAvailable); !c.Status || c.Reason != condition.ReasonReplicasUp {
				t.Errorf("%s\nAvailable: %+v", tc.reason, c)
			}
		})
	}
}

func TestCertificateRenewalRollsPods(t *testing.T) {
	first, _ := converge(basic(), nil)
	r := composeOK(basic(), testworld.New().Issued(first.Desired, 2).Exists(first.Desired).State())
	got := get[*appsv1.Deployment](t, r, "deployment-cache-server").Spec.Template.Annotations[names.AnnotationCertificateRevisions]
	if got != "cache-ca=2,cache-server=2" {
		t.Errorf("A renewal of a mounted certificate must change the pod template; annotation = %q", got)
	}
}

func TestOldKcpDoesNotWaitForCA(t *testing.T) {
	// kcp v0.30.1 does not mount <cs>-ca, so the Deployment waits only for its serving
	// certificate (which cert-manager cannot issue before the CA anyway).
	cs := basic(withTag("v0.30.1"))
	w := testworld.New().Certificate("certificate-server", "cache-server", testworld.Cert{Ready: true, Revision: 1})
	r := composeOK(cs, w.State())
	if !r.Desired.Has("deployment-cache-server") {
		t.Errorf("the Deployment mounts only cache-server, which is issued; desired: %v", keys(&r.Desired))
	}
}

func TestDeterministic(t *testing.T) {
	cs := basic(withEtcd(tlsEtcd), func(cs *v1alpha1.CacheServer) {
		cs.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{
			"server": {Metadata: &v1alpha1.CertificateMetadataTemplate{Labels: map[string]string{"a": "1", "b": "2", "c": "3"}}},
		}
	})
	extra := func(w *testworld.World) { w.SecretData("etcd-client", map[string]string{"tls.crt": "x"}) }
	render := func() map[resource.Name]*resource.DesiredComposed {
		r, _ := converge(cs, extra)
		out, err := r.Desired.Composed()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := render()
	for range 10 {
		if diff := cmp.Diff(first, render()); diff != "" {
			t.Fatalf("The same inputs must compose the same objects.\n-first, +again:\n%s", diff)
		}
	}
}

// Pod Security "restricted": pods run as non-root and carry no service account token.
var restricted, noToken = true, false
