package kubeconfig

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// policyData is the platform's policy object with data.
func policyData(data map[string]any) map[string]any {
	return map[string]any{"apiVersion": policy.APIVersion, "kind": policy.Kind, "metadata": map[string]any{"name": policy.Name}, "data": data}
}

// answered records that Crossplane answered the policy requirement, with the policy if any.
func answered(p map[string]any) func(*testworld.World) {
	return func(w *testworld.World) {
		w.Answer(policy.Requirement.Key())
		if p != nil {
			w.Object(p)
		}
	}
}

// platformNamespace makes this tests' namespace the platform's: templates pass unchecked.
var platformNamespace = answered(policyData(map[string]any{"platformNamespaces": []any{ns}}))

// issuerAllowed is a policy allowing one ClusterIssuer in namespaces.
func issuerAllowed(group, kind, name string, namespaces ...any) map[string]any {
	return policyData(map[string]any{"issuers": []any{map[string]any{"group": group, "kind": kind, "name": name, "namespaces": namespaces}}})
}

// withTemplate sets spec.certificateTemplate.spec.
func withTemplate(s v1alpha1.CertificateSpecTemplate) func(*v1alpha1.Kubeconfig) {
	return func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.CertificateTemplate = &v1alpha1.CertificateTemplate{Spec: &s}
	}
}

func clusterIssuer(name string) *v1alpha1.ObjectReference {
	return &v1alpha1.ObjectReference{Name: name, Kind: "ClusterIssuer", Group: "cert-manager.io"}
}

