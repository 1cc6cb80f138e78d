package kcpinstallation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
)

// validateManagedEtcd refuses what the API server would refuse in the etcd StatefulSet the
// installation composes; its children check the rest with their own kinds' validation.
func validateManagedEtcd(e *v1alpha1.InstallationEtcd) field.ErrorList {
	if e == nil || e.Managed == nil {
		return nil
	}
	p := field.NewPath("spec", "etcd", "managed")
	m := e.Managed
	var errs field.ErrorList
	errs = append(errs, check.ImageReference(p.Child("image"), m.Image)...)
	errs = append(errs, check.Resources(p.Child("resources"), m.Resources)...)
	if s := m.Storage; s != nil {
		errs = append(errs, check.PositiveQuantity(p.Child("storage", "size"), s.Size)...)
	}
	return errs
}
