package kubeconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestTargetNamingRootShardBySecret: a Kubeconfig to a Shard or FrontProxy that names its
// RootShard by the reference Secret follows that Secret, and writes the kubeconfig it writes
// when the RootShard XR is named.
func TestTargetNamingRootShardBySecret(t *testing.T) {
	bySecret := v1alpha1.RootShardConfig{SecretRef: &corev1.LocalObjectReference{Name: "root-reference"}}
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig
		target func(secretRef bool) any
	}{
		"FrontProxy": {
			reason: "The front-proxy's URL and the RootShard's server CA are the same, however the front-proxy names its RootShard.",
			kc:     kubeconfigXR(toFrontProxy("edge")),
			target: func(secretRef bool) any {
				return frontProxy(func(fp *v1alpha1.FrontProxy) {
					if secretRef {
						fp.Spec.RootShard = bySecret
					}
				})
			},
		},
		"Shard": {
			reason: "The shard's URL and the RootShard's server CA are the same, however the shard names its RootShard.",
			kc:     kubeconfigXR(toShard("alpha")),
			target: func(secretRef bool) any {
				return shardXR(func(sh *v1alpha1.Shard) {
					if secretRef {
						sh.Spec.RootShard = bySecret
					}
				})
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kubeconfig := func(secretRef bool) string {
				rs := rootShard()
				w := installation(t, testworld.New(), rs).Object(tc.target(secretRef))
				if secretRef {
					r := reference.OfRootShard(rs, rs.GetNamespace(), rs.Status.Image)
					r.CA, r.ClientCA = testworld.CAPEM(), testworld.CAPEM()
					data := map[string]string{}
					for k, v := range r.Data() {
						data[k] = string(v)
					}
					w.Drop("RootShard", rs.Name).SecretData("root-reference", data)
				}
				return kubeconfigData(t, run(t, tc.kc, issued(w, tc.kc, 1, "2030-01-01T00:00:00Z", clientCrt, clientKey)))
			}
			if diff := cmp.Diff(kubeconfig(false), kubeconfig(true)); diff != "" {
				t.Errorf("%s\n-by the RootShard XR, +by its reference Secret:\n%s", tc.reason, diff)
			}
		})
	}
}
