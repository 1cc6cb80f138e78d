package required

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func TestShardsOf(t *testing.T) {
	bySecret := func(name string) func(*v1alpha1.Shard) {
		return func(sh *v1alpha1.Shard) {
			sh.Spec.RootShard = v1alpha1.RootShardConfig{SecretRef: &corev1.LocalObjectReference{Name: name}}
		}
	}
	cases := map[string]struct {
		reason string
		shards []*v1alpha1.Shard
		want   []string
	}{
		"ByRef": {
			reason: "A Shard whose ref names the RootShard is one of its Shards; one naming another RootShard is not.",
			shards: []*v1alpha1.Shard{testworld.Shard("b"), testworld.Shard("a"), testworld.Shard("c", func(sh *v1alpha1.Shard) { sh.Spec.RootShard.Ref.Name = "other" })},
			want:   []string{"a", "b"},
		},
		"ByReferenceSecret": {
			reason: "A Shard naming the RootShard's own reference Secret <rs>-reference is one of its Shards.",
			shards: []*v1alpha1.Shard{testworld.Shard("b", bySecret("root-reference")), testworld.Shard("a")},
			want:   []string{"a", "b"},
		},
		"ByOtherSecret": {
			reason: "A Shard naming a Secret of another name is not known to be the RootShard's: another RootShard's reference, or a copy.",
			shards: []*v1alpha1.Shard{testworld.Shard("b", bySecret("other-reference")), testworld.Shard("c", bySecret("root-copy"))},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := testworld.New()
			for _, sh := range tc.shards {
				w.Object(sh)
			}
			var got []string
			for _, sh := range ShardsOf(w.State(), "root") {
				got = append(got, sh.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nShardsOf: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
