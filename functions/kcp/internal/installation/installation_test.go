package installation

import (
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/observed"
)

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
	"Certificate/team-a-etcd-client-ca", "Issuer/team-a-etcd-client-ca", "Certificate/team-a-etcd-peer-ca", "Issuer/team-a-etcd-peer-ca",
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
			want: want{errs: []string{"spec.frontProxies[0]: Invalid value", "the FrontProxy a-very-long-installation-name-public this composes"}},
		},
		"NoHostname": {
			inst: noHost,
			want: want{errs: []string{"spec.external.hostname: Required value"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.inst, observed.New(nil))
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
	oc := map[resource.Name]resource.ObservedComposed{}
	for key, kind := range map[resource.Name]string{"rootshard": "RootShard", "frontproxy-public": "FrontProxy", "kubeconfig-admin": "Kubeconfig"} {
		u := composed.New()
		u.SetKind(kind)
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}, "url": "https://kcp.example.com:443"}
		oc[key] = resource.ObservedComposed{Resource: u}
	}
	r, errs := Compose(inst, observed.New(oc))
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
