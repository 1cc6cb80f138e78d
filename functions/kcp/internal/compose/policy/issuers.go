package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// cert-manager's own issuer group and kinds.
const (
	certManagerGroup = "cert-manager.io"
	kindIssuer       = "Issuer"
	everyIssuerName  = "*"
)

// Allows reports whether an XR in namespace may use the issuer ref. A cert-manager Issuer is
// always of the XR's own namespace (cert-manager reads it there), so the tenant's own.
func (p Policy) Allows(namespace string, ref v1alpha1.ObjectReference) bool {
	if OwnIssuer(ref) {
		return true
	}
	group, kind := IssuerGroupKind(ref)
	for _, a := range p.Issuers {
		g := a.Group
		if g == "" {
			g = certManagerGroup
		}
		if g == group && a.Kind == kind && (a.Name == everyIssuerName || a.Name == ref.Name) && listed(a.Namespaces, namespace) {
			return true
		}
	}
	return false
}

// OwnIssuer reports whether ref names a cert-manager Issuer, which cert-manager looks up in
// the namespace of the Certificate: the tenant's own, allowed without asking the policy.
func OwnIssuer(ref v1alpha1.ObjectReference) bool {
	group, kind := IssuerGroupKind(ref)
	return group == certManagerGroup && kind == kindIssuer
}

// IssuerGroupKind is the group and kind cert-manager reads from a reference: an empty group
// is cert-manager.io and an empty kind Issuer.
func IssuerGroupKind(ref v1alpha1.ObjectReference) (string, string) {
	group, kind := ref.Group, ref.Kind
	if group == "" {
		group = certManagerGroup
	}
	if kind == "" {
		kind = kindIssuer
	}
	return group, kind
}

// CheckIssuer refuses ref at path unless the policy allows it in namespace. whose names the
// XRs of the message ("installations", "Kubeconfigs").
func (p Policy) CheckIssuer(path *field.Path, namespace, whose string, ref *v1alpha1.ObjectReference) field.ErrorList {
	if ref == nil || p.Allows(namespace, *ref) {
		return nil
	}
	group, kind := IssuerGroupKind(*ref)
	return field.ErrorList{field.Forbidden(path, fmt.Sprintf(
		"%s %s (group %s) is not allowed for %s in namespace %s by the platform's policy (%s %s, data.issuers); use a cert-manager Issuer in namespace %s, or ask the platform team to allow this issuer there",
		kind, ref.Name, group, whose, namespace, Kind, Name, namespace))}
}