// TestTenantCertificateTemplate holds a Kubeconfig's certificate template to the platform's
// policy: in a tenant's namespace (every namespace the policy does not list as the
// platform's) its issuer must be allowed and nothing may widen what the certificate proves.
func TestTenantCertificateTemplate(t *testing.T) {
	corp := clusterIssuer("corp-root-ca")
	hostile := v1alpha1.CertificateSpecTemplate{
		IssuerRef:   corp,
		Subject:     &v1alpha1.X509Subject{Organizations: []string{"system:masters"}},
		DNSNames:    []string{"kcp.other-team.example.com"},
		IPAddresses: []string{"10.0.0.1"},
		Duration:    &metav1.Duration{Duration: 87600 * time.Hour},
	}
	cases := map[string]struct {
		reason string
		spec   v1alpha1.CertificateSpecTemplate
		world  func(*testworld.World)
		// errs are the refused fields, below spec.certificateTemplate.spec; each message
		// must hold msg.
		errs []string
		msg  string
		// issuer is the composed Certificate's issuer when nothing is refused.
		issuer string
		// waits is set when nothing may be composed until Crossplane answers the policy.
		waits bool
	}{
		"NotAnsweredYet": {
			reason: "Until Crossplane answers the policy a new Kubeconfig composes nothing: its Certificate would come from the hostile template.",
			spec:   hostile,
			world:  func(*testworld.World) {},
			waits:  true,
		},
		"ClusterIssuerNotAllowed": {
			reason: "The platform's CA ClusterIssuer is not in the policy: refused, naming the field, the policy and the fix.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: corp},
			world:  answered(issuerAllowed("", "ClusterIssuer", "kcp-selfsigned", "*")),
			errs:   []string{"issuerRef"},
			msg:    "ClusterIssuer corp-root-ca (group cert-manager.io) is not allowed for Kubeconfigs in namespace kcp by the platform's policy (EnvironmentConfig kcp-self-service, data.issuers); use a cert-manager Issuer in namespace kcp, or ask the platform team to allow this issuer there",
		},
		"NoPolicy": {
			reason: "Without a policy object every namespace is a tenant's, and only its own Issuers are allowed.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: corp},
			world:  answered(nil),
			errs:   []string{"issuerRef"},
			msg:    "is not allowed for Kubeconfigs in namespace kcp",
		},
		"AllowedForAnotherNamespaceOnly": {
			reason: "An issuer allowed in team-b is not allowed in this namespace.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: corp},
			world:  answered(issuerAllowed("", "ClusterIssuer", "corp-root-ca", "team-b")),
			errs:   []string{"issuerRef"},
			msg:    "is not allowed for Kubeconfigs in namespace kcp",
		},
		"AllowedEverywhere": {
			reason: "An issuer allowed in every namespace (\"*\") may sign the client certificate.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: corp},
			world:  answered(issuerAllowed("", "ClusterIssuer", "corp-root-ca", "*")),
			issuer: "corp-root-ca",
		},
		"AllowedByNameStar": {
			reason: "An issuer allowed as every ClusterIssuer (name \"*\") in this namespace may sign it.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: corp},
			world:  answered(issuerAllowed("cert-manager.io", "ClusterIssuer", "*", ns)),
			issuer: "corp-root-ca",
		},
		"OtherGroup": {
			reason: "An issuer of another group acts with its controller's rights: allowing cert-manager's ClusterIssuers does not allow it.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: &v1alpha1.ObjectReference{Name: "pca", Kind: "AWSPCAClusterIssuer", Group: "awspca.cert-manager.io"}},
			world:  answered(issuerAllowed("", "ClusterIssuer", "*", "*")),
			errs:   []string{"issuerRef"},
			msg:    "AWSPCAClusterIssuer pca (group awspca.cert-manager.io) is not allowed for Kubeconfigs in namespace kcp",
		},
		"OtherGroupCalledIssuer": {
			reason: "A kind named Issuer of another group is not cert-manager's namespaced Issuer.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: &v1alpha1.ObjectReference{Name: "pca", Kind: "Issuer", Group: "awspca.cert-manager.io"}},
			world:  answered(nil),
			errs:   []string{"issuerRef"},
			msg:    "Issuer pca (group awspca.cert-manager.io) is not allowed",
		},
		"OwnIssuer": {
			reason: "A cert-manager Issuer of the namespace is the tenant's own: allowed without reading the policy.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: &v1alpha1.ObjectReference{Name: "team-ca", Kind: "Issuer"}},
			issuer: "team-ca",
		},
		"OwnIssuerWithDNSNames": {
			reason: "The tenant's own Issuer is allowed, but not DNS names in a client certificate.",
			spec:   v1alpha1.CertificateSpecTemplate{IssuerRef: &v1alpha1.ObjectReference{Name: "team-ca", Kind: "Issuer", Group: "cert-manager.io"}, DNSNames: []string{"kcp.example.com"}},
			world:  answered(nil),
			errs:   []string{"dnsNames"},
			msg:    "Kubeconfigs in namespace kcp, a tenant's namespace, may not choose DNS names of the certificate: remove it: a client certificate needs none; if only the platform writes namespace kcp, the platform team can list it in data.platformNamespaces of the platform's policy (EnvironmentConfig kcp-self-service)",
		},
		"SystemMasters": {
			reason: "Organizations are kcp groups: system:masters through the subject is refused, pointing at spec.groups.",
			spec:   v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{Organizations: []string{"system:masters"}}},
			world:  answered(nil),
			errs:   []string{"subject"},
			msg:    "set the groups in spec.groups",
		},
		"SubjectSerialNumber": {
			reason: "Any part of the subject is refused, not only organizations.",
			spec:   v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{SerialNumber: "1"}},
			world:  answered(nil),
			errs:   []string{"subject"},
			msg:    "its subject",
		},
		"Duration": {
			reason: "The lifetime is spec.validity's.",
			spec:   v1alpha1.CertificateSpecTemplate{Duration: &metav1.Duration{Duration: 87600 * time.Hour}},
			world:  answered(nil),
			errs:   []string{"duration"},
			msg:    "set the lifetime in spec.validity",
		},
		"IPAddresses": {
			reason: "A client certificate needs no IP addresses.",
			spec:   v1alpha1.CertificateSpecTemplate{IPAddresses: []string{"10.0.0.1"}},
			world:  answered(nil),
			errs:   []string{"ipAddresses"},
			msg:    "IP addresses",
		},
		"EverythingAtOnce": {
			reason: "Every refused field is named, each once.",
			spec:   hostile,
			world:  answered(nil),
			errs:   []string{"subject", "dnsNames", "ipAddresses", "issuerRef", "duration"},
			msg:    "namespace kcp",
		},
		"PlatformNamespace": {
			reason: "In a namespace the policy lists as the platform's, the template keeps kcp-operator's freedom.",
			spec:   hostile,
			world:  platformNamespace,
			issuer: "corp-root-ca",
		},
		"PlatformNamespacesStar": {
			reason: "\"*\" is no namespace: it does not make every tenant the platform.",
			spec:   v1alpha1.CertificateSpecTemplate{DNSNames: []string{"kcp.example.com"}},
			world:  answered(policyData(map[string]any{"platformNamespaces": []any{"*"}})),
			errs:   []string{"dnsNames"},
			msg:    "DNS names",
		},
		"PolicyUnreadable": {
			reason: "A policy that cannot be read allows nothing it would decide: refused, saying so.",
			spec:   v1alpha1.CertificateSpecTemplate{DNSNames: []string{"kcp.example.com"}},
			world:  answered(policyData(map[string]any{"platformNamespaces": "all"})),
			errs:   []string{""},
			msg:    "the platform's policy (EnvironmentConfig kcp-self-service, data) cannot be read",
		},
		"Harmless": {
			reason: "Labels, the Secret's metadata, the key and renewal change nothing the certificate proves: allowed without reading the policy.",
			spec: v1alpha1.CertificateSpecTemplate{
				SecretTemplate: &v1alpha1.CertificateSecretTemplate{Labels: map[string]string{"cost": "1"}},
				PrivateKey:     &v1alpha1.CertificatePrivateKeyTemplate{Algorithm: "ECDSA", Size: 384},
				RenewBefore:    &metav1.Duration{Duration: time.Hour},
				DNSNames:       []string{}, // empty: adds nothing
			},
			issuer: "root-client-ca",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := installation(t, testworld.New(), rootShard())
			if tc.world != nil {
				tc.world(w)
			}
			r, errs := Compose(kubeconfigXR(withTemplate(tc.spec)), w.State())
			var got []string
			for _, e := range errs {
				got = append(got, strings.TrimPrefix(strings.TrimPrefix(e.Field, "spec.certificateTemplate"), ".spec."))
				if !strings.Contains(e.Error(), tc.msg) {
					t.Errorf("%s\n%s: message %q does not say %q", tc.reason, e.Field, e.Error(), tc.msg)
				}
			}
			if diff := cmp.Diff(tc.errs, got); diff != "" {
				t.Errorf("%s\nrefused fields: -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 {
				return
			}
			required := slices.Contains(r.Requirements, policy.Requirement)
			if want := tc.world != nil; required != want {
				t.Errorf("%s\nthe policy is required: %v, want %v (only a template that sets a field it decides reads it)", tc.reason, required, want)
			}
			if tc.waits {
				if names := r.Desired.Names(); len(names) > 0 {
					t.Errorf("%s\nnothing may be composed before the policy is read, got %v", tc.reason, names)
				}
				return
			}
			if got := desiredCertificate(t, r.Desired, "certificate-kubeconfig-cert-admin").Spec.IssuerRef.Name; got != tc.issuer {
				t.Errorf("%s\nthe Certificate's issuer = %s, want %s", tc.reason, got, tc.issuer)
			}
		})
	}
}

