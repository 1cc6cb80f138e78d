package frontproxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func TestReference(t *testing.T) {
	reference := func(data map[string]string) *corev1.Secret {
		d := map[string][]byte{}
		for k, v := range data {
			d[k] = []byte(v)
		}
		return &corev1.Secret{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: "fp-reference", Namespace: "kcp",
				Labels: map[string]string{"operator.kcp.io/front-proxy": "fp", "kcp.crossplane.io/reference": "FrontProxy"}},
			Type: corev1.SecretTypeOpaque,
			Data: d,
		}
	}
	cases := map[string]struct {
		reason string
		fp     *v1alpha1.FrontProxy
		want   *corev1.Secret
	}{
		"RootShardsAddress": {
			reason: "A FrontProxy without an address of its own publishes its RootShard's public URL, the server CA that verifies it and the client CA a kubeconfig's certificate chains to.",
			fp:     frontProxy(),
			want: reference(map[string]string{"kind": "FrontProxy", "name": "fp", "namespace": "kcp", "url": "https://api.example.com:6443",
				"ca.crt": "PEM(root-server-ca)", "client-ca.crt": "PEM(root-client-ca)"}),
		},
		"OwnAddressAndCABundle": {
			reason: "Its own spec.external is its URL; spec.caBundleSecretRef joins the server CA in ca.crt, as in a kubeconfig to it. Its client CA bundles are not what a kubeconfig's certificate chains to.",
			fp: frontProxy(func(fp *v1alpha1.FrontProxy) {
				fp.Spec.External = v1alpha1.ExternalConfig{Hostname: "edge.example.com", Port: 443}
				fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "public-ca"}
				fp.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "fp-clients"}
			}),
			want: reference(map[string]string{"kind": "FrontProxy", "name": "fp", "namespace": "kcp", "url": "https://edge.example.com:443",
				"ca.crt": "PEM(root-server-ca)\nPEM(public-ca)", "client-ca.crt": "PEM(root-client-ca)"}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := converge(tc.fp, testworld.RootShard(), func(w *testworld.World) { w.Secret("public-ca", "fp-clients") })
			o, ok := r.Desired.Get("secret-reference")
			if !ok {
				t.Fatalf("%s\nsecret-reference is not desired; desired: %v", tc.reason, r.Desired.Names())
			}
			if diff := cmp.Diff(tc.want, o.Resource); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReferenceKeptWhileRootShardCAUnreadable(t *testing.T) {
	// The RootShard's server CA Secret cannot be read for a while: the reference is kept as
	// it is, never rebuilt without ca.crt nor deleted.
	converged := converge(frontProxy(), testworld.RootShard(), nil)
	w := testworld.New().Object(testworld.RootShard()).RootCAs().Settle(converged.Desired).Drop("Secret", "root-server-ca")
	r := composeOK(frontProxy(), w.State())
	o, ok := r.Desired.Get("secret-reference")
	if !ok || o.Kept == nil {
		t.Errorf("the reference must be kept exactly as observed while the server CA cannot be read")
	}
}
