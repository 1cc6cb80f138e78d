package rootshard

import (
	"slices"
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// basic is examples/basic: the smallest RootShard.
func basic(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "kcp"},
		Spec: v1alpha1.RootShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{
				Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd.kcp.svc.cluster.local:2379"}},
			},
			External:     v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 6443},
			Certificates: v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "kcp-selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"}},
		},
	}
	for _, m := range mods {
		m(rs)
	}
	return rs
}

// converge composes repeatedly, issuing certificates and creating objects, until the desired
// set stops growing, as the world would.
func converge(rs *v1alpha1.RootShard, extra func(*testworld.World)) (Result, *testworld.World) {
	w := testworld.New()
	if extra != nil {
		extra(w)
	}
	r := composeOK(rs, w.State())
	for range 5 {
		w = testworld.New()
		if extra != nil {
			extra(w)
		}
		w.Issued(r.Desired, 1).Exists(r.Desired)
		r = composeOK(rs, w.State())
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

func deployment(t *testing.T, r Result, key resource.Name) *appsv1.Deployment {
	t.Helper()
	o, ok := r.Desired.Get(key)
	if !ok {
		t.Fatalf("%s is not desired; desired: %v", key, keys(&r.Desired))
	}
	d, ok := o.Resource.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("%s is %T, not a built Deployment", key, o.Resource)
	}
	return d
}

func TestComposeFresh(t *testing.T) {
	r := composeOK(basic(), testworld.New().State())

	wantKeys := []string{
		"certificate-ca", "certificate-client", "certificate-client-ca", "certificate-external-logical-cluster-admin",
		"certificate-kcp-operator", "certificate-logical-cluster-admin", "certificate-proxy-kubeconfig",
		"certificate-proxy-requestheader", "certificate-proxy-server", "certificate-requestheader-client-ca",
		"certificate-server", "certificate-server-ca", "certificate-service-account", "certificate-service-account-ca",
		"certificate-virtual-workspaces",
		"configmap-proxy-config",
		"issuer-ca", "issuer-client-ca", "issuer-requestheader-client-ca", "issuer-server-ca", "issuer-service-account-ca",
		"providerconfig-kcp-operator.root",
		"secret-external-logical-cluster-admin-kubeconfig", "secret-logical-cluster-admin-kubeconfig",
		"secret-proxy-dynamic-kubeconfig",
	}
	flat := testworld.Flatten(r.Desired, testworld.New().State())
	if diff := cmp.Diff(wantKeys, keys(&flat)); diff != "" {
		t.Errorf("Before any certificate is issued, only PKI, kubeconfigs, the proxy config and the ProviderConfig of root are composed; no workloads.\n-want, +got:\n%s", diff)
	}
	if !r.NotReady {
		t.Errorf("The XR must be explicitly not ready while its workloads are not composed")
	}
	wantReq := []result.Requirement{
		{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard"},
		{Kind: "Secret", Name: "root-client-ca"},
		{APIVersion: "kubernetes.m.crossplane.io/v1alpha1", Kind: "Object", Label: "kcp.crossplane.io/root-shard", LabelValue: "root"},
		{Kind: "Secret", Name: "root-kcp-operator"},
		{Kind: "Secret", Name: "root-server-ca"},
	}
	if diff := cmp.Diff(wantReq, r.Requirements); diff != "" {
		t.Errorf("Every Shard is required to list this RootShard's shards; the client CA Secret to build the proxy's client CA bundle; the Objects acting in its kcp, and the client certificate and server CA their credentials embed.\n-want, +got:\n%s", diff)
	}
	if got := r.Conditions[0]; got.Type != condition.TypeCertificatesReady || got.Status {
		t.Errorf("CertificatesReady must be False before anything is issued, got %+v", got)
	}
	if got := r.Conditions[2]; got.Type != condition.TypeAvailable || got.Status || !strings.Contains(got.Message, "Deployment kcp/root-kcp is not created yet") || !strings.Contains(got.Message, "CertificatesReady") {
		t.Errorf("Available must say the Deployment waits, and where to read for what, got %+v", got)
	}
}

func TestComposeConverged(t *testing.T) {
	r, _ := converge(basic(), nil)

	for _, k := range []resource.Name{"deployment-kcp", "service-kcp", "deployment-proxy", "service-proxy", "secret-proxy-merged-client-ca"} {
		if !r.Desired.Has(k) {
			t.Errorf("converged: %s is not desired", k)
		}
	}
	if r.NotReady {
		t.Errorf("converged: the XR must not be forced not ready")
	}
	if r.Status.Phase != v1alpha1.PhaseRunning {
		t.Errorf("converged: phase = %q, want Running", r.Status.Phase)
	}
	for _, c := range r.Conditions {
		if !c.Status {
			t.Errorf("converged: condition %s is False: %s", c.Type, c.Message)
		}
	}
	for _, o := range r.Desired.Objects() {
		if o.Ready != resource.ReadyTrue {
			t.Errorf("converged: %s is not ready", o.Name)
		}
	}

	wantArgs := []string{
		"--root-ca-file=/etc/kcp/tls/ca/root/tls.crt",
		"--client-ca-file=/etc/kcp/tls/ca/client/tls.crt",
		"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
		"--requestheader-allowed-names=kcp-front-proxy,kcp-root-shard-proxy",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--tls-private-key-file=/etc/kcp/tls/server/tls.key",
		"--tls-cert-file=/etc/kcp/tls/server/tls.crt",
		"--service-account-key-file=/etc/kcp/tls/service-account/tls.crt",
		"--service-account-private-key-file=/etc/kcp/tls/service-account/tls.key",
		"--service-account-lookup=false",
		"--shard-client-key-file=/etc/kcp/tls/client/tls.key",
		"--shard-client-cert-file=/etc/kcp/tls/client/tls.crt",
		"--shard-base-url=https://root-kcp.kcp.svc.cluster.local:6443",
		"--shard-external-url=https://api.example.com:6443",
		"--logical-cluster-admin-kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig",
		"--external-logical-cluster-admin-kubeconfig=/etc/kcp/external-logical-cluster-admin-kubeconfig/kubeconfig",
		"--batteries-included=workspace-types",
		"--root-directory=",
		"--enable-leader-election=true",
		"--logging-format=json",
		"--etcd-servers=http://etcd.kcp.svc.cluster.local:2379",
	}
	d := deployment(t, r, "deployment-kcp")
	if diff := cmp.Diff(wantArgs, d.Spec.Template.Spec.Containers[0].Args); diff != "" {
		t.Errorf("root shard flags must match kcp-operator's, in order.\n-want, +got:\n%s", diff)
	}
	type mount struct{ Volume, Secret, Path string }
	var gotMounts []mount
	for i, v := range d.Spec.Template.Spec.Volumes {
		gotMounts = append(gotMounts, mount{v.Name, v.Secret.SecretName, d.Spec.Template.Spec.Containers[0].VolumeMounts[i].MountPath})
	}
	wantMounts := []mount{
		{"kcp-ca", "root-ca", "/etc/kcp/tls/ca/root"},
		{"logical-cluster-admin-kubeconfig", "root-logical-cluster-admin-kubeconfig", "/etc/kcp/logical-cluster-admin-kubeconfig"},
		{"external-logical-cluster-admin-kubeconfig", "root-external-logical-cluster-admin-kubeconfig", "/etc/kcp/external-logical-cluster-admin-kubeconfig"},
		{"server-ca", "root-server-ca", "/etc/kcp/tls/ca/server"},
		{"service-account-ca", "root-service-account-ca", "/etc/kcp/tls/ca/service-account"},
		{"requestheader-client-ca", "root-requestheader-client-ca", "/etc/kcp/tls/ca/requestheader-client"},
		{"client-ca", "root-client-ca", "/etc/kcp/tls/ca/client"},
		{"server-cert", "root-server", "/etc/kcp/tls/server"},
		{"service-account-cert", "root-service-account", "/etc/kcp/tls/service-account"},
		{"client-cert", "root-client", "/etc/kcp/tls/client"},
		{"logical-cluster-admin-cert", "root-logical-cluster-admin", "/etc/kcp/tls/logical-cluster-admin"},
		{"external-logical-cluster-admin-cert", "root-external-logical-cluster-admin", "/etc/kcp/tls/external-logical-cluster-admin"},
	}
	if diff := cmp.Diff(wantMounts, gotMounts); diff != "" {
		t.Errorf("root shard volumes must match kcp-operator's, in order.\n-want, +got:\n%s", diff)
	}
	if got := *d.Spec.Replicas; got != builder.DefaultReplicas {
		t.Errorf("replicas = %d, want the default %d", got, builder.DefaultReplicas)
	}

	wantProxyArgs := []string{
		"--secure-port=6443",
		"--root-kubeconfig=/etc/kcp-front-proxy/kubeconfig/kubeconfig",
		"--shards-kubeconfig=/etc/kcp-front-proxy/kubeconfig/kubeconfig",
		"--tls-private-key-file=/etc/kcp-front-proxy/tls/tls.key",
		"--tls-cert-file=/etc/kcp-front-proxy/tls/tls.crt",
		"--mapping-file=/etc/kcp-front-proxy/config/path-mapping.yaml",
		"--client-ca-file=/etc/kcp-front-proxy/client-ca/tls.crt",
		"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
		"--requestheader-allowed-names=kcp-root-shard-proxy,kcp-mounts-proxy",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
	}
	p := deployment(t, r, "deployment-proxy")
	if diff := cmp.Diff(wantProxyArgs, p.Spec.Template.Spec.Containers[0].Args); diff != "" {
		t.Errorf("root proxy flags must match kcp-operator's root proxy mode.\n-want, +got:\n%s", diff)
	}
	o, _ := r.Desired.Get("secret-proxy-merged-client-ca")
	if got := string(o.Resource.(*corev1.Secret).Data["tls.crt"]); got != "PEM(root-client-ca)" {
		t.Errorf("the proxy's client CA bundle is the client CA's tls.crt, got %q", got)
	}
}

func TestNeverDestroyOnDoubt(t *testing.T) {
	converged, w := converge(basic(), nil)

	// The client CA Secret vanishes (say, deleted by hand) and a certificate is being reissued.
	w2 := testworld.New().ComposedFrom(w).Certificate("certificate-server", "root-server", testworld.Cert{})
	r := composeOK(basic(), w2.State())

	if diff := cmp.Diff(keys(&converged.Desired), keys(&r.Desired)); diff != "" {
		t.Errorf("Nothing that exists may disappear from the desired set when inputs go missing.\n-want, +got:\n%s", diff)
	}
	for _, k := range []resource.Name{"deployment-kcp", "service-kcp", "secret-proxy-merged-client-ca", "secret-reference"} {
		o, _ := r.Desired.Get(k)
		if o.Kept == nil {
			t.Errorf("%s must be kept exactly as observed while its inputs are missing", k)
		}
	}
	var inputs condition.Condition
	for _, c := range r.Conditions {
		if c.Type == condition.TypeInputsReady {
			inputs = c
		}
	}
	if inputs.Status || !strings.Contains(inputs.Message, "root-client-ca") {
		t.Errorf("InputsReady must name the missing client CA, got %+v", inputs)
	}
}

func TestCertificateRenewalRollsPods(t *testing.T) {
	first, _ := converge(basic(), nil)
	before := deployment(t, first, "deployment-kcp").Spec.Template.Annotations[names.AnnotationCertificateRevisions]

	w2 := testworld.New().Issued(first.Desired, 2).Exists(first.Desired)
	r := composeOK(basic(), w2.State())
	after := deployment(t, r, "deployment-kcp").Spec.Template.Annotations[names.AnnotationCertificateRevisions]

	if before == after {
		t.Errorf("A certificate renewal must change the pod template; annotation stayed %q", before)
	}
	if !strings.Contains(after, "root-server=2") {
		t.Errorf("revisions annotation must list root-server=2, got %q", after)
	}
}

func TestCASecretRef(t *testing.T) {
	byo := func(rs *v1alpha1.RootShard) {
		rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
	}
	fresh := composeOK(basic(byo), testworld.New().State())
	flat := testworld.Flatten(fresh.Desired, testworld.New().State())
	if flat.Has("certificate-ca") {
		t.Errorf("With caSecretRef no root CA Certificate is composed")
	}
	o, _ := flat.Get("issuer-ca")
	if got := o.Resource.(*cmv1.Issuer).Spec.CA.SecretName; got != "my-ca" {
		t.Errorf("root Issuer signs with %q, want the caSecretRef Secret my-ca", got)
	}

	withoutSecret, _ := converge(basic(byo), nil)
	if withoutSecret.Desired.Has("deployment-kcp") {
		t.Errorf("The root shard must wait for the caSecretRef Secret it mounts")
	}
	r, _ := converge(basic(byo), func(w *testworld.World) { w.SecretData("my-ca", map[string]string{"tls.crt": "CA"}) })
	d := deployment(t, r, "deployment-kcp")
	if got := d.Spec.Template.Spec.Volumes[0]; got.Name != "kcp-ca" || got.Secret.SecretName != "my-ca" {
		t.Errorf("quirk 5: the root CA mount must use the caSecretRef Secret, got %+v", got)
	}
}

func TestSpecOptions(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.RootShard)
		extra  func(*testworld.World)
		check  func(t *testing.T, d *appsv1.Deployment)
	}{
		"ExtraArgsLast": {
			reason: "quirk 12: extraArgs follow every generated flag, so users can override them",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.ExtraArgs = []string{"--etcd-servers=http://other:2379"}
				rs.Spec.Etcd.Prefix = "/kcp"
			},
			check: func(t *testing.T, d *appsv1.Deployment) {
				args := d.Spec.Template.Spec.Containers[0].Args
				if got := args[len(args)-1]; got != "--etcd-servers=http://other:2379" {
					t.Errorf("last flag = %q", got)
				}
				if got := args[len(args)-2]; got != "--etcd-prefix=/kcp" {
					t.Errorf("flag before extraArgs = %q", got)
				}
			},
		},
		"NodeSelectorKeepsPullSecrets": {
			reason: "quirk 3: a deploymentTemplate nodeSelector must not wipe image pull secrets",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Image = &v1alpha1.ImageSpec{ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}}
				rs.Spec.DeploymentTemplate = &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{
					Template: &v1alpha1.PodTemplateSpec{Spec: &v1alpha1.PodSpecTemplate{NodeSelector: map[string]string{"zone": "a"}}},
				}}
			},
			check: func(t *testing.T, d *appsv1.Deployment) {
				ps := d.Spec.Template.Spec
				if len(ps.ImagePullSecrets) != 1 || ps.NodeSelector["zone"] != "a" {
					t.Errorf("pull secrets %v, node selector %v", ps.ImagePullSecrets, ps.NodeSelector)
				}
			},
		},
		"Replicas": {
			reason: "spec.replicas wins over the default",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.Replicas = ptr.To[int32](3) },
			check: func(t *testing.T, d *appsv1.Deployment) {
				if *d.Spec.Replicas != 3 {
					t.Errorf("replicas = %d", *d.Spec.Replicas)
				}
			},
		},
		"OIDCDefaultKey": {
			reason: "quirk 11: caFileRef without key reads ca.crt",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Auth = &v1alpha1.AuthSpec{OIDC: &v1alpha1.OIDCConfiguration{
					IssuerURL: "https://idp.example.com", ClientID: "kcp", CAFileRef: &v1alpha1.SecretKeyRef{Name: "idp-ca"},
				}}
			},
			extra: func(w *testworld.World) { w.SecretData("idp-ca", map[string]string{"ca.crt": "CA"}) },
			check: func(t *testing.T, d *appsv1.Deployment) {
				args := d.Spec.Template.Spec.Containers[0].Args
				want := []string{"--oidc-issuer-url=https://idp.example.com", "--oidc-client-id=kcp", "--oidc-ca-file=/etc/kcp/tls/oidc/ca.crt"}
				if diff := cmp.Diff(want, args[len(args)-3:]); diff != "" {
					t.Errorf("-want, +got:\n%s", diff)
				}
			},
		},
		"AuditTruncateFlag": {
			reason: "quirk 1: the truncate flag is the one kcp accepts",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Audit = &v1alpha1.AuditSpec{Webhook: &v1alpha1.AuditWebhookSpec{TruncateMaxEventSize: 1024}}
			},
			check: func(t *testing.T, d *appsv1.Deployment) {
				args := d.Spec.Template.Spec.Containers[0].Args
				if got := args[len(args)-1]; got != "--audit-webhook-truncate-max-event-size=1024" {
					t.Errorf("got %q", got)
				}
			},
		},
		"CacheServer": {
			reason: "a referenced CacheServer adds the cache kubeconfig flag and its three Secrets",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"} },
			extra: func(w *testworld.World) {
				for _, s := range []string{"cache-kubeconfig", "cache-ca", "cache-client-certificate"} {
					w.SecretData(s, map[string]string{"x": "y"})
				}
			},
			check: func(t *testing.T, d *appsv1.Deployment) {
				args := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " ")
				if !strings.Contains(args, "--logging-format=json --cache-kubeconfig=/etc/cache-server/kubeconfig/kubeconfig --etcd-servers=") {
					t.Errorf("cache flag missing or misplaced: %s", args)
				}
				var vols []string
				for _, v := range d.Spec.Template.Spec.Volumes {
					vols = append(vols, v.Name)
				}
				if !strings.Contains(strings.Join(vols, ","), "cache-server-kubeconfig,cache-server-ca,cache-server-client-cert") {
					t.Errorf("cache volumes missing: %v", vols)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(basic(tc.mod), tc.extra)
			tc.check(t, deployment(t, r, "deployment-kcp"))
		})
	}
}

