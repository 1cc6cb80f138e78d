package names

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestRootCASecret(t *testing.T) {
	cases := map[string]struct {
		reason string
		certs  v1alpha1.Certificates
		want   string
	}{
		"Issued":   {reason: "A root CA cert-manager issues lives in <rs>-ca.", certs: v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "x"}}, want: "root-ca"},
		"Provided": {reason: "Quirk 5 fixed: a CA the user provides is mounted from its own Secret.", certs: v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "corp-ca"}}, want: "corp-ca"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rs := &v1alpha1.RootShard{ObjectMeta: metav1.ObjectMeta{Name: "root"}, Spec: v1alpha1.RootShardSpec{Certificates: tc.certs}}
			if got := RootCASecret(rs); got != tc.want {
				t.Errorf("%s\nRootCASecret(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestCacheServerOf(t *testing.T) {
	ref := func(n string) *corev1.LocalObjectReference { return &corev1.LocalObjectReference{Name: n} }
	withCache := &v1alpha1.RootShard{Spec: v1alpha1.RootShardSpec{Cache: v1alpha1.CacheConfig{Ref: ref("root-cache")}}}
	cases := map[string]struct {
		reason string
		sh     *v1alpha1.Shard
		rs     *v1alpha1.RootShard
		want   string
	}{
		"Embedded":   {reason: "Without a CacheServer anywhere the root shard is the cache.", rs: &v1alpha1.RootShard{}, want: ""},
		"RootShards": {reason: "The root shard's own components use its CacheServer.", rs: withCache, want: "root-cache"},
		"Inherited":  {reason: "A shard without its own uses its RootShard's.", sh: &v1alpha1.Shard{}, rs: withCache, want: "root-cache"},
		"ShardsOwn":  {reason: "A shard's own spec.cache.ref wins.", sh: &v1alpha1.Shard{Spec: v1alpha1.ShardSpec{Cache: &v1alpha1.ShardCacheConfig{Ref: ref("alpha-cache")}}}, rs: withCache, want: "alpha-cache"},
		"ShardEmpty": {reason: "A shard's spec.cache without a ref is no choice.", sh: &v1alpha1.Shard{Spec: v1alpha1.ShardSpec{Cache: &v1alpha1.ShardCacheConfig{}}}, rs: withCache, want: "root-cache"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CacheServerOf(tc.sh, tc.rs); got != tc.want {
				t.Errorf("%s\nCacheServerOf(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
