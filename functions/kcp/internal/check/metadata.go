package check

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Templates refuses what the API server or cert-manager would refuse in a spec's templates,
// on the objects composed from them, where the message would name no field of the XR:
// invalid label and annotation keys and values (metadata and secret templates, a
// component's extra pod labels and annotations, a front-proxy's Service, node selectors), invalid tolerations, topology spread constraints and priority class names,
// a pod's user or group IDs that are root's or out of range,
// cert-manager.io annotations on a certificate's Secret, certificate lifetimes
// and key sizes cert-manager rejects, and names and addresses no certificate can hold.
//
// It walks the spec's JSON rather than each kind's fields, so a template is checked wherever
// a kind has one, including those added later.
func Templates(spec v1alpha1.Spec) field.ErrorList {
	raw, err := json.Marshal(spec)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	return walk(field.NewPath("spec"), m)
}

// walk checks the templates in v, found at p, and descends into everything else.
func walk(p *field.Path, v any) field.ErrorList {
	var errs field.ErrorList
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			switch k {
			case "certificateTemplates":
				m, _ := t[k].(map[string]any)
				child := p.Child(k)
				for _, key := range slices.Sorted(maps.Keys(m)) {
					errs = append(errs, certificateTemplate(child.Key(key), m[key])...)
				}
			case "certificateTemplate":
				errs = append(errs, certificateTemplate(p.Child(k), t[k])...)
			case "metadata":
				child := p.Child(k)
				errs = append(errs, labelsAndAnnotations(child, t[k])...)
				errs = append(errs, walk(child, t[k])...)
			case "monitoring":
				errs = append(errs, monitoring(p.Child(k), t[k])...)
			case "podLabels":
				errs = append(errs, metavalidation.ValidateLabels(stringMap(t[k]), p.Child(k))...)
			case "podAnnotations":
				errs = append(errs, apivalidation.ValidateAnnotations(stringMap(t[k]), p.Child(k))...)
			case "service":
				// A front-proxy's Service settings carry its annotations outside a metadata block.
				child := p.Child(k)
				if m, ok := t[k].(map[string]any); ok {
					errs = append(errs, apivalidation.ValidateAnnotations(stringMap(m["annotations"]), child.Child("annotations"))...)
				}
				errs = append(errs, walk(child, t[k])...)
			case "nodeSelector":
				errs = append(errs, metavalidation.ValidateLabels(stringMap(t[k]), p.Child(k))...)
			case "priorityClassName":
				errs = append(errs, priorityClassName(p.Child(k), t[k])...)
			case "tolerations":
				errs = append(errs, tolerations(p.Child(k), t[k])...)
			case "topologySpreadConstraints":
				errs = append(errs, topologySpreadConstraints(p.Child(k), t[k])...)
			case "securityContext":
				errs = append(errs, podSecurity(p.Child(k), t[k])...)
			default:
				// No path for a scalar, which holds nothing more to check: most fields of a
				// spec are scalars, and an installation walks each child's spec too.
				if isContainer(t[k]) {
					errs = append(errs, walk(p.Child(k), t[k])...)
				}
			}
		}
	case []any:
		for i, e := range t {
			if isContainer(e) {
				errs = append(errs, walk(p.Index(i), e)...)
			}
		}
	}
	return errs
}

