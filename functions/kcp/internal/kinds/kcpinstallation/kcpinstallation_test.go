package kcpinstallation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// frontProxyNameLength stands in for fn.go's table of kinds, which checks every child with
// its own kind's validation (fn's TestRunFunctionFatal runs the real one): it rejects a
// FrontProxy named longer than 30 characters, as the FrontProxy kind rejects a name too long
// for the volumes it derives from it and its RootShard's name.
func frontProxyNameLength(kind string, xr any) field.ErrorList {
	if fp, ok := xr.(*v1alpha1.FrontProxy); ok && kind == "FrontProxy" && len(fp.Name) > 30 {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), fp.Name, "too long")}
	}
	return nil
}

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
