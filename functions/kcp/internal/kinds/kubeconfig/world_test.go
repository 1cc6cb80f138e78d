package kubeconfig

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// ns is the namespace of every object in these tests.
const ns = testworld.Namespace

// rootShard is testworld.RootShard with a private hostname.
func rootShard(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	private := func(rs *v1alpha1.RootShard) { rs.Spec.External.PrivateHostname = "api.internal" }
	return testworld.RootShard(append([]func(*v1alpha1.RootShard){private}, mods...)...)
}

func shardXR(mods ...func(*v1alpha1.Shard)) *v1alpha1.Shard {
	sh := &v1alpha1.Shard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard"},
		ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: ns},
		Spec: v1alpha1.ShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-alpha:2379"}}},
			RootShard:       v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
		},
	}
	for _, m := range mods {
		m(sh)
	}
	return sh
}

func frontProxy(mods ...func(*v1alpha1.FrontProxy)) *v1alpha1.FrontProxy {
	fp := &v1alpha1.FrontProxy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "FrontProxy"},
		ObjectMeta: metav1.ObjectMeta{Name: "edge", Namespace: ns},
		Spec: v1alpha1.FrontProxySpec{
			RootShard: v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
			External:  v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443},
		},
	}
	for _, m := range mods {
		m(fp)
	}
	return fp
}

func kubeconfigXR(mods ...func(*v1alpha1.Kubeconfig)) *v1alpha1.Kubeconfig {
	kc := &v1alpha1.Kubeconfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Kubeconfig"},
		ObjectMeta: metav1.ObjectMeta{Name: "admin", Namespace: ns, UID: "kc-uid", Labels: map[string]string{"team": "platform"}},
		Spec: v1alpha1.KubeconfigSpec{
			Target:    v1alpha1.KubeconfigTarget{RootShardRef: &corev1.LocalObjectReference{Name: "root"}},
			Username:  "alice",
			Groups:    []string{"system:kcp:admin", "ops", "ops"},
			Validity:  metav1.Duration{Duration: 8760 * time.Hour},
			SecretRef: corev1.LocalObjectReference{Name: "admin-kubeconfig"},
		},
	}
	for _, m := range mods {
		m(kc)
	}
	return kc
}

func toShard(name string) func(*v1alpha1.Kubeconfig) {
	return func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.Target = v1alpha1.KubeconfigTarget{ShardRef: &corev1.LocalObjectReference{Name: name}}
	}
}

func toFrontProxy(name string) func(*v1alpha1.Kubeconfig) {
	return func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.Target = v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: name}}
	}
}

// The client certificate's Secret data in table tests: the kubeconfig embeds it unchecked.
var (
	clientCrt = []byte("-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n")
	clientKey = []byte("-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n")
)

// installation adds to w a RootShard with its server CA Secret.
func installation(t testing.TB, w *testworld.World, rs *v1alpha1.RootShard) *testworld.World {
	fixtures(t)
	return w.Object(rs).SecretData(rs.Name+"-server-ca", map[string]string{"tls.crt": string(fixtureServerCA.chain), "ca.crt": string(fixtureRoot.root)})
}

// issued observes kc's client Certificate issued at revision, valid until notAfter, and the
// Secret cert-manager wrote for it.
func issued(w *testworld.World, kc *v1alpha1.Kubeconfig, revision int64, notAfter string, crt, key []byte) *testworld.World {
	name := "kubeconfig-cert-" + kc.Name
	w.Certificate(resource.Name("certificate-"+strings.TrimPrefix(name, kc.Name+"-")), name, testworld.Cert{Ready: true, Revision: revision, NotAfter: notAfter})
	return w.SecretData(name, map[string]string{"tls.crt": string(crt), "tls.key": string(key), "ca.crt": "ROOT"})
}

// compose composes kc, failing the test on validation errors.
func run(t *testing.T, kc *v1alpha1.Kubeconfig, w *testworld.World) Result {
	t.Helper()
	r, errs := Compose(kc, w.State())
	if len(errs) > 0 {
		t.Fatalf("Compose: unexpected errors: %v", errs)
	}
	return r
}

// kubeconfigData returns the kubeconfig the composed Secret holds.
func kubeconfigData(t *testing.T, r Result) string {
	t.Helper()
	o, ok := r.Desired.Get("secret-admin-kubeconfig")
	if !ok {
		t.Fatalf("secret-admin-kubeconfig is not desired; desired: %v, conditions: %+v", r.Desired.Names(), r.Conditions)
	}
	s, ok := o.Resource.(*corev1.Secret)
	if !ok {
		t.Fatalf("secret-admin-kubeconfig is kept, not built")
	}
	return string(s.Data[kubeconfigfile.SecretKey])
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
