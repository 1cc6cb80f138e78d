package check

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestObjectLimit: spec.objectLimit is refused where kcp would not start with it, and its scan
// interval is bounded. Who sets it: the owner of a RootShard or Shard, and a team on its own
// KcpInstallation. It reaches only its own shards' flags and no certificate or identity, so
// the platform's policy has nothing to decide; the hostile case is a team scanning an etcd it
// shares with others as fast as kcp allows (ScanTooOften).
func TestObjectLimit(t *testing.T) {
	p := field.NewPath("spec", "objectLimit")
	every := func(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
	cases := map[string]struct {
		reason string
		limit  *v1alpha1.ObjectLimit
		tag    string
		want   []string
	}{
		"None": {
			reason: "No limit is kcp's default on every version.",
			tag:    "v0.32.3",
		},
		"OldKCP": {
			reason: "kcp v0.32.3 has no such flag and would not start.",
			limit:  &v1alpha1.ObjectLimit{Total: 10000},
			tag:    "v0.32.3",
			want:   []string{"spec.objectLimit: Forbidden: kcp v0.32.3 has no --logical-cluster-total-object-limit and would not start with it (it comes with kcp's release after v0.32.3); remove it, or run kcp v0.33.0 or later (spec.image.tag)"},
		},
		"NextKCP": {
			reason: "kcp v0.33.0 takes the limit and the interval.",
			limit:  &v1alpha1.ObjectLimit{Total: 10000, ScanInterval: every(30 * time.Second)},
			tag:    "v0.33.0",
		},
		"ZeroTotal": {
			reason: "0 would mean no limit to kcp: the field's absence says that.",
			limit:  &v1alpha1.ObjectLimit{},
			tag:    "v0.33.0",
			want:   []string{"spec.objectLimit.total: Invalid value: 0: must be at least 1: remove objectLimit for no limit"},
		},
		"ScanTooOften": {
			reason: "Counting reads every key of the shard in etcd; an etcd shared with other installations must not be read every millisecond.",
			limit:  &v1alpha1.ObjectLimit{Total: 10000, ScanInterval: every(time.Millisecond)},
			tag:    "main",
			want:   []string{`spec.objectLimit.scanInterval: Invalid value: "1ms": must be at least 10s: every count reads all of the shard's keys in etcd; remove it for kcp's 1m`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range ObjectLimit(p, tc.limit, tc.tag, tc.tag != "v0.32.3") {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nObjectLimit(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
