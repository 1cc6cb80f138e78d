package certificateset

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func member(key, kind, name, namespace string) v1alpha1.CertificateSetMember {
	obj := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": namespace}}
	if kind == "Certificate" {
		obj["spec"] = map[string]any{"secretName": name, "issuerRef": map[string]any{"name": "root-server-ca"}}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return v1alpha1.CertificateSetMember{Key: key, Resource: runtime.RawExtension{Raw: raw}}
}

func set(issuers, certificates []v1alpha1.CertificateSetMember) *v1alpha1.CertificateSet {
	return &v1alpha1.CertificateSet{
		ObjectMeta: metav1.ObjectMeta{Name: "root-serving-certs", Namespace: testworld.Namespace},
		Spec:       v1alpha1.CertificateSetSpec{Issuers: issuers, Certificates: certificates},
	}
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		set    *v1alpha1.CertificateSet
		want   []string
	}{
		"Valid": {
			reason: "Issuers and Certificates of cert-manager.io/v1 in the set's namespace, each key once.",
			set: set([]v1alpha1.CertificateSetMember{member("issuer-server-ca", "Issuer", "root-server-ca", "")},
				[]v1alpha1.CertificateSetMember{member("certificate-server", "Certificate", "root-server", testworld.Namespace)}),
		},
		"WrongKind": {
			reason: "Only Certificates go in spec.certificates: a set composes nothing else.",
			set:    set(nil, []v1alpha1.CertificateSetMember{member("secret-x", "Secret", "x", "")}),
			want:   []string{"spec.certificates[0].resource"},
		},
		"OtherNamespace": {
			reason: "A set composes only into its own namespace.",
			set:    set(nil, []v1alpha1.CertificateSetMember{member("certificate-server", "Certificate", "root-server", "other")}),
			want:   []string{"spec.certificates[0].resource.metadata.namespace"},
		},
		"DuplicateKey": {
			reason: "A key names one composed resource.",
			set: set([]v1alpha1.CertificateSetMember{member("x", "Issuer", "a", "")},
				[]v1alpha1.CertificateSetMember{member("x", "Certificate", "b", "")}),
			want: []string{"spec.certificates[0].key"},
		},
		"NoName": {
			reason: "Every object needs a name.",
			set:    set([]v1alpha1.CertificateSetMember{member("issuer-x", "Issuer", "", "")}, nil),
			want:   []string{"spec.issuers[0].resource.metadata.name"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.set) {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...) fields: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCompose(t *testing.T) {
	s := set([]v1alpha1.CertificateSetMember{member("issuer-server-ca", "Issuer", "root-server-ca", "")},
		[]v1alpha1.CertificateSetMember{
			member("certificate-server", "Certificate", "root-server", ""),
			member("certificate-virtual-workspaces", "Certificate", "root-virtual-workspaces", ""),
		})
	issuerReady := func(w *testworld.World) *testworld.World {
		return w.Put("issuer-server-ca", map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
			"metadata": map[string]any{"name": "root-server-ca", "namespace": testworld.Namespace},
			"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}})
	}
	issued := func(w *testworld.World, revision int64) *testworld.World {
		return w.Certificate("certificate-server", "root-server", testworld.Cert{Ready: true, Revision: revision, NotAfter: "2027-01-01T00:00:00Z"}).
			Certificate("certificate-virtual-workspaces", "root-virtual-workspaces", testworld.Cert{Ready: true, Revision: 1, NotAfter: "2027-01-01T00:00:00Z"})
	}
	cases := map[string]struct {
		reason    string
		world     *testworld.World
		wantReady map[resource.Name]resource.Ready
		wantCerts []v1alpha1.IssuedCertificate
		wantCond  bool
	}{
		"Fresh": {
			reason: "Nothing issued: every member composed, none ready, no certificate reported.",
			world:  testworld.New(),
			wantReady: map[resource.Name]resource.Ready{"issuer-server-ca": resource.ReadyFalse,
				"certificate-server": resource.ReadyFalse, "certificate-virtual-workspaces": resource.ReadyFalse},
		},
		"IssuerNotReady": {
			reason: "Every certificate issued but an Issuer not ready: the set is not done, and reports nothing yet.",
			world:  issued(testworld.New(), 1),
			wantReady: map[resource.Name]resource.Ready{"issuer-server-ca": resource.ReadyFalse,
				"certificate-server": resource.ReadyTrue, "certificate-virtual-workspaces": resource.ReadyTrue},
		},
		"AllIssued": {
			reason: "Everything issued and ready: the set reports every certificate with its revision, once.",
			world:  issued(issuerReady(testworld.New()), 1),
			wantReady: map[resource.Name]resource.Ready{"issuer-server-ca": resource.ReadyTrue,
				"certificate-server": resource.ReadyTrue, "certificate-virtual-workspaces": resource.ReadyTrue},
			wantCerts: []v1alpha1.IssuedCertificate{
				{Key: "certificate-server", Revision: 1, NotAfter: "2027-01-01T00:00:00Z"},
				{Key: "certificate-virtual-workspaces", Revision: 1, NotAfter: "2027-01-01T00:00:00Z"},
			},
			wantCond: true,
		},
		"Renewed": {
			reason: "A renewal raises one revision: that is the status change the composing XR rolls its pods on.",
			world:  issued(issuerReady(testworld.New()), 2),
			wantReady: map[resource.Name]resource.Ready{"issuer-server-ca": resource.ReadyTrue,
				"certificate-server": resource.ReadyTrue, "certificate-virtual-workspaces": resource.ReadyTrue},
			wantCerts: []v1alpha1.IssuedCertificate{
				{Key: "certificate-server", Revision: 2, NotAfter: "2027-01-01T00:00:00Z"},
				{Key: "certificate-virtual-workspaces", Revision: 1, NotAfter: "2027-01-01T00:00:00Z"},
			},
			wantCond: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(s, tc.world.State())
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			got := map[resource.Name]resource.Ready{}
			for _, o := range r.Desired.Objects() {
				got[o.Name] = o.Ready
			}
			if diff := cmp.Diff(tc.wantReady, got); diff != "" {
				t.Errorf("%s\nreadiness: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantCerts, r.Status.Certificates); diff != "" {
				t.Errorf("%s\nstatus.certificates: -want, +got:\n%s", tc.reason, diff)
			}
			if len(r.Conditions) != 1 || r.Conditions[0].Type != condition.TypeCertificatesReady || r.Conditions[0].Status != tc.wantCond {
				t.Errorf("%s\nconditions %+v, want CertificatesReady=%v", tc.reason, r.Conditions, tc.wantCond)
			}
		})
	}
}

// The condition's message must not change while the set is issued: each change would be a
// status write, and a watch event for the set and for the XR composing it.
func TestComposeMessageStable(t *testing.T) {
	s := set(nil, []v1alpha1.CertificateSetMember{
		member("certificate-server", "Certificate", "root-server", ""),
		member("certificate-virtual-workspaces", "Certificate", "root-virtual-workspaces", ""),
	})
	none, _ := Compose(s, testworld.New().State())
	one, _ := Compose(s, testworld.New().Certificate("certificate-server", "root-server", testworld.Cert{Ready: true, Revision: 1}).State())
	if diff := cmp.Diff(none.Conditions, one.Conditions); diff != "" {
		t.Errorf("CertificatesReady changed when one of two certificates was issued: -none, +one:\n%s", diff)
	}
}
