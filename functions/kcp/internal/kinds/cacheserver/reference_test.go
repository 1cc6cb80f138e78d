package cacheserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func TestReference(t *testing.T) {
	cases := map[string]struct {
		reason string
		cs     *v1alpha1.CacheServer
		want   map[string]string
	}{
		"ChecksClients": {
			reason: "A cache server publishes its URL and its CA, which verifies it and, as its kcp checks client certificates against it, is its client CA too.",
			cs:     basic(),
			want: map[string]string{"kind": "CacheServer", "name": "cache", "namespace": "kcp", "url": "https://cache-cache-server.kcp.svc.cluster.local:6443",
				"ca.crt": "PEM(cache-ca)", "client-ca.crt": "PEM(cache-ca)"},
		},
		"ChecksNoClients": {
			reason: "A kcp that runs the cache server without --client-ca-file checks no client certificate: no client-ca.crt.",
			cs:     basic(withTag("v0.30.1")),
			want: map[string]string{"kind": "CacheServer", "name": "cache", "namespace": "kcp", "url": "https://cache-cache-server.kcp.svc.cluster.local:6443",
				"ca.crt": "PEM(cache-ca)"},
		},
		"ClusterDomain": {
			reason: "Its URL is the one status.url reports.",
			cs:     basic(func(cs *v1alpha1.CacheServer) { cs.Spec.ClusterDomain = "corp.internal" }),
			want: map[string]string{"kind": "CacheServer", "name": "cache", "namespace": "kcp", "url": "https://cache-cache-server.kcp.svc.corp.internal:6443",
				"ca.crt": "PEM(cache-ca)", "client-ca.crt": "PEM(cache-ca)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.cs, nil)
			o, ok := r.Desired.Get("secret-reference")
			if !ok || o.Resource == nil {
				t.Fatalf("%s\nsecret-reference is not built; desired: %v", tc.reason, keys(&r.Desired))
			}
			s := o.Resource.(*corev1.Secret)
			got := map[string]string{}
			for k, v := range s.Data {
				got[k] = string(v)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ndata: -want, +got:\n%s", tc.reason, diff)
			}
			if got["url"] != r.Status.URL {
				t.Errorf("%s\nurl %q is not status.url %q", tc.reason, got["url"], r.Status.URL)
			}
			wantLabels := map[string]string{"operator.kcp.io/cache-server": "cache", "kcp.crossplane.io/reference": "CacheServer"}
			if diff := cmp.Diff(wantLabels, s.Labels); diff != "" {
				t.Errorf("%s\nlabels: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReferenceKeptWhileCAUnreadable(t *testing.T) {
	// cert-manager rewrites <cs>-ca, or the Secret is deleted by hand: the reference is kept
	// as it is, never rebuilt without ca.crt nor deleted.
	converged, w := converge(basic(), nil)
	r := composeOK(basic(), testworld.New().ComposedFrom(w).State())
	o, ok := r.Desired.Get("secret-reference")
	if !ok || o.Kept == nil {
		t.Errorf("the reference must be kept exactly as observed while the CA cannot be read; desired: %v", keys(&r.Desired))
	}
	if diff := cmp.Diff(keys(&converged.Desired), keys(&r.Desired)); diff != "" {
		t.Errorf("nothing may leave the desired set: -want, +got:\n%s", diff)
	}
}
