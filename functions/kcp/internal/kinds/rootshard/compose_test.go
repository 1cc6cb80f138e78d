package rootshard

import (
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// Result is what Compose returns for a RootShard.
type Result = result.Result[v1alpha1.RootShardStatus]

// composeOK is Compose of a RootShard that passed Validate, which composes without errors: any
// error panics, failing the test.
func composeOK(rs *v1alpha1.RootShard, st *observed.State) Result {
	r, errs := Compose(rs, st)
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	// The tests look at the Certificates and Issuers themselves, not at the CertificateSets
	// that compose them (TestCertificateSets does).
	r.Desired = testworld.Flatten(r.Desired, st)
	return r
}

func TestCertificateSets(t *testing.T) {
	r, errs := Compose(testworld.RootShard(), testworld.New().State())
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	members := func(key resource.Name) []string {
		o, ok := r.Desired.Get(key)
		if !ok {
			t.Fatalf("%s is not composed", key)
		}
		var out []string
		u := o.Resource.(*resource.Unstructured)
		for _, list := range []string{"issuers", "certificates"} {
			ms, _, _ := unstructured.NestedSlice(u.Object, "spec", list)
			for _, m := range ms {
				out = append(out, m.(map[string]any)["key"].(string))
			}
		}
		return out
	}
	// Each set stays well under Crossplane's default burst of 100 watch events per XR:
	// cert-manager updates a Certificate about seven times while issuing it, an Issuer three.
	want := map[resource.Name][]string{
		"certificateset-ca-certs": {"issuer-ca", "issuer-server-ca", "issuer-client-ca", "issuer-requestheader-client-ca", "issuer-service-account-ca",
			"certificate-ca", "certificate-server-ca", "certificate-client-ca", "certificate-requestheader-client-ca", "certificate-service-account-ca"},
		"certificateset-serving-certs": {"certificate-server", "certificate-virtual-workspaces", "certificate-service-account", "certificate-proxy-server"},
		"certificateset-client-certs": {"certificate-logical-cluster-admin", "certificate-external-logical-cluster-admin", "certificate-client",
			"certificate-kcp-operator", "certificate-proxy-kubeconfig", "certificate-proxy-requestheader"},
	}
	for key, w := range want {
		if diff := cmp.Diff(w, members(key)); diff != "" {
			t.Errorf("CertificateSet %s: -want, +got members:\n%s", key, diff)
		}
	}
	for _, o := range r.Desired.Objects() {
		switch o.Resource.(type) {
		case *cmv1.Certificate, *cmv1.Issuer:
			t.Errorf("%s is composed by the RootShard itself, not through a CertificateSet", o.Name)
		}
	}
}

func TestCertificatesComposedBeforeSetsStay(t *testing.T) {
	// A RootShard made before CertificateSets existed composes its Certificates and Issuers
	// itself. They must stay its own: moved to a set they would be deleted and created again,
	// and with cert-manager's --enable-certificate-owner-ref their Secrets would go too.
	w := testworld.New().
		Certificate("certificate-server-ca", "root-server-ca", testworld.Cert{Ready: true, Revision: 1}).
		Put("issuer-server-ca", map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
			"metadata": map[string]any{"name": "root-server-ca", "namespace": testworld.Namespace}})
	r, errs := Compose(testworld.RootShard(), w.State())
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	for _, key := range []resource.Name{"certificate-server-ca", "issuer-server-ca"} {
		o, ok := r.Desired.Get(key)
		if !ok {
			t.Errorf("%s, composed by the RootShard itself, is no longer: Crossplane would delete it", key)
			continue
		}
		switch o.Resource.(type) {
		case *cmv1.Certificate, *cmv1.Issuer:
		default:
			t.Errorf("%s is composed as a %T, want the Certificate or Issuer itself", key, o.Resource)
		}
	}
	set, _ := r.Desired.Get("certificateset-ca-certs")
	u := set.Resource.(*resource.Unstructured)
	certs, _, _ := unstructured.NestedSlice(u.Object, "spec", "certificates")
	for _, c := range certs {
		if c.(map[string]any)["key"] == "certificate-server-ca" {
			t.Errorf("certificate-server-ca is in the CertificateSet too: two XRs would compose it")
		}
	}
}

func TestCertificateSetNamesAreLabelValues(t *testing.T) {
	// Crossplane labels what an XR composes with the XR's name: a set's name must be a valid
	// label value (at most 63 characters) for the longest RootShard name Validate admits.
	long := testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.Name = strings.Repeat("r", MaxNameLength) })
	r, errs := Compose(long, testworld.New().State())
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	for _, o := range r.Desired.Objects() {
		if u, ok := o.Resource.(*resource.Unstructured); ok && u.GetKind() == "CertificateSet" {
			for _, msg := range validation.IsValidLabelValue(u.GetName()) {
				t.Errorf("CertificateSet %s: %s", u.GetName(), msg)
			}
		}
	}
}
