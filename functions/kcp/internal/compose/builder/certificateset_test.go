package builder

import (
	"encoding/json"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// TestCertificateSetMatchesJSON holds the set a builder grows member by member to the set
// composed whole from its typed spec, each member and the spec through a JSON round trip as
// XR composes any spec: the same object, numbers included (the private key's size).
func TestCertificateSetMatchesJSON(t *testing.T) {
	labels := map[string]string{"app": "kcp"}
	b := New("root", "kcp", observedState(nil))
	b.InCertificateSet("cas", labels)
	var spec v1alpha1.CertificateSetSpec
	member := func(key string, obj runtime.Object) v1alpha1.CertificateSetMember {
		u, err := desired.ToComposed(obj)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		return v1alpha1.CertificateSetMember{Key: key, Resource: runtime.RawExtension{Raw: raw}}
	}
	for _, c := range []*cmv1.Certificate{
		pki.CA("root-ca", "kcp", pki.IssuerRef("selfsigned"), labels, map[string]string{"s": "v"}),
		pki.Leaf{Name: "root-server", Namespace: "kcp", DNSNames: []string{"a", "b"}, Usages: pki.UsagesServing, Issuer: "root-ca", Labels: labels}.Certificate(),
	} {
		spec.Certificates = append(spec.Certificates, member(string(b.Key("certificate", c.Name)), c.DeepCopy()))
		b.Certificate(c, nil)
	}
	iss := pki.CAIssuer("root-ca", "kcp", "root-ca", labels)
	spec.Issuers = append(spec.Issuers, member("issuer-ca", iss.DeepCopy()))
	b.Issuer(iss)

	whole := New("root", "kcp", observedState(nil))
	if _, err := whole.XR("certificateset-cas", "CertificateSet", "root-cas", labels, spec); err != nil {
		t.Fatal(err)
	}
	want, _ := whole.Set.Get("certificateset-cas")
	got, ok := b.Set.Get("certificateset-cas")
	if !ok {
		t.Fatal("no CertificateSet composed")
	}
	if diff := cmp.Diff(want.Resource.(*resource.Unstructured).Object, got.Resource.(*resource.Unstructured).Object); diff != "" {
		t.Errorf("CertificateSet grown member by member: -composed whole, +got:\n%s", diff)
	}
}
