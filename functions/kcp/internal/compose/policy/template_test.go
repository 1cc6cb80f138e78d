package policy

import (
	"reflect"
	"slices"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// jsonNames lists the JSON names of a struct type's fields.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		out = append(out, JSONName(t.Field(i)))
	}
	return out
}

// TestEveryCertificateFieldIsClassified fails when cert-manager's CertificateSpec gains a
// field, or loses one, that certificateFields does not classify: what a new field lets a
// certificate prove must be decided before a template can reach it.
func TestEveryCertificateFieldIsClassified(t *testing.T) {
	got := jsonNames(reflect.TypeFor[cmv1.CertificateSpec]())
	slices.Sort(got)
	var want []string
	for name := range certificateFields {
		want = append(want, name)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cert-manager's CertificateSpec fields: -classified in certificateFields, +in cert-manager; classify each new one (Harmless, Issued or Widening) in template.go:\n%s", diff)
	}
}

// TestEveryTemplateFieldIsClassified fails when the template gains a field that is not a
// classified CertificateSpec field: CheckTemplate would refuse it as unclassified.
func TestEveryTemplateFieldIsClassified(t *testing.T) {
	for _, name := range jsonNames(reflect.TypeFor[v1alpha1.CertificateSpecTemplate]()) {
		if _, ok := certificateFields[name]; !ok {
			t.Errorf("v1alpha1.CertificateSpecTemplate.%s is no classified CertificateSpec field: classify it in template.go", name)
		}
	}
	// The rest of a template is metadata: labels and annotations of the Certificate, which
	// prove nothing. A new part must be looked at here.
	if diff := cmp.Diff([]string{"metadata", "spec"}, jsonNames(reflect.TypeFor[v1alpha1.CertificateTemplate]())); diff != "" {
		t.Errorf("v1alpha1.CertificateTemplate's parts: -known, +now; decide how CheckTemplate holds a new one:\n%s", diff)
	}
}

// TestWideningFields pins what a tenant may not choose: everything that changes what the
// certificate proves, as the design decided it.
func TestWideningFields(t *testing.T) {
	var got []string
	for name, r := range certificateFields {
		if r.hold == Widening {
			got = append(got, name)
			if r.what == "" || r.fix == "" {
				t.Errorf("%s is refused without saying what it chooses and the fix", name)
			}
		}
	}
	slices.Sort(got)
	want := []string{"commonName", "dnsNames", "duration", "emailAddresses", "encodeUsagesInRequest", "ipAddresses", "isCA", "literalSubject",
		"nameConstraints", "otherNames", "secretName", "subject", "uris", "usages"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("widening fields: -want, +got:\n%s", diff)
	}
}

func TestCheckTemplate(t *testing.T) {
	corp := &v1alpha1.ObjectReference{Name: "corp-root-ca", Kind: "ClusterIssuer", Group: "cert-manager.io"}
	spec := field.NewPath("spec", "certificateTemplate")
	cases := map[string]struct {
		reason    string
		policy    Policy
		namespace string
		template  *v1alpha1.CertificateTemplate
		want      field.ErrorList
		needs     bool
	}{
		"None": {
			reason:    "No template: nothing to hold, no policy to read.",
			namespace: "team-a",
		},
		"MetadataOnly": {
			reason:    "Labels and annotations of the Certificate prove nothing.",
			namespace: "team-a",
			template:  &v1alpha1.CertificateTemplate{Metadata: &v1alpha1.CertificateMetadataTemplate{Labels: map[string]string{"a": "b"}}},
		},
		"EmptySubject": {
			reason:    "An empty subject adds nothing.",
			namespace: "team-a",
			template:  &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{}}},
		},
		"SubjectInTenantNamespace": {
			reason:    "Organizations are groups: refused, naming the field and the fix.",
			namespace: "team-a",
			template:  &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{Organizations: []string{"system:masters"}}}},
			want: field.ErrorList{field.Forbidden(spec.Child("spec", "subject"),
				"Kubeconfigs in namespace team-a, a tenant's namespace, may not choose its subject (the organizations are kcp groups) of the certificate: set the groups in spec.groups; if only the platform writes namespace team-a, the platform team can list it in data.platformNamespaces of the platform's policy (EnvironmentConfig kcp-self-service)")},
			needs: true,
		},
		"SubjectInPlatformNamespace": {
			reason:    "A namespace only the platform writes keeps kcp-operator's freedom.",
			policy:    Policy{PlatformNamespaces: []string{"kcp-platform"}},
			namespace: "kcp-platform",
			template:  &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{Organizations: []string{"system:masters"}}, IssuerRef: corp}},
			needs:     true,
		},
		"ClusterIssuerAllowed": {
			reason:    "An allowed ClusterIssuer passes; whether it is allowed needs the policy.",
			policy:    Policy{Issuers: []AllowedIssuer{{Kind: "ClusterIssuer", Name: "corp-root-ca", Namespaces: []string{"team-a"}}}},
			namespace: "team-a",
			template:  &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{IssuerRef: corp, RenewBefore: &metav1.Duration{Duration: time.Hour}}},
			needs:     true,
		},
		"OwnIssuer": {
			reason:    "The namespace's Issuer is the tenant's own: no policy needed.",
			namespace: "team-a",
			template:  &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{IssuerRef: &v1alpha1.ObjectReference{Name: "mine"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.policy.CheckTemplate(spec, tc.namespace, "Kubeconfigs", tc.template)); diff != "" {
				t.Errorf("%s\nCheckTemplate: -want, +got:\n%s", tc.reason, diff)
			}
			if got := TemplateNeedsPolicy(tc.template); got != tc.needs {
				t.Errorf("%s\nTemplateNeedsPolicy = %v, want %v", tc.reason, got, tc.needs)
			}
		})
	}
}

// TestUnclassifiedIsRefused: a field nobody classified is refused, never let through.
func TestUnclassifiedIsRefused(t *testing.T) {
	if got := classify("somethingNew"); got.hold != Widening {
		t.Errorf("an unclassified field must be refused, got hold %v", got.hold)
	}
}
