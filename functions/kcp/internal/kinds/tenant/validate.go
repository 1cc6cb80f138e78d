package tenant

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
)

// Validate checks what the XRD schema cannot; every error names the field and the fix.
func Validate(t *v1alpha1.Tenant) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if sharing.Namespace(t) == t.GetNamespace() {
		p, fix := spec.Child("namespace"), "name the team's namespace"
		if t.Spec.Namespace == "" {
			p, fix = field.NewPath("metadata", "name"), "set spec.namespace to the team's namespace"
		}
		errs = append(errs, field.Invalid(p, sharing.Namespace(t), "a Tenant shares the installation of its namespace with another namespace, not its own: "+fix))
	}
	if p := t.Spec.IdentityPrefix; p != "" {
		errs = append(errs, sharing.CheckPrefix(spec.Child("identityPrefix"), p)...)
	}
	if m := t.Spec.Limits.MaxValidity; m != nil && m.Duration <= 0 {
		errs = append(errs, field.Invalid(spec.Child("limits", "maxValidity"), m.Duration.String(), "must be positive, e.g. 720h"))
	}
	errs = append(errs, validateAPIs(spec.Child("apis"), t.Spec.APIs)...)
	return append(errs, sharing.CheckBindings(spec.Child("clusterRoleBindings"), t.Spec.ClusterRoleBindings)...)
}
