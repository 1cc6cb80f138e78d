package kcpinstallation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// frontProxyNameLength stands in for fn.go's table of kinds, which checks every child with
// its own kind's validation (fn's TestRunFunctionFatal runs the real one): it rejects a
// FrontProxy named longer than 30 characters, as the FrontProxy kind rejects a name too long
// for the volumes it derives from it and its RootShard's name.
var frontProxyNameLength = Kinds{FrontProxy: Kind[*v1alpha1.FrontProxy]{Validate: func(fp *v1alpha1.FrontProxy) field.ErrorList {
	if len(fp.Name) > 30 {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), fp.Name, "too long")}
	}
	return nil
}}}

// smallest is the ten-line installation the docs promise: managed etcd by default.
func smallest() *v1alpha1.KcpInstallation {
	return &v1alpha1.KcpInstallation{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Namespace: "tenant"},
		Spec: v1alpha1.KcpInstallationSpec{
			External:     v1alpha1.InstallationExternal{Hostname: "kcp.example.com"},
			Certificates: v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"}},
		},
	}
}

// external is smallest with an external etcd.
func external() *v1alpha1.KcpInstallation {
	i := smallest()
	i.Spec.Etcd = &v1alpha1.InstallationEtcd{External: &v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}}}
	return i
}

// managedEtcdObjects are what a managed etcd composes, in order.
var managedEtcdObjects = []string{
	"Issuer/team-a-etcd-selfsigned", "Certificate/team-a-etcd-client-ca", "Issuer/team-a-etcd-client-ca", "Certificate/team-a-etcd-peer-ca", "Issuer/team-a-etcd-peer-ca",
	"Certificate/team-a-etcd-server", "Certificate/team-a-etcd-peer", "Certificate/team-a-etcd-client",
	"Service/team-a-etcd", "Service/team-a-etcd-members", "StatefulSet/team-a-etcd",
}