// isContainer reports whether v, decoded JSON, is an object or a list.
func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// certificateTemplate checks one certificate template at p.
func certificateTemplate(p *field.Path, v any) field.ErrorList {
	var t v1alpha1.CertificateTemplate
	if raw, err := json.Marshal(v); err != nil || json.Unmarshal(raw, &t) != nil {
		return nil // the schema admitted it; the kind's own decoding reports what is wrong
	}
	var errs field.ErrorList
	if t.Metadata != nil {
		errs = append(errs, metavalidation.ValidateLabels(t.Metadata.Labels, p.Child("metadata", "labels"))...)
		errs = append(errs, apivalidation.ValidateAnnotations(t.Metadata.Annotations, p.Child("metadata", "annotations"))...)
	}
	s := t.Spec
	if s == nil {
		return errs
	}
	sp := p.Child("spec")
	errs = append(errs, DNSNames(sp.Child("dnsNames"), s.DNSNames)...)
	for i, ip := range s.IPAddresses {
		errs = append(errs, validation.IsValidIP(sp.Child("ipAddresses").Index(i), ip)...)
	}
	if st := s.SecretTemplate; st != nil {
		errs = append(errs, metavalidation.ValidateLabels(st.Labels, sp.Child("secretTemplate", "labels"))...)
		ap := sp.Child("secretTemplate", "annotations")
		for _, a := range slices.Sorted(maps.Keys(st.Annotations)) {
			switch {
			case strings.HasPrefix(a, "cert-manager.io/") && a != "cert-manager.io/allow-direct-injection":
				errs = append(errs, field.Invalid(ap.Key(a), a, "cert-manager.io/ annotations are cert-manager's own: cert-manager refuses them here"))
			case strings.HasPrefix(a, "crossplane.io/"):
				// crossplane.io/composition-resource-name on a Secret is how Crossplane knows a
				// composed object it refers to (a Kubeconfig's adopted certificate Secret).
				errs = append(errs, field.Invalid(ap.Key(a), a, "crossplane.io/ annotations are Crossplane's own: remove it"))
			}
		}
		errs = append(errs, apivalidation.ValidateAnnotations(st.Annotations, ap)...)
	}
	errs = append(errs, lifetime(sp, s)...)
	if pk := s.PrivateKey; pk != nil && pk.Size != 0 {
		errs = append(errs, keySize(sp.Child("privateKey", "size"), pk.Algorithm, pk.Size)...)
	}
	return errs
}

// lifetime refuses a duration or renewBefore cert-manager rejects. When the template sets
// only a duration, the composed Certificate renews at a third of it if the default
// renewBefore would not fit (pki.ApplyTemplate), so only what the template sets is checked.
func lifetime(p *field.Path, s *v1alpha1.CertificateSpecTemplate) field.ErrorList {
	var errs field.ErrorList
	if d := s.Duration; d != nil && d.Duration < cmv1.MinimumCertificateDuration {
		errs = append(errs, field.Invalid(p.Child("duration"), d.Duration.String(), fmt.Sprintf("must be at least %s: cert-manager rejects shorter certificates", cmv1.MinimumCertificateDuration)))
	}
	if r := s.RenewBefore; r != nil {
		switch {
		case r.Duration < cmv1.MinimumRenewBefore:
			errs = append(errs, field.Invalid(p.Child("renewBefore"), r.Duration.String(), fmt.Sprintf("must be at least %s: cert-manager rejects shorter ones", cmv1.MinimumRenewBefore)))
		case s.Duration != nil && r.Duration >= s.Duration.Duration:
			errs = append(errs, field.Invalid(p.Child("renewBefore"), r.Duration.String(), fmt.Sprintf("must be shorter than spec.duration (%s): the certificate would be renewed before it was issued", s.Duration.Duration)))
		}
	}
	return errs
}

// keySize refuses a private key size the algorithm does not have (RSA by default).
func keySize(p *field.Path, algorithm string, size int) field.ErrorList {
	switch algorithm {
	case "", "RSA":
		if size < 2048 || size > 8192 {
			return field.ErrorList{field.Invalid(p, size, "must be between 2048 and 8192 for an RSA key")}
		}
	case "ECDSA":
		if size != 256 && size != 384 && size != 521 {
			return field.ErrorList{field.NotSupported(p, size, []string{"256", "384", "521"})}
		}
	}
	return nil
}

// labelsAndAnnotations checks the labels and annotations of a metadata template.
func labelsAndAnnotations(p *field.Path, v any) field.ErrorList {
	m, _ := v.(map[string]any)
	var errs field.ErrorList
	errs = append(errs, metavalidation.ValidateLabels(stringMap(m["labels"]), p.Child("labels"))...)
	return append(errs, apivalidation.ValidateAnnotations(stringMap(m["annotations"]), p.Child("annotations"))...)
}

// stringMap is a JSON object of strings; other values are the schema's to refuse.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		if s, ok := val.(string); ok {
			out[k] = s
		}
	}
	return out
}
