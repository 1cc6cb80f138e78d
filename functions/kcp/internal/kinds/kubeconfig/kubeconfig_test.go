package kubeconfig

import (
	"strings"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

const notAfter = "2026-01-01T00:00:00Z"

// converged is the world of kc once its certificate is issued and its Secret exists.
func converged(t *testing.T, kc *v1alpha1.Kubeconfig, w *testworld.World) (Result, *testworld.World) {
	t.Helper()
	issued(w, kc, 1, notAfter, clientCrt, clientKey)
	r := run(t, kc, w)
	w.Exists(r.Desired)
	return run(t, kc, w), w
}

// fill replaces {CA}, {CRT} and {KEY} in a wanted kubeconfig with base64 data.
func fill(s string, ca []byte) string {
	return strings.NewReplacer("{CA}", b64(ca), "{CRT}", b64(clientCrt), "{KEY}", b64(clientKey)).Replace(s)
}

func TestKubeconfigContent(t *testing.T) {
	fixtures(t)
	bundle := append(append([]byte{}, fixtureBundleCA.chain...), fixtureOther.chain...)
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig
		world  func(*testworld.World)
		ca     []byte
		want   string
	}{
		"RootShard": {
			reason: "A RootShard target: clusters base (the root shard's base URL) and default (its /clusters/root), contexts base, default and shard-base, all as clientcmd.Write sorts them.",
			kc:     kubeconfigXR(),
			ca:     fixtureServerCA.chain,
			want: `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {CA}
    server: https://root-kcp.kcp.svc.cluster.local:6443
  name: base
- cluster:
    certificate-authority-data: {CA}
    server: https://root-kcp.kcp.svc.cluster.local:6443/clusters/root
  name: default
contexts:
- context:
    cluster: base
    user: alice
  name: base
- context:
    cluster: default
    user: alice
  name: default
- context:
    cluster: base
    user: alice
  name: shard-base
current-context: default
kind: Config
users:
- name: alice
  user:
    client-certificate-data: {CRT}
    client-key-data: {KEY}
`,
		},
		"Shard": {
			reason: "A Shard target: the shard's base URL, its RootShard's server CA, the same clusters and contexts as a RootShard.",
			kc:     kubeconfigXR(toShard("alpha"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.TargetWorkspace = "root:team-a" }),
			world:  func(w *testworld.World) { w.Object(shardXR()) },
			ca:     fixtureServerCA.chain,
			want: `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {CA}
    server: https://alpha-shard-kcp.kcp.svc.cluster.local:6443
  name: base
- cluster:
    certificate-authority-data: {CA}
    server: https://alpha-shard-kcp.kcp.svc.cluster.local:6443/clusters/root:team-a
  name: default
contexts:
- context:
    cluster: base
    user: alice
  name: base
- context:
    cluster: default
    user: alice
  name: default
- context:
    cluster: base
    user: alice
  name: shard-base
current-context: default
kind: Config
users:
- name: alice
  user:
    client-certificate-data: {CRT}
    client-key-data: {KEY}
`,
		},
		"FrontProxy": {
			reason: "A FrontProxy target: its external address, no shard-base context; its caBundleSecretRef is appended to the server CA with a newline.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				w.Object(frontProxy(func(fp *v1alpha1.FrontProxy) {
					fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "corporate-ca"}
				})).SecretData("corporate-ca", map[string]string{"tls.crt": string(bundle)})
			},
			ca: append(append(append([]byte{}, fixtureServerCA.chain...), '\n'), bundle...),
			want: `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {CA}
    server: https://kcp.example.com:443
  name: base
- cluster:
    certificate-authority-data: {CA}
    server: https://kcp.example.com:443/clusters/root
  name: default
contexts:
- context:
    cluster: base
    user: alice
  name: base
- context:
    cluster: default
    user: alice
  name: default
current-context: default
kind: Config
users:
- name: alice
  user:
    client-certificate-data: {CRT}
    client-key-data: {KEY}
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := installation(t, testworld.New(), rootShard())
			if tc.world != nil {
				tc.world(w)
			}
			r, _ := converged(t, tc.kc, w)
			if diff := cmp.Diff(fill(tc.want, tc.ca), kubeconfigData(t, r)); diff != "" {
				t.Errorf("%s\nkubeconfig: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// servers parses a kubeconfig into cluster name → server and context name → cluster.
func servers(t *testing.T, data string) (map[string]string, map[string]string, string) {
	t.Helper()
	var c kubeconfigfile.Config
	if err := yaml.Unmarshal([]byte(data), &c); err != nil {
		t.Fatal(err)
	}
	clusters, contexts := map[string]string{}, map[string]string{}
	for _, cl := range c.Clusters {
		clusters[cl.Name] = cl.Cluster.Server
	}
	for _, cx := range c.Contexts {
		contexts[cx.Name] = cx.Context.Cluster
	}
	return clusters, contexts, c.CurrentContext
}

func TestServerURLs(t *testing.T) {
	shardContexts := map[string]string{"base": "base", "default": "default", "shard-base": "base"}
	fpContexts := map[string]string{"base": "base", "default": "default"}
	cases := map[string]struct {
		reason   string
		kc       *v1alpha1.Kubeconfig
		rs       func(*v1alpha1.RootShard)
		world    func(*testworld.World)
		base     string
		def      string
		contexts map[string]string
	}{
		"RootShardShardBaseURL": {
			reason:   "A RootShard's shardBaseURL is its base URL.",
			kc:       kubeconfigXR(),
			rs:       func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.kcp.example.com:6443" },
			base:     "https://root.kcp.example.com:6443",
			def:      "https://root.kcp.example.com:6443/clusters/root",
			contexts: shardContexts,
		},
		"RootShardClusterDomain": {
			reason:   "Without shardBaseURL the Service FQDN uses the RootShard's clusterDomain.",
			kc:       kubeconfigXR(),
			rs:       func(rs *v1alpha1.RootShard) { rs.Spec.ClusterDomain = "example.internal" },
			base:     "https://root-kcp.kcp.svc.example.internal:6443",
			def:      "https://root-kcp.kcp.svc.example.internal:6443/clusters/root",
			contexts: shardContexts,
		},
		"WorkspacePath": {
			reason:   "spec.targetWorkspace is joined as /clusters/<path>; colons are not escaped.",
			kc:       kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.TargetWorkspace = "root:org:team-1" }),
			base:     "https://root-kcp.kcp.svc.cluster.local:6443",
			def:      "https://root-kcp.kcp.svc.cluster.local:6443/clusters/root:org:team-1",
			contexts: shardContexts,
		},
		"DeprecatedClusterDoesNotMoveURL": {
			reason: "authorization.clusterRoleBindings.cluster does not change the URL, as in kcp-operator.",
			kc: kubeconfigXR(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.Authorization = &v1alpha1.KubeconfigAuthorization{ClusterRoleBindings: v1alpha1.KubeconfigClusterRoleBindings{Cluster: "root:other", ClusterRoles: []string{"admin"}}}
			}),
			base:     "https://root-kcp.kcp.svc.cluster.local:6443",
			def:      "https://root-kcp.kcp.svc.cluster.local:6443/clusters/root",
			contexts: shardContexts,
		},
		"ShardBaseURLTrailingSlash": {
			reason: "url.JoinPath does not double a trailing slash.",
			kc:     kubeconfigXR(toShard("alpha")),
			world: func(w *testworld.World) {
				w.Object(shardXR(func(sh *v1alpha1.Shard) { sh.Spec.ShardBaseURL = "https://alpha.example.com/" }))
			},
			base:     "https://alpha.example.com/",
			def:      "https://alpha.example.com/clusters/root",
			contexts: shardContexts,
		},
		"FrontProxyExternal": {
			reason:   "A FrontProxy's external hostname and port.",
			kc:       kubeconfigXR(toFrontProxy("edge")),
			world:    func(w *testworld.World) { w.Object(frontProxy()) },
			base:     "https://kcp.example.com:443",
			def:      "https://kcp.example.com:443/clusters/root",
			contexts: fpContexts,
		},
		"FrontProxyDeprecatedHostnameWithPort": {
			reason: "The deprecated externalHostname keeps its own port.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				w.Object(frontProxy(func(fp *v1alpha1.FrontProxy) {
					fp.Spec.External = v1alpha1.ExternalConfig{}
					fp.Spec.ExternalHostname = "old.example.com:7443"
				}))
			},
			base:     "https://old.example.com:7443",
			def:      "https://old.example.com:7443/clusters/root",
			contexts: fpContexts,
		},
		"FrontProxyDeprecatedHostnameWithoutPort": {
			reason: "The deprecated externalHostname without a port gets :6443.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				w.Object(frontProxy(func(fp *v1alpha1.FrontProxy) {
					fp.Spec.External = v1alpha1.ExternalConfig{}
					fp.Spec.ExternalHostname = "old.example.com"
				}))
			},
			base:     "https://old.example.com:6443",
			def:      "https://old.example.com:6443/clusters/root",
			contexts: fpContexts,
		},
		"ServerOverride": {
			reason: "spec.server replaces the target's address, a trailing slash dropped; the front-proxy's contexts stay.",
			kc: kubeconfigXR(toFrontProxy("edge"), func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.Server = "https://lb.example.com:8443/"
				kc.Spec.TargetWorkspace = "root:team"
			}),
			world:    func(w *testworld.World) { w.Object(frontProxy()) },
			base:     "https://lb.example.com:8443",
			def:      "https://lb.example.com:8443/clusters/root:team",
			contexts: fpContexts,
		},
		"ServerOverrideOfRootShard": {
			reason:   "spec.server applies to a shard target as well.",
			kc:       kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Server = "https://root.example.com" }),
			base:     "https://root.example.com",
			def:      "https://root.example.com/clusters/root",
			contexts: shardContexts,
		},
		"FrontProxyFallsBackToRootShard": {
			reason: "Without either, the RootShard's external hostname and port, never its private hostname.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				w.Object(frontProxy(func(fp *v1alpha1.FrontProxy) { fp.Spec.External = v1alpha1.ExternalConfig{} }))
			},
			base:     "https://api.example.com:6443",
			def:      "https://api.example.com:6443/clusters/root",
			contexts: fpContexts,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rs := rootShard()
			if tc.rs != nil {
				tc.rs(rs)
			}
			w := installation(t, testworld.New(), rs)
			if tc.world != nil {
				tc.world(w)
			}
			r, _ := converged(t, tc.kc, w)
			clusters, contexts, current := servers(t, kubeconfigData(t, r))
			if diff := cmp.Diff(map[string]string{"base": tc.base, "default": tc.def}, clusters); diff != "" {
				t.Errorf("%s\nclusters: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.contexts, contexts); diff != "" {
				t.Errorf("%s\ncontexts: -want, +got:\n%s", tc.reason, diff)
			}
			if current != "default" {
				t.Errorf("current-context = %q, want default", current)
			}
		})
	}
}

func TestCertificate(t *testing.T) {
	validity := metav1.Duration{Duration: 8760 * time.Hour}
	base := func() *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
			ObjectMeta: metav1.ObjectMeta{Name: "kubeconfig-cert-admin", Namespace: ns, Labels: map[string]string{"team": "platform"}},
			Spec: cmv1.CertificateSpec{
				SecretName: "kubeconfig-cert-admin",
				SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/kubeconfig": "admin"},
					// cert-manager writes the Secret under the name the XR adopts it by.
					Annotations: map[string]string{"crossplane.io/composition-resource-name": "secret-kubeconfig-cert-admin"}},
				CommonName: "alice",
				Subject:    &cmv1.X509Subject{Organizations: []string{"kubeconfig:admin", "ops", "system:kcp:admin"}},
				Usages:     []cmv1.KeyUsage{cmv1.UsageClientAuth},
				IssuerRef:  cmmeta.IssuerReference{Name: "root-client-ca", Kind: "Issuer", Group: "cert-manager.io"},
				Duration:   &validity,
				PrivateKey: &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096},
			},
		}
	}
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig
		world  func(*testworld.World)
		want   func() *cmv1.Certificate
	}{
		"RootShard": {
			reason: "CN is the username, O the sorted unique groups plus kubeconfig:<kc>, client auth, the Kubeconfig's labels, duration = validity and no renewBefore, issued by <rs>-client-ca.",
			kc:     kubeconfigXR(),
			want:   base,
		},
		"FrontProxyUsesRootShardClientCA": {
			reason: "Whatever the target, the issuer is the RootShard's client CA.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world:  func(w *testworld.World) { w.Object(frontProxy()) },
			want:   base,
		},
		"Template": {
			reason: "spec.certificateTemplate is applied with kcp-operator's merge rules, in a namespace the platform's policy lists as its own (TestTenantCertificateTemplate holds the others).",
			world:  platformNamespace,
			kc: kubeconfigXR(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.CertificateTemplate = &v1alpha1.CertificateTemplate{
					Metadata: &v1alpha1.CertificateMetadataTemplate{Labels: map[string]string{"team": "ignored", "cost": "1"}},
					Spec: &v1alpha1.CertificateSpecTemplate{
						Subject:    &v1alpha1.X509Subject{Organizations: []string{"extra"}},
						PrivateKey: &v1alpha1.CertificatePrivateKeyTemplate{Algorithm: "ECDSA", Size: 256},
					},
				}
			}),
			want: func() *cmv1.Certificate {
				c := base()
				c.Labels["cost"] = "1"
				c.Spec.Subject.Organizations = []string{"extra", "kubeconfig:admin", "ops", "system:kcp:admin"}
				c.Spec.PrivateKey = &cmv1.CertificatePrivateKey{Algorithm: cmv1.ECDSAKeyAlgorithm, Size: 256}
				return c
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := installation(t, testworld.New(), rootShard())
			if tc.world != nil {
				tc.world(w)
			}
			r := run(t, tc.kc, w)
			o, ok := r.Desired.Get("certificate-kubeconfig-cert-admin")
			if !ok {
				t.Fatalf("the Certificate is not desired: %v", r.Desired.Names())
			}
			if diff := cmp.Diff(tc.want(), o.Resource); diff != "" {
				t.Errorf("%s\nCertificate: -want, +got:\n%s", tc.reason, diff)
			}
			if o.Ready != resource.ReadyFalse {
				t.Errorf("an unissued Certificate is not ready")
			}
		})
	}
}

func TestSecret(t *testing.T) {
	r, _ := converged(t, kubeconfigXR(), installation(t, testworld.New(), rootShard()))
	o, _ := r.Desired.Get("secret-admin-kubeconfig")
	s := o.Resource.(*corev1.Secret)
	want := metav1.ObjectMeta{Name: "admin-kubeconfig", Namespace: ns, Labels: map[string]string{"operator.kcp.io/kubeconfig": "admin"}}
	if diff := cmp.Diff(want, s.ObjectMeta); diff != "" {
		t.Errorf("The kubeconfig Secret carries only the ownership label, nothing secret.\n-want, +got:\n%s", diff)
	}
	if len(s.Data) != 1 || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("one key, kubeconfig, in an Opaque Secret; got type %q and keys %d", s.Type, len(s.Data))
	}
	if o.Ready != resource.ReadyTrue {
		t.Errorf("an existing kubeconfig Secret is ready")
	}
	// Its own Secrets first: they are asked for before the target is read.
	wantReqs := []result.Requirement{
		{Kind: "Secret", Name: "kubeconfig-cert-admin"},
		{Kind: "Secret", Name: "admin-kubeconfig"},
		{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard", Name: "root"},
		{Kind: "Secret", Name: "root-server-ca"},
	}
	if diff := cmp.Diff(wantReqs, r.Requirements); diff != "" {
		t.Errorf("requirements: -want, +got:\n%s", diff)
	}
	for _, c := range r.Conditions {
		for _, secret := range [][]byte{clientCrt, clientKey, []byte(b64(clientKey))} {
			if strings.Contains(c.Message, string(secret)) {
				t.Errorf("condition %s leaks key material", c.Type)
			}
		}
	}
}

func TestConvergedStatus(t *testing.T) {
	cases := map[string]struct {
		kc    *v1alpha1.Kubeconfig
		world func(*testworld.World)
		want  v1alpha1.KubeconfigStatus
		url   string
	}{
		"RootShard": {
			kc:   kubeconfigXR(),
			want: v1alpha1.KubeconfigStatus{Phase: v1alpha1.KubeconfigPhaseReady, TargetName: "RootShard/root", SecretName: "admin-kubeconfig", Expiry: notAfter},
			url:  "https://root-kcp.kcp.svc.cluster.local:6443/clusters/root",
		},
		"Shard": {
			kc:    kubeconfigXR(toShard("alpha")),
			world: func(w *testworld.World) { w.Object(shardXR()) },
			want:  v1alpha1.KubeconfigStatus{Phase: v1alpha1.KubeconfigPhaseReady, TargetName: "Shard/alpha", SecretName: "admin-kubeconfig", Expiry: notAfter},
			url:   "https://alpha-shard-kcp.kcp.svc.cluster.local:6443/clusters/root",
		},
		"FrontProxy": {
			kc:    kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) { w.Object(frontProxy()) },
			want:  v1alpha1.KubeconfigStatus{Phase: v1alpha1.KubeconfigPhaseReady, TargetName: "FrontProxy/edge", SecretName: "admin-kubeconfig", Expiry: notAfter},
			url:   "https://kcp.example.com:443/clusters/root",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := installation(t, testworld.New(), rootShard())
			if tc.world != nil {
				tc.world(w)
			}
			r, _ := converged(t, tc.kc, w)
			if diff := cmp.Diff(tc.want, r.Status); diff != "" {
				t.Errorf("status: -want, +got:\n%s", diff)
			}
			want := []condition.Condition{
				{Type: "CertificatesReady", Status: true, Reason: "Issued", Message: "Certificate kubeconfig-cert-admin is issued."},
				{Type: "InputsReady", Status: true, Reason: "AllPresent", Message: "The target, its server CA and every Secret the spec references exist."},
				{Type: "KubeconfigReady", Status: true, Reason: "SecretWritten", Message: "Secret kcp/admin-kubeconfig holds the kubeconfig of user alice for " + tc.want.TargetName + "; its current context reaches " + tc.url + "."},
			}
			if diff := cmp.Diff(want, r.Conditions); diff != "" {
				t.Errorf("conditions: -want, +got:\n%s", diff)
			}
			if r.NotReady {
				t.Errorf("a written kubeconfig makes the XR ready")
			}
		})
	}
}

func TestWaiting(t *testing.T) {
	fixtures(t)
	certPending := condition.Condition{Type: "CertificatesReady", Reason: "Issuing", Message: "Waiting for cert-manager to issue Certificate kubeconfig-cert-admin."}
	certIssued := condition.Condition{Type: "CertificatesReady", Status: true, Reason: "Issued", Message: "Certificate kubeconfig-cert-admin is issued."}
	inputsOK := condition.Condition{Type: "InputsReady", Status: true, Reason: "AllPresent", Message: "The target, its server CA and every Secret the spec references exist."}
	missing := func(msg string) condition.Condition {
		return condition.Condition{Type: "InputsReady", Reason: "Missing", Message: "Waiting for " + msg + "."}
	}
	invalid := func(msg string) condition.Condition {
		return condition.Condition{Type: "InputsReady", Reason: "Invalid", Message: "Cannot use " + msg + "."}
	}
	noSecret := condition.Condition{Type: "KubeconfigReady", Reason: "WaitingForInputs", Message: "Secret kcp/admin-kubeconfig is not written yet: its inputs are not available (see InputsReady)."}
	issue := func(kc *v1alpha1.Kubeconfig) func(*testworld.World) {
		return func(w *testworld.World) { issued(w, kc, 1, notAfter, clientCrt, clientKey) }
	}
	fpWithBundle := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "corporate-ca"}
	})
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig
		world  func(*testworld.World)
		keys   []resource.Name
		conds  []condition.Condition
		status v1alpha1.KubeconfigStatus
	}{
		"Fresh": {
			reason: "Before cert-manager issues the certificate only the Certificate is composed.",
			kc:     kubeconfigXR(),
			world:  func(w *testworld.World) { installation(t, w, rootShard()) },
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin"},
			conds: []condition.Condition{certPending, inputsOK,
				{Type: "KubeconfigReady", Reason: "WaitingForCertificate", Message: "Secret kcp/admin-kubeconfig is written once cert-manager issues Certificate kubeconfig-cert-admin."}},
		},
		"Composed": {
			reason: "Once issued the kubeconfig Secret is composed and cert-manager's Secret adopted; the phase waits until the kubeconfig exists (quirk 15 fixed).",
			kc:     kubeconfigXR(),
			world: func(w *testworld.World) {
				issued(installation(t, w, rootShard()), kubeconfigXR(), 1, notAfter, clientCrt, clientKey)
			},
			keys: []resource.Name{"certificate-kubeconfig-cert-admin", "secret-admin-kubeconfig", "secret-kubeconfig-cert-admin"},
			conds: []condition.Condition{certIssued, inputsOK,
				{Type: "KubeconfigReady", Reason: "SecretPending", Message: "Secret kcp/admin-kubeconfig is composed; waiting for Crossplane to create it."}},
			status: v1alpha1.KubeconfigStatus{Expiry: notAfter},
		},
		"MissingRootShard": {
			reason: "Without the target nothing can be composed; the field is named.",
			kc:     kubeconfigXR(),
			conds: []condition.Condition{certPending,
				missing("RootShard root (spec.target.rootShardRef.name) does not exist in namespace kcp; create it or fix the reference"), noSecret},
		},
		"MissingShard": {
			reason: "A missing target Shard is named with its field.",
			kc:     kubeconfigXR(toShard("alpha")),
			world:  func(w *testworld.World) { installation(t, w, rootShard()) },
			conds: []condition.Condition{certPending,
				missing("Shard alpha (spec.target.shardRef.name) does not exist in namespace kcp; create it or fix the reference"), noSecret},
			status: v1alpha1.KubeconfigStatus{TargetName: "Shard/alpha"},
		},
		"MissingRootShardOfShard": {
			reason: "A missing RootShard of the target Shard names the path to it.",
			kc:     kubeconfigXR(toShard("alpha")),
			world:  func(w *testworld.World) { w.Object(shardXR()) },
			conds: []condition.Condition{certPending,
				missing("the RootShard of Shard alpha, named by spec.target.shardRef.name: RootShard root (spec.rootShard.ref.name) does not exist in namespace kcp; create it or fix the reference"), noSecret},
			status: v1alpha1.KubeconfigStatus{TargetName: "Shard/alpha"},
		},
		"MissingFrontProxy": {
			reason: "A missing target FrontProxy is named with its field.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world:  func(w *testworld.World) { installation(t, w, rootShard()) },
			conds: []condition.Condition{certPending,
				missing("FrontProxy edge (spec.target.frontProxyRef.name) does not exist in namespace kcp; create it or fix the reference"), noSecret},
			status: v1alpha1.KubeconfigStatus{TargetName: "FrontProxy/edge"},
		},
		"MissingServerCA": {
			reason: "An issued certificate without the server CA Secret waits, naming the Secret.",
			kc:     kubeconfigXR(),
			world:  func(w *testworld.World) { w.Object(rootShard()); issue(kubeconfigXR())(w) },
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig-cert-admin"},
			conds:  []condition.Condition{certIssued, missing("Secret root-server-ca (the server CA of RootShard root)"), noSecret},
			status: v1alpha1.KubeconfigStatus{Expiry: notAfter},
		},
		"MissingCertificateSecret": {
			reason: "A Ready Certificate whose Secret cannot be read waits for it.",
			kc:     kubeconfigXR(),
			world: func(w *testworld.World) {
				installation(t, w, rootShard())
				issue(kubeconfigXR())(w)
				w.Drop("Secret", "kubeconfig-cert-admin")
			},
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin"},
			conds:  []condition.Condition{certIssued, missing("tls.crt and tls.key of Secret kubeconfig-cert-admin (issued for Certificate kubeconfig-cert-admin)"), noSecret},
			status: v1alpha1.KubeconfigStatus{Expiry: notAfter},
		},
		"MissingBundle": {
			reason: "A FrontProxy's caBundleSecretRef Secret must exist.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				installation(t, w, rootShard()).Object(fpWithBundle)
				issue(kubeconfigXR())(w)
			},
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig-cert-admin"},
			conds:  []condition.Condition{certIssued, missing("Secret corporate-ca (spec.caBundleSecretRef.name of FrontProxy edge)"), noSecret},
			status: v1alpha1.KubeconfigStatus{TargetName: "FrontProxy/edge", Expiry: notAfter},
		},
		"BundleWithoutTLSCrt": {
			reason: "A CA bundle Secret without tls.crt is an error naming the Secret, as in kcp-operator.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				installation(t, w, rootShard()).Object(fpWithBundle).SecretData("corporate-ca", map[string]string{"ca.crt": string(fixtureBundleCA.chain)})
				issue(kubeconfigXR())(w)
			},
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig-cert-admin"},
			conds:  []condition.Condition{certIssued, invalid("Secret corporate-ca (spec.caBundleSecretRef.name of FrontProxy edge) has no tls.crt key"), noSecret},
			status: v1alpha1.KubeconfigStatus{TargetName: "FrontProxy/edge", Expiry: notAfter},
		},
		"BundleWithPrivateKey": {
			reason: "Only CERTIFICATE blocks may be trusted; the block type is named, never its content.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			world: func(w *testworld.World) {
				installation(t, w, rootShard()).Object(fpWithBundle).SecretData("corporate-ca", map[string]string{"tls.crt": string(fixtureBundleCA.chain) + string(fixtureBundleCA.keyPEM(t))})
				issue(kubeconfigXR())(w)
			},
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig-cert-admin"},
			conds:  []condition.Condition{certIssued, invalid(`tls.crt of Secret corporate-ca (spec.caBundleSecretRef.name of FrontProxy edge): it holds a PEM block of type "PRIVATE KEY" (block 2); only CERTIFICATE blocks are allowed`), noSecret},
			status: v1alpha1.KubeconfigStatus{TargetName: "FrontProxy/edge", Expiry: notAfter},
		},
		"ServerCANotPEM": {
			reason: "The server CA is validated too.",
			kc:     kubeconfigXR(),
			world: func(w *testworld.World) {
				w.Object(rootShard()).SecretData("root-server-ca", map[string]string{"tls.crt": "not a certificate"})
				issue(kubeconfigXR())(w)
			},
			keys:   []resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig-cert-admin"},
			conds:  []condition.Condition{certIssued, invalid("tls.crt of Secret root-server-ca (the server CA of RootShard root): it holds no PEM certificate"), noSecret},
			status: v1alpha1.KubeconfigStatus{Expiry: notAfter},
		},
		"ForeignSecret": {
			reason: "An existing Secret with the output name that this XR did not create is never taken over.",
			kc:     kubeconfigXR(),
			world: func(w *testworld.World) {
				installation(t, w, rootShard()).SecretData("admin-kubeconfig", map[string]string{"kubeconfig": "old"})
				issue(kubeconfigXR())(w)
			},
			keys: []resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig-cert-admin"},
			conds: []condition.Condition{certIssued, inputsOK,
				{Type: "KubeconfigReady", Reason: "SecretConflict", Message: "Secret kcp/admin-kubeconfig (spec.secretRef.name) exists and was not created by this Kubeconfig; it is left untouched. Delete it or choose another spec.secretRef.name."}},
			status: v1alpha1.KubeconfigStatus{Expiry: notAfter},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := testworld.New()
			if tc.world != nil {
				tc.world(w)
			}
			r := run(t, tc.kc, w)
			if diff := cmp.Diff(tc.keys, r.Desired.Names(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\ndesired: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.conds, r.Conditions); diff != "" {
				t.Errorf("%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			want := tc.status
			want.Phase = v1alpha1.KubeconfigPhaseProvisioning
			if want.TargetName == "" {
				want.TargetName = "RootShard/root"
			}
			want.SecretName = "admin-kubeconfig"
			if diff := cmp.Diff(want, r.Status); diff != "" {
				t.Errorf("%s\nstatus: -want, +got:\n%s", tc.reason, diff)
			}
			if !r.NotReady {
				t.Errorf("the XR is not ready before its kubeconfig Secret exists")
			}
		})
	}
}

func TestOwnSecretIsNotAConflict(t *testing.T) {
	kc := kubeconfigXR()
	r, w := converged(t, kc, installation(t, testworld.New(), rootShard()))
	// Crossplane created it: it is read back as a required resource too, controlled by kc.
	w.Object(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "admin-kubeconfig", "namespace": ns,
		"ownerReferences": []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig", "name": "admin", "uid": "kc-uid", "controller": true}}}})
	if got := run(t, kc, w); got.Status.Phase != v1alpha1.KubeconfigPhaseReady || !cmp.Equal(r.Desired.Names(), got.Desired.Names()) {
		t.Errorf("the XR's own Secret is its own: phase %s, desired %v", got.Status.Phase, got.Desired.Names())
	}
	// Composed by this XR but no longer in its resource references: the controller says it is ours.
	w.DropComposed("secret-admin-kubeconfig")
	if got := run(t, kc, w); !got.Desired.Has("secret-admin-kubeconfig") {
		t.Errorf("a Secret this XR controls is composed again: %+v", got.Conditions)
	}
	// Controlled by another object.
	w.Object(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "admin-kubeconfig", "namespace": ns,
		"ownerReferences": []any{map[string]any{"uid": "other", "controller": true}}}})
	if got := run(t, kc, w); got.Desired.Has("secret-admin-kubeconfig") {
		t.Errorf("a Secret another object controls is never composed")
	}
}

// TestKeepOnDoubt: once the kubeconfig exists, nothing that goes missing deletes or changes it.
func TestKeepOnDoubt(t *testing.T) {
	kept := condition.Condition{Type: "KubeconfigReady", Status: true, Reason: "SecretKept", Message: "Secret kcp/admin-kubeconfig is kept unchanged until its inputs are available (see InputsReady)."}
	cases := map[string]struct {
		reason string
		change func(*testworld.World)
		// allKept is set when the target is gone and everything is kept.
		allKept bool
		inputs  string
		ready   condition.Condition
	}{
		"TargetGone": {
			reason:  "The RootShard cannot be read: everything is kept exactly as observed.",
			change:  func(w *testworld.World) { w.Drop("RootShard", "root") },
			allKept: true,
			inputs:  "Waiting for RootShard root (spec.target.rootShardRef.name) does not exist in namespace kcp; create it or fix the reference. Everything composed so far is kept unchanged meanwhile.",
			ready:   kept,
		},
		"ServerCAGone": {
			reason: "The server CA Secret cannot be read.",
			change: func(w *testworld.World) { w.Drop("Secret", "root-server-ca") },
			inputs: "Waiting for Secret root-server-ca (the server CA of RootShard root).",
			ready:  kept,
		},
		"CertificateSecretGone": {
			reason: "The client certificate Secret cannot be read.",
			change: func(w *testworld.World) { w.Drop("Secret", "kubeconfig-cert-admin") },
			inputs: "Waiting for tls.crt and tls.key of Secret kubeconfig-cert-admin (issued for Certificate kubeconfig-cert-admin).",
			ready:  kept,
		},
		"CertificateNotReady": {
			reason: "The certificate is being re-issued (say after a spec change): the old kubeconfig stays until it is Ready.",
			change: func(w *testworld.World) {
				w.Certificate("certificate-kubeconfig-cert-admin", "kubeconfig-cert-admin", testworld.Cert{})
			},
			inputs: "The target, its server CA and every Secret the spec references exist.",
			ready:  condition.Condition{Type: "KubeconfigReady", Status: true, Reason: "SecretKept", Message: "Secret kcp/admin-kubeconfig is kept unchanged until cert-manager issues Certificate kubeconfig-cert-admin."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := kubeconfigXR()
			before, w := converged(t, kc, installation(t, testworld.New(), rootShard()))
			observedSecret := w.Composed("secret-admin-kubeconfig")
			tc.change(w)
			r := run(t, kc, w)
			if diff := cmp.Diff(before.Desired.Names(), r.Desired.Names()); diff != "" {
				t.Errorf("%s\nthe desired set must not shrink: -want, +got:\n%s", tc.reason, diff)
			}
			o, _ := r.Desired.Get("secret-admin-kubeconfig")
			if o.Kept == nil || !cmp.Equal(observedSecret.Object, o.Kept.Object) {
				t.Errorf("%s\nthe kubeconfig Secret must be kept exactly as observed", tc.reason)
			}
			if c, _ := r.Desired.Get("certificate-kubeconfig-cert-admin"); tc.allKept != (c.Kept != nil) {
				t.Errorf("%s\nthe Certificate is kept only while the target cannot be read (kept: %v)", tc.reason, c.Kept != nil)
			}
			if got := r.Conditions[1].Message; got != tc.inputs {
				t.Errorf("%s\nInputsReady message = %q, want %q", tc.reason, got, tc.inputs)
			}
			if diff := cmp.Diff(tc.ready, r.Conditions[2]); diff != "" {
				t.Errorf("%s\nKubeconfigReady: -want, +got:\n%s", tc.reason, diff)
			}
			if r.Status.Phase != v1alpha1.KubeconfigPhaseReady {
				t.Errorf("%s\nthe kubeconfig still exists: phase Ready, got %s", tc.reason, r.Status.Phase)
			}
			if !r.NotReady {
				t.Errorf("%s\na kept kubeconfig does not make the XR ready", tc.reason)
			}
		})
	}
}

// TestRenewal: a renewed certificate rewrites the kubeconfig from the new Secret data.
func TestRenewal(t *testing.T) {
	kc := kubeconfigXR()
	before, w := converged(t, kc, installation(t, testworld.New(), rootShard()))
	renewedCrt := []byte("-----BEGIN CERTIFICATE-----\nRENEWED\n-----END CERTIFICATE-----\n")
	issued(w, kc, 2, "2027-01-01T00:00:00Z", renewedCrt, clientKey)
	after := run(t, kc, w)
	old, renewed := kubeconfigData(t, before), kubeconfigData(t, after)
	if !strings.Contains(renewed, b64(renewedCrt)) || strings.Contains(renewed, b64(clientCrt)) {
		t.Errorf("the kubeconfig must embed the renewed certificate and only it")
	}
	if strings.ReplaceAll(old, b64(clientCrt), b64(renewedCrt)) != renewed {
		t.Errorf("a renewal changes only the certificate data")
	}
	if after.Status.Expiry != "2027-01-01T00:00:00Z" {
		t.Errorf("status.expiry follows the Certificate's notAfter, got %q", after.Status.Expiry)
	}
}

func TestRenameSecret(t *testing.T) {
	kc := kubeconfigXR()
	_, w := converged(t, kc, installation(t, testworld.New(), rootShard()))
	// admin-kubeconfig and kubeconfig would share a key if the XR's name were trimmed.
	kc.Spec.SecretRef.Name = "kubeconfig"
	r := run(t, kc, w)
	if diff := cmp.Diff([]resource.Name{"certificate-kubeconfig-cert-admin", "secret-kubeconfig", "secret-kubeconfig-cert-admin"}, r.Desired.Names()); diff != "" {
		t.Errorf("a renamed output Secret is composed under its own key; the old one is no longer desired.\n-want, +got:\n%s", diff)
	}
	if o, _ := r.Desired.Get("secret-kubeconfig"); o.Resource.(*corev1.Secret).Name != "kubeconfig" {
		t.Errorf("the new Secret is built, not the old one kept")
	}
}

func TestDeterministic(t *testing.T) {
	kc := kubeconfigXR(toFrontProxy("edge"))
	w := installation(t, testworld.New(), rootShard()).Object(frontProxy())
	first, _ := converged(t, kc, w)
	for range 10 {
		again := run(t, kc, w)
		if kubeconfigData(t, first) != kubeconfigData(t, again) || !cmp.Equal(first.Conditions, again.Conditions) {
			t.Fatalf("the same state must compose the same kubeconfig and conditions")
		}
	}
}