func TestCompose(t *testing.T) {
	type want struct {
		children []string // kind/name in order
		phase    v1alpha1.Phase
		url      string
		secret   string
		errs     []string // substrings of the error list
	}
	withShards := external()
	withShards.Spec.Shards = []v1alpha1.InstallationShard{{Name: "s1"}, {Name: "s2"}}
	withShards.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
	twoProxies := smallest()
	twoProxies.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public"}, {Name: "internal"}}
	longName := smallest()
	longName.Name = "a-very-long-installation-name"
	noHost := smallest()
	noHost.Spec.External.Hostname = ""
	fpPrivateHostname := smallest()
	fpPrivateHostname.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", External: &v1alpha1.InstallationExternal{Hostname: "kcp.example.com", PrivateHostname: "kcp.internal"}}}
	fpPrivatePort := smallest()
	privatePort := uint32(7443)
	fpPrivatePort.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public"}, {Name: "internal", External: &v1alpha1.InstallationExternal{Hostname: "internal.example.com", PrivatePort: &privatePort}}}

	cases := map[string]struct {
		inst *v1alpha1.KcpInstallation
		want want
	}{
		"Smallest": {
			inst: smallest(),
			want: want{
				children: append(append([]string{}, managedEtcdObjects...), "RootShard/team-a", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"),
				phase:    v1alpha1.PhaseProvisioning, url: "https://kcp.example.com:6443", secret: "team-a-admin-kubeconfig",
			},
		},
		"ExternalEtcd": {
			inst: external(),
			want: want{
				children: []string{"RootShard/team-a", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"},
				phase:    v1alpha1.PhaseProvisioning, url: "https://kcp.example.com:6443", secret: "team-a-admin-kubeconfig",
			},
		},
		"ShardsAndCacheServer": {
			inst: withShards,
			want: want{
				children: []string{"CacheServer/team-a-cache", "RootShard/team-a", "Shard/team-a-s1", "Shard/team-a-s2", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"},
				phase:    v1alpha1.PhaseProvisioning, url: "https://kcp.example.com:6443", secret: "team-a-admin-kubeconfig",
			},
		},
		"SecondFrontProxyNeedsAnAddress": {
			inst: twoProxies,
			want: want{errs: []string{"spec.frontProxies[1].external: Required value"}},
		},
		"NameTooLongForDerivedNames": {
			inst: longName,
			want: want{errs: []string{"spec.frontProxies[0]: Invalid value", "the FrontProxy a-very-long-installation-name-public this composes", "shorten this KcpInstallation's metadata.name or spec.frontProxies[0].name"}},
		},
		"FrontProxyPrivateHostname": {
			inst: fpPrivateHostname,
			want: want{errs: []string{"spec.frontProxies[0].external.privateHostname: Forbidden: the private address is the installation's, not a front-proxy's: set spec.external.privateHostname and privatePort instead"}},
		},
		"FrontProxyPrivatePort": {
			inst: fpPrivatePort,
			want: want{errs: []string{"spec.frontProxies[1].external.privateHostname: Forbidden: the private address is the installation's, not a front-proxy's"}},
		},
		"VirtualWorkspacePrivateHostname": {
			inst: func() *v1alpha1.KcpInstallation {
				i := smallest()
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{External: v1alpha1.InstallationExternal{Hostname: "vw.example.com", PrivateHostname: "vw.internal"}}}}
				return i
			}(),
			want: want{errs: []string{"spec.shards[0].virtualWorkspace.external.privateHostname: Forbidden: the private address is the installation's, not a virtual workspace server's"}},
		},
		"NoHostname": {
			inst: noHost,
			want: want{errs: []string{"spec.external.hostname: Required value"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.inst, observed.New(nil), frontProxyNameLength)
			if len(tc.want.errs) > 0 {
				got := errs.ToAggregate()
				if got == nil {
					t.Fatalf("Compose(...): no error, want %q", tc.want.errs)
				}
				for _, w := range tc.want.errs {
					if !strings.Contains(got.Error(), w) {
						t.Errorf("Compose(...): error %q does not contain %q", got, w)
					}
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("Compose(...): %v", errs.ToAggregate())
			}
			var got []string
			for _, o := range r.Desired.Objects() {
				u, err := desired.ToComposed(o.Resource)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, u.GetKind()+"/"+u.GetName())
				isChild := u.GroupVersionKind().Group == v1alpha1.Group
				if u.GetNamespace() != "tenant" || (isChild && u.GetLabels()[LabelInstallation] != "team-a") {
					t.Errorf("%s/%s: namespace %q labels %v, want tenant and the installation label", u.GetKind(), u.GetName(), u.GetNamespace(), u.GetLabels())
				}
				if o.Ready != resource.ReadyFalse {
					t.Errorf("%s/%s is ready although nothing is observed", u.GetKind(), u.GetName())
				}
			}
			if diff := cmp.Diff(tc.want.children, got); diff != "" {
				t.Errorf("children (-want +got):\n%s", diff)
			}
			if r.Status.Phase != tc.want.phase || r.Status.URL != tc.want.url || r.Status.KubeconfigSecret != tc.want.secret || !r.NotReady {
				t.Errorf("status %+v notReady %v, want phase %s url %s secret %s, not ready", r.Status, r.NotReady, tc.want.phase, tc.want.url, tc.want.secret)
			}
		})
	}
}

// TestComposeReady: once every child says Ready, so does the installation, and the URL comes
// from the front-proxy's status.
func TestComposeReady(t *testing.T) {
	inst := external()
	oc := map[resource.Name]*resource.Unstructured{}
	for key, kind := range map[resource.Name]string{"rootshard": "RootShard", "frontproxy-public": "FrontProxy", "kubeconfig-admin": "Kubeconfig"} {
		u := resource.NewUnstructured()
		u.SetKind(kind)
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}, "url": "https://kcp.example.com:443"}
		oc[key] = u
	}
	r, errs := Compose(inst, observed.New(oc), frontProxyNameLength)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	if r.NotReady || r.Status.Phase != v1alpha1.PhaseRunning || r.Status.URL != "https://kcp.example.com:443" {
		t.Errorf("status %+v notReady %v, want Running with the front-proxy's URL", r.Status, r.NotReady)
	}
	for _, o := range r.Desired.Objects() {
		if o.Ready != resource.ReadyTrue {
			t.Errorf("%s not ready", o.Name)
		}
	}
}

