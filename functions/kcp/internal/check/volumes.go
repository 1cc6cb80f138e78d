package check

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ExtraVolumes rejects extra volumes whose names clash with the generated ones, and extra
// mounts of volumes that do not exist: the API server would reject the Deployment.
// p is the field holding extraVolumes and extraVolumeMounts.
func ExtraVolumes(p *field.Path, generated []string, vols []corev1.Volume, mounts []corev1.VolumeMount) field.ErrorList {
	var errs field.ErrorList
	known := map[string]bool{}
	for _, n := range generated {
		known[n] = true
	}
	for i, v := range vols {
		if slices.Contains(generated, v.Name) {
			errs = append(errs, field.Duplicate(p.Child("extraVolumes").Index(i).Child("name"), v.Name))
		}
		known[v.Name] = true
	}
	for i, m := range mounts {
		if !known[m.Name] {
			errs = append(errs, field.NotFound(p.Child("extraVolumeMounts").Index(i).Child("name"), m.Name))
		}
	}
	return errs
}
