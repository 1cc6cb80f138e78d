package frontproxy

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/observed"
)

func rootShard(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard"},
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "kcp"},
		Spec: v1alpha1.RootShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-root:2379"}}},
			External:        v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 6443},
			Certificates:    v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "selfsigned", Kind: "ClusterIssuer"}},
		},
	}
	for _, m := range mods {
		m(rs)
	}
	return rs
}

// shard is a Shard of RootShard root.
func shard(name string) *v1alpha1.Shard {
	return &v1alpha1.Shard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp"},
		Spec: v1alpha1.ShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-" + name + ":2379"}}},
			RootShard:       v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
		},
	}
}

// frontProxy is the smallest FrontProxy: "fp" of RootShard "root".
func frontProxy(mods ...func(*v1alpha1.FrontProxy)) *v1alpha1.FrontProxy {
	fp := &v1alpha1.FrontProxy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "FrontProxy"},
		ObjectMeta: metav1.ObjectMeta{Name: "fp", Namespace: "kcp"},
		Spec: v1alpha1.FrontProxySpec{
			RootShard: v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
		},
	}
	for _, m := range mods {
		m(fp)
	}
	return fp
}

// world is the observed state of one FrontProxy: composed resources and required objects.
type world struct {
	oc   map[resource.Name]resource.ObservedComposed
	reqs []map[string]any
}

func newWorld() *world { return &world{oc: map[resource.Name]resource.ObservedComposed{}} }

func (w *world) object(o any) *world {
	b, _ := json.Marshal(o)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	w.reqs = append(w.reqs, m)
	return w
}

func (w *world) secret(name string) *world {
	return w.object(map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": "kcp"},
		"data": map[string]any{"tls.crt": base64.StdEncoding.EncodeToString([]byte("PEM(" + name + ")"))},
	})
}

// rootCAs adds the Secrets of the RootShard's issued CAs.
func (w *world) rootCAs() *world {
	for _, s := range []string{"root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca", "root-service-account-ca"} {
		w.secret(s)
	}
	return w
}

func (w *world) put(key resource.Name, obj map[string]any) {
	u := composed.New()
	u.Object = obj
	w.oc[key] = resource.ObservedComposed{Resource: u}
}

// settle marks everything a composition desired as existing: certificates issued, Deployments
// available.
func (w *world) settle(r Result) *world {
	ready := []any{map[string]any{"type": "Ready", "status": "True"}}
	for _, o := range r.Desired.Objects() {
		switch obj := o.Resource.(type) {
		case *cmv1.Certificate:
			w.put(o.Name, map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
				"metadata": map[string]any{"name": obj.Name}, "status": map[string]any{"revision": int64(1), "conditions": ready}})
			w.secret(obj.Spec.SecretName)
		case *appsv1.Deployment:
			n := int64(*obj.Spec.Replicas)
			w.put(o.Name, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": obj.Name, "generation": int64(1)}, "spec": map[string]any{"replicas": n},
				"status": map[string]any{"observedGeneration": int64(1), "replicas": n, "updatedReplicas": n, "availableReplicas": n,
					"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}})
		default:
			if o.Resource != nil {
				cd, err := composed.From(o.Resource)
				if err != nil {
					panic(err)
				}
				w.oc[o.Name] = resource.ObservedComposed{Resource: cd}
			} else if o.Kept != nil {
				w.oc[o.Name] = resource.ObservedComposed{Resource: o.Kept}
			}
		}
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

// converge composes until the desired set settles, with the RootShard and its CAs present
// and whatever extra adds.
func converge(fp *v1alpha1.FrontProxy, rs *v1alpha1.RootShard, extra func(*world)) Result {
	base := func() *world {
		w := newWorld().object(rs).rootCAs()
		if extra != nil {
			extra(w)
		}
		return w
	}
	r := Compose(fp, base().state())
	for range 4 {
		r = Compose(fp, base().settle(r).state())
	}
	return r
}

func deployment(t *testing.T, r Result) *appsv1.Deployment {
	t.Helper()
	o, ok := r.Desired.Get("deployment-front-proxy")
	if !ok {
		t.Fatalf("deployment-front-proxy is not desired; desired: %v; conditions: %+v", r.Desired.Names(), r.Conditions)
	}
	d, ok := o.Resource.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("deployment-front-proxy is kept, not built")
	}
	return d
}
