package cacheserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestCertificateTemplateKeys holds templateKeys, the keys Warnings accepts, to the
// Certificates the cache server's PKI applies templates to: each key reaches one Certificate,
// and every Certificate a CacheServer composes has a key.
func TestCertificateTemplateKeys(t *testing.T) {
	r, _ := converge(basic(func(cs *v1alpha1.CacheServer) {
		cs.Spec.CertificateTemplates = testworld.ProbeTemplates("", templateKeys)
	}), nil)
	if diff := cmp.Diff(testworld.Once("", templateKeys), testworld.TemplateProbes(&r.Desired)); diff != "" {
		t.Errorf("Certificates per template key (\"\": no key reaches them): -want, +got:\n%s", diff)
	}
}