// TestShardEtcd: shards that share the installation's etcd store their data beside the root
// shard's keys, never under the same prefix; a shard's own etcd is used as given.
func TestShardEtcd(t *testing.T) {
	own := v1alpha1.EtcdConfig{Endpoints: []string{"https://own:2379"}}
	prefixed := external()
	prefixed.Spec.Etcd.External.Prefix = "/kcp/"
	// A shared etcd: the cache keeps out of it (TestEmbeddedCacheKeyspace).
	prefixed.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Embedded: true}
	cases := map[string]struct {
		inst   *v1alpha1.KcpInstallation
		shards []v1alpha1.InstallationShard
		want   map[string]v1alpha1.EtcdConfig // by child name
	}{
		"ManagedEtcd": {
			inst:   smallest(),
			shards: []v1alpha1.InstallationShard{{Name: "alpha"}, {Name: "beta", Etcd: &own}},
			want: map[string]v1alpha1.EtcdConfig{
				"team-a":       {Endpoints: []string{"https://team-a-etcd.tenant.svc.cluster.local:2379"}, TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: secretRef("team-a-etcd-client")}},
				"team-a-alpha": {Endpoints: []string{"https://team-a-etcd.tenant.svc.cluster.local:2379"}, TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: secretRef("team-a-etcd-client")}, Prefix: "/shards/alpha"},
				"team-a-beta":  own,
			},
		},
		"ShardWithItsOwnManagedEtcd": {
			inst:   external(),
			shards: []v1alpha1.InstallationShard{{Name: "alpha"}, {Name: "gamma", ManagedEtcd: &v1alpha1.ManagedEtcd{Replicas: 3}}},
			want: map[string]v1alpha1.EtcdConfig{
				"team-a":       {Endpoints: []string{"http://etcd:2379"}},
				"team-a-alpha": {Endpoints: []string{"http://etcd:2379"}, Prefix: "/shards/alpha"},
				"team-a-gamma": {Endpoints: []string{"https://team-a-gamma-etcd.tenant.svc.cluster.local:2379"}, TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: secretRef("team-a-gamma-etcd-client")}},
			},
		},
		"ExternalEtcdWithPrefix": {
			inst:   prefixed,
			shards: []v1alpha1.InstallationShard{{Name: "alpha"}},
			want: map[string]v1alpha1.EtcdConfig{
				"team-a":       {Endpoints: []string{"http://etcd:2379"}, Prefix: "/kcp/"},
				"team-a-alpha": {Endpoints: []string{"http://etcd:2379"}, Prefix: "/kcp-shards/alpha"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.inst.Spec.Shards = tc.shards
			r, errs := Compose(tc.inst, observed.New(nil), frontProxyNameLength)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			got := map[string]v1alpha1.EtcdConfig{}
			for _, o := range r.Desired.Objects() {
				u, ok := o.Resource.(*resource.Unstructured)
				if !ok || (u.GetKind() != "RootShard" && u.GetKind() != "Shard") {
					continue
				}
				var spec v1alpha1.CommonShardSpec
				if err := runtimeDecode(u.Object["spec"], &spec); err != nil {
					t.Fatal(err)
				}
				got[u.GetName()] = spec.Etcd
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("etcd per shard: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestShardManagedEtcd: a shard's own etcd is a cluster of its own beside the installation's,
// selecting only its members, reported in status, and refused where its names would meet a
// shard's.
func TestShardManagedEtcd(t *testing.T) {
	inst := smallest()
	inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "gamma", ManagedEtcd: &v1alpha1.ManagedEtcd{Replicas: 3}}}
	r, errs := Compose(inst, observed.New(nil), frontProxyNameLength)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	selectors := map[resource.Name]string{}
	for _, o := range r.Desired.Objects() {
		if sts, ok := o.Resource.(*appsv1.StatefulSet); ok {
			selectors[o.Name] = fmt.Sprintf("%s %d %s", sts.Name, *sts.Spec.Replicas, sts.Spec.Selector.MatchLabels["app.kubernetes.io/instance"])
		}
	}
	want := map[resource.Name]string{
		"statefulset-etcd":       "team-a-etcd 1 team-a",
		"statefulset-gamma-etcd": "team-a-gamma-etcd 3 team-a-gamma",
	}
	if diff := cmp.Diff(want, selectors); diff != "" {
		t.Errorf("two clusters, each selecting only its own members: -want, +got (name, replicas, instance label):\n%s", diff)
	}
	var components []string
	for _, c := range r.Status.Components {
		if c.Kind == "StatefulSet" {
			components = append(components, c.Name)
		}
	}
	if diff := cmp.Diff([]string{"team-a-etcd", "team-a-gamma-etcd"}, components); diff != "" {
		t.Errorf("status.components reports every etcd cluster: -want, +got:\n%s", diff)
	}

	clash := smallest()
	clash.Spec.Shards = []v1alpha1.InstallationShard{{Name: "gamma", ManagedEtcd: &v1alpha1.ManagedEtcd{}}, {Name: "gamma-etcd"}}
	_, errs = Compose(clash, observed.New(nil), frontProxyNameLength)
	if got := errs.ToAggregate(); got == nil || !strings.Contains(got.Error(), "team-a-gamma-etcd-server") {
		t.Errorf("shard gamma-etcd's server certificate is gamma's etcd serving certificate's name: want a refusal naming it, got %v", got)
	}
}

// TestComposeChildWithoutStatus: a child observed before Crossplane wrote its status is
// reported as waiting, not a crash.
func TestComposeChildWithoutStatus(t *testing.T) {
	u := resource.NewUnstructured()
	u.SetKind("RootShard")
	r, errs := Compose(external(), observed.New(map[resource.Name]*resource.Unstructured{"rootshard": u}), frontProxyNameLength)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	if got := r.Status.Components[0]; got.Ready || got.Message != "waiting for its status" {
		t.Errorf("component %+v, want not ready, waiting for its status", got)
	}
}

func secretRef(name string) corev1.LocalObjectReference {
	return corev1.LocalObjectReference{Name: name}
}

func runtimeDecode(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// childSpec decodes the spec of the child XR named name that Compose desires.
func childSpec[T any](t *testing.T, r result.Result[v1alpha1.KcpInstallationStatus], name string) T {
	t.Helper()
	var spec T
	for _, o := range r.Desired.Objects() {
		u, ok := o.Resource.(*resource.Unstructured)
		if !ok || u.GetName() != name || u.GroupVersionKind().Group != v1alpha1.Group {
			continue
		}
		if err := runtimeDecode(u.Object["spec"], &spec); err != nil {
			t.Fatal(err)
		}
		return spec
	}
	t.Fatalf("no child XR %s is desired", name)
	return spec
}

// composeOK composes inst with frontProxyNameLength and fails the test on any error.
func composeOK(t *testing.T, inst *v1alpha1.KcpInstallation) result.Result[v1alpha1.KcpInstallationStatus] {
	t.Helper()
	r, errs := Compose(inst, observed.New(nil), frontProxyNameLength)
	if len(errs) > 0 {
		t.Fatalf("Compose(...): %v", errs.ToAggregate())
	}
	return r
}

// TestPublic: a shard's public endpoint is copied into its child's spec.public, and the
// child's Service gets the public service type, LoadBalancer by default.
func TestPublic(t *testing.T) {
	letsencrypt := &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}, DNSNames: []string{"*.kcp.example.com"}}
	svc := func(typ corev1.ServiceType) *v1alpha1.ServiceTemplate {
		return &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{Type: typ}}
	}
	type shard struct {
		Public          *v1alpha1.PublicEndpoint
		ServiceTemplate *v1alpha1.ServiceTemplate
	}
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   map[string]shard // by child name
	}{
		"Private": {
			reason: "Without public the shards keep their ClusterIP Service and no public name.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
			},
			want: map[string]shard{"team-a": {}, "team-a-alpha": {}},
		},
		"RootShardPublic": {
			reason: "rootShard.public is the RootShard's spec.public, exposed by a LoadBalancer Service.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Public: &v1alpha1.InstallationPublic{
					PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: letsencrypt},
				}}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
			},
			want: map[string]shard{
				"team-a":       {Public: &v1alpha1.PublicEndpoint{Hostname: "root.kcp.example.com", ServerCertificate: letsencrypt}, ServiceTemplate: svc(corev1.ServiceTypeLoadBalancer)},
				"team-a-alpha": {},
			},
		},
		"ShardsPublic": {
			reason: "Each shard's public is its own, with its own service type; a shard without stays private.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{
					{Name: "alpha", Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", Port: 443}, ServiceType: corev1.ServiceTypeClusterIP}},
					{Name: "beta"},
					{Name: "gamma", Public: &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "gamma.kcp.example.com"}, ServiceType: corev1.ServiceTypeNodePort}},
				}
			},
			want: map[string]shard{
				"team-a":       {},
				"team-a-alpha": {Public: &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", Port: 443}, ServiceTemplate: svc(corev1.ServiceTypeClusterIP)},
				"team-a-beta":  {},
				"team-a-gamma": {Public: &v1alpha1.PublicEndpoint{Hostname: "gamma.kcp.example.com"}, ServiceTemplate: svc(corev1.ServiceTypeNodePort)},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			tc.mod(inst)
			r := composeOK(t, inst)
			got := map[string]shard{}
			for n := range tc.want {
				s := childSpec[v1alpha1.CommonShardSpec](t, r, n)
				got[n] = shard{Public: s.Public, ServiceTemplate: s.ServiceTemplate}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\npublic and serviceTemplate per shard: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestFrontProxyServerCertificate: a front-proxy's serverCertificate becomes the FrontProxy's
// publicServerCertificate, beside the certificate from the installation's CA, which it no
// longer replaces.
func TestFrontProxyServerCertificate(t *testing.T) {
	issuer := v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"}
	cases := map[string]struct {
		reason string
		sc     *v1alpha1.InstallationServerCertificate
		want   v1alpha1.FrontProxySpec // only PublicServerCertificate, CABundleSecretRef and CertificateTemplates
	}{
		"None": {
			reason: "Without serverCertificate: the installation's CA alone.",
		},
		"IssuerOnly": {
			reason: "The issuer is copied; dnsNames stay empty, for the FrontProxy to default to its public hostname.",
			sc:     &v1alpha1.InstallationServerCertificate{IssuerRef: issuer},
			want:   v1alpha1.FrontProxySpec{PublicServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: issuer}},
		},
		"Everything": {
			reason: "dnsNames and the issuer's CA bundle are copied too.",
			sc: &v1alpha1.InstallationServerCertificate{
				IssuerRef: issuer, DNSNames: []string{"kcp.example.com", "*.kcp.example.com"},
				CABundleSecretRef: &corev1.LocalObjectReference{Name: "staging-ca"},
			},
			want: v1alpha1.FrontProxySpec{
				PublicServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: issuer, DNSNames: []string{"kcp.example.com", "*.kcp.example.com"}},
				CABundleSecretRef:       &corev1.LocalObjectReference{Name: "staging-ca"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", ServerCertificate: tc.sc}}
			s := childSpec[v1alpha1.FrontProxySpec](t, composeOK(t, inst), "team-a-public")
			got := v1alpha1.FrontProxySpec{PublicServerCertificate: s.PublicServerCertificate, CABundleSecretRef: s.CABundleSecretRef, CertificateTemplates: s.CertificateTemplates}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nFrontProxy spec: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPrivateAddress: kcp's components reach the installation through the first
// front-proxy's in-cluster Service unless spec.external names a private address.
func TestPrivateAddress(t *testing.T) {
	port := func(p uint32) *uint32 { return &p }
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   v1alpha1.ExternalConfig
	}{
		"Default": {
			reason: "The default front-proxy's Service, on the installation's port, 6443 by default.",
			want: v1alpha1.ExternalConfig{
				Hostname: "kcp.example.com", Port: 6443,
				PrivateHostname: "team-a-public-front-proxy.tenant.svc.cluster.local", PrivatePort: port(6443),
			},
		},
		"InstallationPort": {
			reason: "A front-proxy without an address of its own listens on the installation's port.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.External.Port = 443 },
			want: v1alpha1.ExternalConfig{
				Hostname: "kcp.example.com", Port: 443,
				PrivateHostname: "team-a-public-front-proxy.tenant.svc.cluster.local", PrivatePort: port(443),
			},
		},
		"ClusterDomain": {
			reason: "The Service's name ends in spec.clusterDomain.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.ClusterDomain = "corp.internal" },
			want: v1alpha1.ExternalConfig{
				Hostname: "kcp.example.com", Port: 6443,
				PrivateHostname: "team-a-public-front-proxy.tenant.svc.corp.internal", PrivatePort: port(6443),
			},
		},
		"FirstFrontProxyWithItsOwnPort": {
			reason: "The first front-proxy's Service listens on its own external port; the second one does not count.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{
					{Name: "edge", External: &v1alpha1.InstallationExternal{Hostname: "edge.example.com", Port: 8443}},
					{Name: "other", External: &v1alpha1.InstallationExternal{Hostname: "other.example.com", Port: 9443}},
				}
			},
			want: v1alpha1.ExternalConfig{
				Hostname: "kcp.example.com", Port: 6443,
				PrivateHostname: "team-a-edge-front-proxy.tenant.svc.cluster.local", PrivatePort: port(8443),
			},
		},
		"FirstFrontProxyWithItsOwnHostname": {
			reason: "A front-proxy's address without a port means 6443, not the installation's port.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.External.Port = 443
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "edge", External: &v1alpha1.InstallationExternal{Hostname: "edge.example.com"}}}
			},
			want: v1alpha1.ExternalConfig{
				Hostname: "kcp.example.com", Port: 443,
				PrivateHostname: "team-a-edge-front-proxy.tenant.svc.cluster.local", PrivatePort: port(6443),
			},
		},
		"PrivatePort": {
			reason: "spec.external.privatePort overrides the Service's port, not its name.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.External.PrivatePort = port(7443)
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "edge", External: &v1alpha1.InstallationExternal{Hostname: "edge.example.com", Port: 8443}}}
			},
			want: v1alpha1.ExternalConfig{
				Hostname: "kcp.example.com", Port: 6443,
				PrivateHostname: "team-a-edge-front-proxy.tenant.svc.cluster.local", PrivatePort: port(7443),
			},
		},
		"PrivateHostnameAndPort": {
			reason: "spec.external's private address is used as it is.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.External.PrivateHostname = "kcp.internal.example.com"
				i.Spec.External.PrivatePort = port(9443)
			},
			want: v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 6443, PrivateHostname: "kcp.internal.example.com", PrivatePort: port(9443)},
		},
		"PrivateHostnameOnly": {
			reason: "A private hostname without a port leaves the port unset: the RootShard defaults it to the public port, not the front-proxy's.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.External.PrivateHostname = "kcp.internal.example.com"
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "edge", External: &v1alpha1.InstallationExternal{Hostname: "edge.example.com", Port: 8443}}}
			},
			want: v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 6443, PrivateHostname: "kcp.internal.example.com"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			if tc.mod != nil {
				tc.mod(inst)
			}
			got := childSpec[v1alpha1.RootShardSpec](t, composeOK(t, inst), "team-a").External
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nRootShard spec.external: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestValidatePublic(t *testing.T) {
	public := func(port uint32, svc corev1.ServiceType) *v1alpha1.InstallationPublic {
		return &v1alpha1.InstallationPublic{PublicEndpoint: v1alpha1.PublicEndpoint{Hostname: "x.kcp.example.com", Port: port}, ServiceType: svc}
	}
	msg := "a LoadBalancer Service exposes the shard on port 6443: leave port unset, or set serviceType to ClusterIP and expose the name on this port yourself (TLS passthrough to 6443)"
	cases := map[string]struct {
		reason string
		root   *v1alpha1.InstallationPublic
		shards []*v1alpha1.InstallationPublic
		want   []string
	}{
		"DefaultPort": {
			reason: "Port unset is 6443, which the default LoadBalancer exposes.",
			root:   public(0, ""),
			shards: []*v1alpha1.InstallationPublic{public(0, corev1.ServiceTypeLoadBalancer)},
		},
		"Port6443": {
			reason: "6443 is the port a LoadBalancer exposes.",
			root:   public(6443, ""),
		},
		"OtherPortWithoutServiceType": {
			reason: "The default service type is LoadBalancer: another port would not be exposed.",
			root:   public(443, ""),
			want:   []string{"spec.rootShard.public.port: Invalid value: 443: " + msg},
		},
		"OtherPortWithLoadBalancer": {
			reason: "A shard's public port is checked at its index.",
			shards: []*v1alpha1.InstallationPublic{nil, public(8443, corev1.ServiceTypeLoadBalancer)},
			want:   []string{"spec.shards[1].public.port: Invalid value: 8443: " + msg},
		},
		"OtherPortBehindYourOwnExposure": {
			reason: "With ClusterIP or NodePort the user exposes the name on the port of their choice.",
			root:   public(443, corev1.ServiceTypeClusterIP),
			shards: []*v1alpha1.InstallationPublic{public(443, corev1.ServiceTypeNodePort)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			if tc.root != nil {
				inst.Spec.RootShard = &v1alpha1.InstallationRootShard{Public: tc.root}
			}
			for i, p := range tc.shards {
				inst.Spec.Shards = append(inst.Spec.Shards, v1alpha1.InstallationShard{Name: fmt.Sprintf("s%d", i), Public: p})
			}
			var got []string
			for _, e := range Validate(inst) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
