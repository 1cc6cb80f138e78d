package kcpserver

import (
	"slices"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
)

func TestGeneratedFlags(t *testing.T) {
	plain := &v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"https://etcd:2379"}}, ExtraArgs: []string{"--feature-gates=X=true"}}
	cases := map[string]struct {
		reason string
		server Server
		want   []string
		absent []string
	}{
		"RootShard": {
			reason: "A plain root shard's flags include those its spec does not switch on (oidc, audit, etcd TLS), and never its extra arguments.",
			server: Server{Name: "root", IsRoot: true, Spec: plain},
			want: []string{"client-ca-file", "etcd-servers", "etcd-prefix", "etcd-certfile", "tls-cert-file", "tls-sni-cert-key", "requestheader-client-ca-file", "service-account-key-file", "root-directory", "cache-kubeconfig", "oidc-issuer-url", "authentication-config", "authorization-webhook-config-file", "audit-policy-file", "token-auth-file", "shard-base-url", "shard-virtual-workspace-url", "run-virtual-workspaces", "v",
				"logical-cluster-total-object-limit", "logical-cluster-object-count-scan-interval"},
			absent: []string{"feature-gates", "shard-name", "mount-proxy-client-cert-file"},
		},
		"Shard": {
			reason: "A shard also names itself and mounts the proxy's certificate; kcp-operator's --external-hostname is not written for a kcp that ignores it (0.31 and later).",
			server: Server{Name: "alpha", Spec: plain},
			want:   []string{"shard-name", "root-shard-kubeconfig-file", "mount-proxy-client-cert-file"},
			absent: []string{"feature-gates", "external-hostname"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.server.GeneratedFlags()
			for _, f := range tc.want {
				if !slices.Contains(got, f) {
					t.Errorf("%s\nGeneratedFlags() lacks %s: %v", tc.reason, f, got)
				}
			}
			for _, f := range tc.absent {
				if slices.Contains(got, f) {
					t.Errorf("%s\nGeneratedFlags() has %s: %v", tc.reason, f, got)
				}
			}
			for _, f := range check.FlagNames(tc.server.Args()) {
				if f != "feature-gates" && !slices.Contains(got, f) {
					t.Errorf("%s\nGeneratedFlags() lacks %s, which Args() renders", tc.reason, f)
				}
			}
		})
	}
}
