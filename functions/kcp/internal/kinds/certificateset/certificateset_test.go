package certificateset

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
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
		reason     string
		world      *testworld.World
		wantStatus v1alpha1.CertificateSetStatus
	}{
		"Fresh": {
			reason: "Nothing issued: no certificate reported.",
			world:  testworld.New(),
		},
		"IssuerNotReady": {
			reason: "Every certificate issued but an Issuer not ready: the set is not done, and reports nothing yet.",
			world:  issued(testworld.New(), 1),
		},
		"AllIssued": {
			reason: "Everything issued and ready: the set reports every certificate with its revision, once.",
			world:  issued(issuerReady(testworld.New()), 1),
			wantStatus: v1alpha1.CertificateSetStatus{Issued: true, Certificates: []v1alpha1.IssuedCertificate{
				{Key: "certificate-server", Revision: 1, NotAfter: "2027-01-01T00:00:00Z"},
				{Key: "certificate-virtual-workspaces", Revision: 1, NotAfter: "2027-01-01T00:00:00Z"},
			}},
		},
		"Renewed": {
			reason: "A renewal raises one revision: that is the status change the composing XR rolls its pods on.",
			world:  issued(issuerReady(testworld.New()), 2),
			wantStatus: v1alpha1.CertificateSetStatus{Issued: true, Certificates: []v1alpha1.IssuedCertificate{
				{Key: "certificate-server", Revision: 2, NotAfter: "2027-01-01T00:00:00Z"},
				{Key: "certificate-virtual-workspaces", Revision: 1, NotAfter: "2027-01-01T00:00:00Z"},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(s, tc.world.State())
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			if diff := cmp.Diff(tc.wantStatus, r.Status); diff != "" {
				t.Errorf("%s\nstatus: -want, +got:\n%s", tc.reason, diff)
			}
			// Nothing of the set changes but its status: every member counts as ready once
			// applied, and the set has no condition (Compose's comment says why).
			if len(r.Conditions) != 0 {
				t.Errorf("%s\nconditions %+v, want none", tc.reason, r.Conditions)
			}
			var got []resource.Name
			for _, o := range r.Desired.Objects() {
				if o.Ready != resource.ReadyTrue {
					t.Errorf("%s\n%s is %v, want ready once applied", tc.reason, o.Name, o.Ready)
				}
				got = append(got, o.Name)
			}
			if diff := cmp.Diff([]resource.Name{"issuer-server-ca", "certificate-server", "certificate-virtual-workspaces"}, got); diff != "" {
				t.Errorf("%s\ncomposed: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
