package kubeconfig

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

const ns = "kcp"

func rootShard(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard"},
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: ns},
		Spec: v1alpha1.RootShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-root:2379"}}},
			External:        v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 6443, PrivateHostname: "api.internal"},
			Certificates:    v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "selfsigned", Kind: "ClusterIssuer"}},
		},
	}
	for _, m := range mods {
		m(rs)
	}
	return rs
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
		kc.Spec.Target = v1alpha1.KubeconfigTarget{FrontProxyRef: &corev1.LocalObjectReference{Name: name}}
	}
}

// The client certificate's Secret data in table tests: the kubeconfig embeds it unchecked.
var (
	clientCrt = []byte("-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n")
	clientKey = []byte("-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n")
)

// world is the observed state of one Kubeconfig: composed resources and required objects.
type world struct {
	oc   map[resource.Name]*resource.Unstructured
	reqs map[string]map[string]any
}

func newWorld() *world {
	return &world{oc: map[resource.Name]*resource.Unstructured{}, reqs: map[string]map[string]any{}}
}

func (w *world) object(o any) *world {
	b, _ := json.Marshal(o)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	md := m["metadata"].(map[string]any)
	w.reqs[m["kind"].(string)+"/"+md["name"].(string)] = m
	return w
}

func (w *world) without(kind, name string) *world {
	delete(w.reqs, kind+"/"+name)
	return w
}

func (w *world) secret(name string, data map[string][]byte) *world {
	enc := map[string]any{}
	for k, v := range data {
		enc[k] = base64.StdEncoding.EncodeToString(v)
	}
	return w.object(map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": ns, "resourceVersion": "1"},
		"data": enc,
	})
}

// installation adds a RootShard with its server CA Secret.
func (w *world) installation(t testing.TB, rs *v1alpha1.RootShard) *world {
	fixtures(t)
	return w.object(rs).secret(rs.Name+"-server-ca", map[string][]byte{"tls.crt": fixtureServerCA.chain, "ca.crt": fixtureRoot.root})
}

// issued marks the client Certificate issued and writes its Secret.
func (w *world) issued(kc *v1alpha1.Kubeconfig, revision int64, notAfter string, crt, key []byte) *world {
	name := "kubeconfig-cert-" + kc.Name
	w.put(resource.Name("certificate-"+strings.TrimPrefix(name, kc.Name+"-")), map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"status": map[string]any{"revision": revision, "notAfter": notAfter,
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}})
	return w.secret(name, map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": []byte("ROOT")})
}

func (w *world) put(key resource.Name, obj map[string]any) {
	u := resource.NewUnstructured()
	u.Object = obj
	w.oc[key] = u
}

// settle records everything a composition desired as observed, as Crossplane would after
// applying it; Certificates keep their observed status.
func (w *world) settle(r Result) *world {
	for _, o := range r.Desired.Objects() {
		if _, ok := o.Resource.(*cmv1.Certificate); ok && w.oc[o.Name] != nil {
			continue
		}
		var u *resource.Unstructured
		if o.Kept != nil {
			u = o.Kept
		} else {
			cd, err := desired.ToComposed(o.Resource)
			if err != nil {
				panic(err)
			}
			u = cd
		}
		w.oc[o.Name] = u
	}
	return w
}

func (w *world) state() *observed.State {
	st := observed.New(w.oc)
	for _, r := range w.reqs {
		st.WithObject(r)
	}
	return st
}

// compose composes kc, failing the test on validation errors.
func run(t *testing.T, kc *v1alpha1.Kubeconfig, w *world) Result {
	t.Helper()
	r, errs := Compose(kc, w.state())
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
	return string(s.Data[SecretKey])
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
