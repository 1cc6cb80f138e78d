package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestEverything(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    []string
		want   []string
	}{
		"EveryAuditFlag": {
			reason: "With every field of the audit spec set, every audit flag is rendered: a field added later gets its flag listed without a change here.",
			got:    Audit(Everything[v1alpha1.AuditSpec]()).Args,
			want: []string{
				"--audit-policy-file=/etc/kcp/audit/policy/x",
				"--audit-webhook-batch-buffer-size=1", "--audit-webhook-batch-max-size=1", "--audit-webhook-batch-max-wait=1ns",
				"--audit-webhook-batch-throttle-burst=1", "--audit-webhook-batch-throttle-enable", "--audit-webhook-batch-throttle-qps=x",
				"--audit-webhook-initial-backoff=1ns", "--audit-webhook-mode=x", "--audit-webhook-truncate-enabled",
				"--audit-webhook-truncate-max-batch-size=1", "--audit-webhook-truncate-max-event-size=1", "--audit-webhook-version=x",
				"--audit-webhook-config-file=/etc/kcp/audit/webhook/kubeconfig",
			},
		},
		"EveryEtcdFlag": {
			reason: "With TLS and a prefix, every etcd flag.",
			got:    Etcd(*Everything[v1alpha1.EtcdConfig]()).Args,
			want:   []string{"--etcd-servers=x", "--etcd-prefix=x", "--etcd-certfile=/etc/etcd/tls/tls.crt", "--etcd-keyfile=/etc/etcd/tls/tls.key", "--etcd-cafile=/etc/etcd/tls/ca.crt"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