// TestTenantTemplateKeepsWhatWasComposed: a Kubeconfig that composed its Certificate and
// kubeconfig turned hostile. Until the policy is read everything is kept exactly as composed
// and nothing new is composed; once read, it is refused (Fatal: Crossplane applies and
// deletes nothing).
func TestTenantTemplateKeepsWhatWasComposed(t *testing.T) {
	systemMasters := withTemplate(v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{Organizations: []string{"system:masters"}}, IssuerRef: clusterIssuer("corp-root-ca")})
	cases := map[string]struct {
		reason string
		world  func(*testworld.World)
		// refused are the fields refused; none while the policy is not read.
		refused []string
	}{
		"PolicyNotAnswered": {
			reason: "Crossplane has not answered the policy yet: everything is kept as observed, the Certificate is not changed to the hostile one.",
			world:  func(*testworld.World) {},
		},
		"PolicyRefuses": {
			reason: "The policy is read and refuses: the Kubeconfig is refused, naming each field.",
			world:  answered(nil),
			refused: []string{
				"spec.certificateTemplate.spec.subject",
				"spec.certificateTemplate.spec.issuerRef",
			},
		},
		"PolicyRefusesTargetGone": {
			reason: "A refusal does not wait for the target: it is refused whatever the target is.",
			world:  func(w *testworld.World) { answered(nil)(w); w.Drop("RootShard", "root") },
			refused: []string{
				"spec.certificateTemplate.spec.subject",
				"spec.certificateTemplate.spec.issuerRef",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := kubeconfigXR()
			before, w := converged(t, kc, installation(t, testworld.New(), rootShard()))
			observed := map[string]any{}
			for _, key := range before.Desired.Names() {
				observed[string(key)] = w.Composed(key).Object
			}
			systemMasters(kc)
			tc.world(w)
			r, errs := Compose(kc, w.State())
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tc.refused, got); diff != "" {
				t.Errorf("%s\nrefused: -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 {
				return // Fatal: nothing is applied, nothing deleted.
			}
			if diff := cmp.Diff(before.Desired.Names(), r.Desired.Names()); diff != "" {
				t.Errorf("%s\nthe desired set must not shrink: -want, +got:\n%s", tc.reason, diff)
			}
			for _, key := range r.Desired.Names() {
				o, _ := r.Desired.Get(key)
				if key == adoptKey {
					continue // composed metadata-only, never as observed (TestAdoptCertificateSecret)
				}
				if o.Kept == nil {
					t.Errorf("%s\n%s must be kept exactly as observed, not rebuilt", tc.reason, key)
				} else if diff := cmp.Diff(jsonOf(t, observed[string(key)]), jsonOf(t, o.Kept.Object)); diff != "" {
					t.Errorf("%s\n%s must be kept exactly as observed: -observed, +kept:\n%s", tc.reason, key, diff)
				}
			}
			in := r.Conditions[1]
			want := "Waiting for the platform's policy (EnvironmentConfig kcp-self-service), which decides whether spec.certificateTemplate may be used in namespace kcp. Everything composed so far is kept unchanged meanwhile."
			if !slices.Contains(r.Requirements, policy.Requirement) {
				t.Errorf("%s\nthe policy must be required: %v", tc.reason, r.Requirements)
			}
			if in.Type != condition.TypeInputsReady || in.Message != want {
				t.Errorf("%s\nInputsReady = %+v, want message %q", tc.reason, in, want)
			}
		})
	}
}

// jsonOf is v as JSON, so numbers compare whether observed (float64) or built (int64).
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
