package rootshard

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestCertificateTemplateKeys holds the keys Validate warns against (leaf and CA keys under
// spec.certificateTemplates, proxy keys under spec.proxy.certificateTemplates) to the
// Certificates they are applied to: each key reaches one Certificate, and every Certificate a
// RootShard composes, through its CertificateSets, has a key.
func TestCertificateTemplateKeys(t *testing.T) {
	keys := append(slices.Clone(leafTemplateKeys), caTemplateKeys...)
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) {
		rs.Spec.CertificateTemplates = testworld.ProbeTemplates("", keys)
		rs.Spec.Proxy = &v1alpha1.RootShardProxySpec{CertificateTemplates: testworld.ProbeTemplates("proxy/", proxyTemplateKeys)}
	})
	r, _ := converge(rs, nil)
	want := testworld.Once("", keys)
	maps.Copy(want, testworld.Once("proxy/", proxyTemplateKeys))
	if diff := cmp.Diff(want, testworld.TemplateProbes(&r.Desired)); diff != "" {
		t.Errorf("Certificates per template key (\"\": no key reaches them): -want, +got:\n%s", diff)
	}
}
