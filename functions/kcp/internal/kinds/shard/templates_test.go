package shard

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestCertificateTemplateKeys holds templateKeys, the keys Warnings accepts, to the
// Certificates composePKI applies templates to: each key reaches one Certificate, and every
// Certificate a Shard composes has a key.
func TestCertificateTemplateKeys(t *testing.T) {
	r := converge(shard(func(sh *v1alpha1.Shard) { sh.Spec.CertificateTemplates = testworld.ProbeTemplates("", templateKeys) }), testworld.RootShard(), nil)
	if diff := cmp.Diff(testworld.Once("", templateKeys), testworld.TemplateProbes(&r.Desired)); diff != "" {
		t.Errorf("Certificates per template key (\"\": no key reaches them): -want, +got:\n%s", diff)
	}
}

func TestWarnings(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.Shard)
		want   []string
	}{
		"Plain": {
			reason: "A Shard as the examples write it is not warned about.",
			mod:    func(*v1alpha1.Shard) {},
		},
		"UnknownTemplateKey": {
			reason: "A template under a key no certificate has is accepted, as kcp-operator accepts it, and applies to nothing: say so.",
			mod: func(sh *v1alpha1.Shard) {
				sh.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{"server": {}, "requestheader": {}}
			},
			want: []string{`spec.certificateTemplates["requestheader"] matches no certificate and is ignored; known keys: [server virtual-workspaces service-account client mounts-proxy logical-cluster-admin external-logical-cluster-admin]`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sh := shard()
			tc.mod(sh)
			if diff := cmp.Diff(tc.want, Warnings(sh)); diff != "" {
				t.Errorf("%s\nWarnings(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
