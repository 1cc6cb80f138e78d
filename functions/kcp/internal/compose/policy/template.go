package policy

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Hold is how a certificate field a tenant sets is held to the policy.
type Hold int

const (
	// Harmless fields change how the certificate and its Secret are kept (labels, key
	// algorithm, renewal), not what the certificate proves nor who signs it.
	Harmless Hold = iota + 1
	// Issued fields choose who signs: allowed by data.issuers, as an installation's issuers.
	Issued
	// Widening fields change what the certificate proves (names, identity, CA, usages,
	// lifetime) or where its key is written: refused in a tenant's namespace.
	Widening
)

// rule is how one field is held; for a Widening field, what it would choose and the fix.
type rule struct {
	hold      Hold
	what, fix string
}

// The fixes name a Kubeconfig's fields: it is the only kind a tenant writes whose
// certificate template reaches a Certificate (tenants.go).
const (
	fixIdentity = "the client certificate's identity is spec.username and spec.groups"
	fixRemove   = "remove it: a client certificate needs none"
)

// certificateFields classifies every field of cert-manager's CertificateSpec (v1.21), by
// JSON name. A template reaches only some of them (v1alpha1.CertificateSpecTemplate); the
// others are classified too, so that adding one to the template is a decision already made,
// and a field cert-manager adds fails TestEveryCertificateFieldIsClassified until it is made.
var certificateFields = map[string]rule{
	"issuerRef": {hold: Issued},

	"subject":               {Widening, "its subject (the organizations are kcp groups)", "set the groups in spec.groups"},
	"literalSubject":        {Widening, "its whole subject", fixIdentity},
	"commonName":            {Widening, "its user", "set the user in spec.username"},
	"dnsNames":              {Widening, "DNS names", fixRemove},
	"ipAddresses":           {Widening, "IP addresses", fixRemove},
	"uris":                  {Widening, "URIs", fixRemove},
	"emailAddresses":        {Widening, "email addresses", fixRemove},
	"otherNames":            {Widening, "other names", fixRemove},
	"isCA":                  {Widening, "whether it is a CA", fixRemove},
	"usages":                {Widening, "its usages (server auth, signing, ...)", "remove it: the certificate is for client auth"},
	"encodeUsagesInRequest": {Widening, "whether the issuer sees its usages", fixRemove},
	"nameConstraints":       {Widening, "a CA's name constraints", fixRemove},
	"duration":              {Widening, "its lifetime", "set the lifetime in spec.validity"},
	"secretName":            {Widening, "the Secret its key is written to", "set the kubeconfig's Secret in spec.secretRef"},

	"secretTemplate":          {hold: Harmless},
	"privateKey":              {hold: Harmless},
	"renewBefore":             {hold: Harmless},
	"renewBeforePercentage":   {hold: Harmless},
	"revisionHistoryLimit":    {hold: Harmless},
	"renewal":                 {hold: Harmless}, // v1.21: delays or stops renewing only this certificate
	"signatureAlgorithm":      {hold: Harmless},
	"keystores":               {hold: Harmless},
	"additionalOutputFormats": {hold: Harmless},
}

// classify is how the field of JSON name is held. A field nobody classified is refused:
// what it does was never decided.
func classify(name string) rule {
	if r, ok := certificateFields[name]; ok {
		return r
	}
	return rule{Widening, "a field no one has classified yet (" + name + ")", "remove it, and report it: compose/policy/template.go must classify it"}
}

// setField is one field a template sets, by JSON name.
type setField struct {
	name  string
	value reflect.Value
}

// setFields lists the fields of a template's spec that change the Certificate. An empty
// list or an empty subject changes nothing, so it is not set.
func setFields(s *v1alpha1.CertificateSpecTemplate) []setField {
	if s == nil {
		return nil
	}
	v := reflect.ValueOf(*s)
	var out []setField
	for i := range v.NumField() {
		if isSet(v.Field(i)) {
			out = append(out, setField{name: JSONName(v.Type().Field(i)), value: v.Field(i)})
		}
	}
	return out
}

// issuerOf is the issuer reference an Issued field holds, nil when it holds none.
func issuerOf(f setField) *v1alpha1.ObjectReference {
	ref, _ := f.value.Interface().(*v1alpha1.ObjectReference)
	return ref
}

// isSet reports whether v holds anything: a pointer to something set, a non-empty list or
// map, or a non-zero value.
func isSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && isSet(v.Elem())
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	default:
		return !v.IsZero()
	}
}

// JSONName is the name of a struct field in JSON.
func JSONName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// TemplateNeedsPolicy reports whether whether t may be used depends on the policy: it sets a
// field that is not harmless, other than an Issuer of the namespace, which is always the
// tenant's own. Only such an XR reads the policy, so a plain one composes as before.
func TemplateNeedsPolicy(t *v1alpha1.CertificateTemplate) bool {
	if t == nil {
		return false
	}
	for _, f := range setFields(t.Spec) {
		switch classify(f.name).hold {
		case Harmless:
		case Issued:
			if ref := issuerOf(f); ref == nil || !OwnIssuer(*ref) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// CheckTemplate holds the certificate template at path of an XR in namespace to the policy.
// In a platform namespace everything passes, as kcp-operator passes it. In a tenant's, its
// issuer must be allowed as an installation's is, and no field may widen what the
// certificate proves: each is refused naming the field and the fix.
func (p Policy) CheckTemplate(path *field.Path, namespace, whose string, t *v1alpha1.CertificateTemplate) field.ErrorList {
	if t == nil || p.Platform(namespace) {
		return nil
	}
	var errs field.ErrorList
	spec := path.Child("spec")
	for _, f := range setFields(t.Spec) {
		r := classify(f.name)
		switch r.hold {
		case Harmless:
		case Issued:
			ref := issuerOf(f)
			if ref == nil {
				errs = append(errs, field.InternalError(spec.Child(f.name), fmt.Errorf("an issuer field of type %s", f.value.Type())))
				continue
			}
			errs = append(errs, p.CheckIssuer(spec.Child(f.name), namespace, whose, ref)...)
		default:
			errs = append(errs, field.Forbidden(spec.Child(f.name), fmt.Sprintf(
				"%s in namespace %s, a tenant's namespace, may not choose %s of the certificate: %s; if only the platform writes namespace %s, the platform team can list it in data.platformNamespaces of the platform's policy (%s %s)",
				whose, namespace, r.what, r.fix, namespace, Kind, Name)))
		}
	}
	return errs
}