func TestClusterDomainInProxySANs(t *testing.T) {
	r := composeOK(basic(func(rs *v1alpha1.RootShard) { rs.Spec.ClusterDomain = "corp.internal" }), testworld.New().State())
	o, _ := r.Desired.Get("certificate-proxy-server")
	want := []string{"root-proxy", "root-proxy.kcp", "root-proxy.kcp.svc.corp.internal"}
	if diff := cmp.Diff(want, o.Resource.(*cmv1.Certificate).Spec.DNSNames); diff != "" {
		t.Errorf("quirk 9: proxy SANs must honour clusterDomain.\n-want, +got:\n%s", diff)
	}
	o, _ = r.Desired.Get("certificate-server")
	want = []string{"api.example.com", "root-kcp.kcp.svc.corp.internal"}
	if diff := cmp.Diff(want, o.Resource.(*cmv1.Certificate).Spec.DNSNames); diff != "" {
		t.Errorf("server SANs: -want, +got:\n%s", diff)
	}
}

// between returns the elements of list after the first one equal to after and before the
// next one equal to before; nil if there are none.
func between(t *testing.T, list []string, after, before string) []string {
	t.Helper()
	start := slices.Index(list, after)
	if start < 0 {
		t.Fatalf("%q not in %q", after, list)
	}
	end := slices.Index(list[start+1:], before)
	if end < 0 {
		t.Fatalf("%q not after %q in %q", before, after, list)
	}
	if end == 0 {
		return nil
	}
	return list[start+1 : start+1+end]
}

