package virtualworkspace

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestCertificateTemplateKeys holds templateKeys, the keys Warnings accepts, to the
// Certificates the virtual workspace's PKI applies templates to: each key reaches one
// Certificate, and every Certificate a VirtualWorkspace composes has a key.
func TestCertificateTemplateKeys(t *testing.T) {
	vw := virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
		vw.Spec.CertificateTemplates = testworld.ProbeTemplates("", templateKeys)
	})
	r, _ := converge(vw, withRoot(testworld.RootShard()))
	if diff := cmp.Diff(testworld.Once("", templateKeys), testworld.TemplateProbes(&r.Desired)); diff != "" {
		t.Errorf("Certificates per template key (\"\": no key reaches them): -want, +got:\n%s", diff)
	}
}
