package frontproxy

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

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

// converge composes until the desired set settles, with the RootShard and its CAs present
// and whatever extra adds.
func converge(fp *v1alpha1.FrontProxy, rs *v1alpha1.RootShard, extra func(*testworld.World)) Result {
	base := func() *testworld.World {
		w := testworld.New().Object(rs).RootCAs()
		if extra != nil {
			extra(w)
		}
		return w
	}
	r := composeOK(fp, base().State())
	for range 4 {
		r = composeOK(fp, base().Settle(r.Desired).State())
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