func TestPublic(t *testing.T) {
	letsencrypt := v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"}
	svc := "root-kcp.kcp.svc.cluster.local"
	publicCert := func(dnsNames ...string) *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta: metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
			ObjectMeta: metav1.ObjectMeta{Name: "root-public-serving", Namespace: "kcp", Labels: map[string]string{
				"app.kubernetes.io/managed-by": "configuration-kcp", "app.kubernetes.io/name": "kcp",
				"app.kubernetes.io/instance": "root", "app.kubernetes.io/component": "rootshard",
			}},
			Spec: cmv1.CertificateSpec{
				SecretName:     "root-public-serving",
				SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/rootshard": "root"}},
				PrivateKey:     &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096},
				DNSNames:       dnsNames,
				Usages:         []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
				IssuerRef:      cmmeta.IssuerReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"},
			},
		}
	}
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.RootShard)
		extra  func(*testworld.World)
		// wantSNI are the flags between --tls-cert-file and --service-account-key-file.
		wantSNI []string
		// wantVW are the flags between --logging-format and --etcd-servers.
		wantVW []string
		// wantVolumes are the volumes (name=secret@path) between server-cert and service-account-cert.
		wantVolumes []string
		wantSANs    []string
		wantCert    *cmv1.Certificate // certificate-public-serving, nil for none
	}{
		"Private": {
			reason:   "Without spec.public: no virtual workspace URL, no second certificate.",
			wantSANs: []string{"api.example.com", svc},
		},
		"PublicHostname": {
			reason: "A public name without a certificate of its own: the virtual workspaces are advertised there on port 6443, and the serving certificate from the installation's CA covers it.",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com"}
			},
			wantVW:   []string{"--shard-virtual-workspace-url=https://root.kcp.example.com:6443"},
			wantSANs: []string{"api.example.com", svc, "root.kcp.example.com"},
		},
		"PublicPort": {
			reason: "The public port is the virtual workspace URL's.",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", Port: 8443}
			},
			wantVW:   []string{"--shard-virtual-workspace-url=https://root.kcp.example.com:8443"},
			wantSANs: []string{"api.example.com", svc, "root.kcp.example.com"},
		},
		"ServerCertificate": {
			reason: "A certificate from the user's issuer for the public name, without a lifetime of its own, served by SNI right after the serving certificate and mounted after it; the serving certificate keeps its names.",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt}}
			},
			wantSNI:     []string{"--tls-sni-cert-key=/etc/kcp/tls/public-server/tls.crt,/etc/kcp/tls/public-server/tls.key:root.kcp.example.com"},
			wantVW:      []string{"--shard-virtual-workspace-url=https://root.kcp.example.com:6443"},
			wantVolumes: []string{"public-server-cert=root-public-serving@/etc/kcp/tls/public-server"},
			wantSANs:    []string{"api.example.com", svc},
			wantCert:    publicCert("root.kcp.example.com"),
		},
		"ServerCertificateDNSNames": {
			reason: "The certificate's dnsNames replace the hostname, on the certificate and in the SNI flag.",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{
					IssuerRef: letsencrypt, DNSNames: []string{"root.kcp.example.com", "kcp-root.example.org"},
				}}
			},
			wantSNI:     []string{"--tls-sni-cert-key=/etc/kcp/tls/public-server/tls.crt,/etc/kcp/tls/public-server/tls.key:root.kcp.example.com,kcp-root.example.org"},
			wantVW:      []string{"--shard-virtual-workspace-url=https://root.kcp.example.com:6443"},
			wantVolumes: []string{"public-server-cert=root-public-serving@/etc/kcp/tls/public-server"},
			wantSANs:    []string{"api.example.com", svc},
			wantCert:    publicCert("root.kcp.example.com", "kcp-root.example.org"),
		},
		"VirtualWorkspaceWins": {
			reason: "An external VirtualWorkspace serves the virtual workspaces: its URL is advertised, not the public name.",
			mod: func(rs *v1alpha1.RootShard) {
				rs.Spec.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: "vw"}
				rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt}}
			},
			extra: func(w *testworld.World) {
				w.Object(&v1alpha1.VirtualWorkspace{
					TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "VirtualWorkspace"},
					ObjectMeta: metav1.ObjectMeta{Name: "vw", Namespace: "kcp"},
					Spec:       v1alpha1.VirtualWorkspaceSpec{External: v1alpha1.ExternalConfig{Hostname: "vw.example.com", Port: 443}},
				})
			},
			wantSNI: []string{"--tls-sni-cert-key=/etc/kcp/tls/public-server/tls.crt,/etc/kcp/tls/public-server/tls.key:root.kcp.example.com"},
			wantVW: []string{
				"--run-virtual-workspaces=false",
				"--shard-virtual-workspace-url=https://vw.example.com:443",
				"--shard-virtual-workspace-ca-file=/etc/kcp/tls/ca/server/tls.crt",
			},
			wantVolumes: []string{"public-server-cert=root-public-serving@/etc/kcp/tls/public-server"},
			wantSANs:    []string{"api.example.com", svc},
			wantCert:    publicCert("root.kcp.example.com"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(basic(func(rs *v1alpha1.RootShard) {
				if tc.mod != nil {
					tc.mod(rs)
				}
			}), tc.extra)
			d := deployment(t, r, "deployment-kcp")
			args := d.Spec.Template.Spec.Containers[0].Args
			if diff := cmp.Diff(tc.wantSNI, between(t, args, "--tls-cert-file=/etc/kcp/tls/server/tls.crt", "--service-account-key-file=/etc/kcp/tls/service-account/tls.crt")); diff != "" {
				t.Errorf("%s\nflags after --tls-cert-file: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantVW, between(t, args, "--logging-format=json", "--etcd-servers=http://etcd.kcp.svc.cluster.local:2379")); diff != "" {
				t.Errorf("%s\nvirtual workspace flags: -want, +got:\n%s", tc.reason, diff)
			}
			var vols []string
			for i, v := range d.Spec.Template.Spec.Volumes {
				vols = append(vols, v.Name+"="+v.Secret.SecretName+"@"+d.Spec.Template.Spec.Containers[0].VolumeMounts[i].MountPath)
			}
			if diff := cmp.Diff(tc.wantVolumes, between(t, vols, "server-cert=root-server@/etc/kcp/tls/server", "service-account-cert=root-service-account@/etc/kcp/tls/service-account")); diff != "" {
				t.Errorf("%s\nvolumes after server-cert: -want, +got:\n%s", tc.reason, diff)
			}
			o, _ := r.Desired.Get("certificate-server")
			if diff := cmp.Diff(tc.wantSANs, o.Resource.(*cmv1.Certificate).Spec.DNSNames); diff != "" {
				t.Errorf("%s\nserver SANs: -want, +got:\n%s", tc.reason, diff)
			}
			var got *cmv1.Certificate
			if o, ok := r.Desired.Get("certificate-public-serving"); ok {
				got = o.Resource.(*cmv1.Certificate)
			}
			if diff := cmp.Diff(tc.wantCert, got); diff != "" {
				t.Errorf("%s\ncertificate-public-serving: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
