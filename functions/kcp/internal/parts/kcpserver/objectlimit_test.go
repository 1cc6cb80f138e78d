package kcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestObjectLimitArgs(t *testing.T) {
	cases := map[string]struct {
		reason string
		limit  *v1alpha1.ObjectLimit
		want   []string
	}{
		"None": {
			reason: "Without spec.objectLimit no flag is added: kcp v0.32.3 would not start with one.",
		},
		"Total": {
			reason: "The total alone leaves kcp's scan interval.",
			limit:  &v1alpha1.ObjectLimit{Total: 10000},
			want:   []string{"--logical-cluster-total-object-limit=10000"},
		},
		"TotalAndInterval": {
			reason: "The interval is a Go duration, as kcp's flag parses it.",
			limit:  &v1alpha1.ObjectLimit{Total: 500, ScanInterval: &metav1.Duration{Duration: 90 * time.Second}},
			want:   []string{"--logical-cluster-total-object-limit=500", "--logical-cluster-object-count-scan-interval=1m30s"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := Server{Name: "root", IsRoot: true, Spec: &v1alpha1.CommonShardSpec{
				Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"https://etcd:2379"}}, ObjectLimit: tc.limit,
				ExtraArgs: []string{"--v=4"},
			}}
			args := s.Args()
			var got []string
			for _, a := range args {
				if strings.HasPrefix(a, "--logical-cluster-total-") || strings.HasPrefix(a, "--logical-cluster-object-") {
					got = append(got, a)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nArgs() object limit flags: -want, +got:\n%s", tc.reason, diff)
			}
			if args[len(args)-1] != "--v=4" {
				t.Errorf("%s\nArgs() must end with the extra arguments, which may override the limit; ends with %q", tc.reason, args[len(args)-1])
			}
		})
	}
}
