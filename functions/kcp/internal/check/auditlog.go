package check

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// AuditLogVolume refuses an audit log volume that names no claim, as the schema does, for
// clients that skip it: a volume of another type (an emptyDir of any size) decodes to one
// without a claim, which must not become a pod the API server refuses naming no field.
func AuditLogVolume(p *field.Path, a *v1alpha1.AuditSpec) field.ErrorList {
	if a == nil || a.Log == nil || a.Log.Volume == nil {
		return nil
	}
	name := a.Log.Volume.ClaimName
	if name == "" {
		return field.ErrorList{field.Required(p.Child("claimName"), "name a PersistentVolumeClaim of the namespace, or remove volume for the emptyDir the package sizes; no other volume type is offered")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p.Child("claimName"), name, msg))
	}
	return errs
}
