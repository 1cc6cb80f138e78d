package check

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ExtraVolumes rejects extra volumes whose names clash with the generated ones, and extra
// mounts of volumes that do not exist: the API server would reject the Deployment.
// p is the field holding extraVolumes and extraVolumeMounts. allGenerated lists the
// generated volumes; it is called only when there is an extra volume or mount to check,
// since listing them builds the workload's mounts (for each child of an installation).
func ExtraVolumes(p *field.Path, allGenerated func() []string, vols []corev1.Volume, mounts []corev1.VolumeMount) field.ErrorList {
	if len(vols) == 0 && len(mounts) == 0 {
		return nil
	}
	var errs field.ErrorList
	generated := allGenerated()
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
		// Kubernetes admits Bidirectional only in a privileged container, and no container
		// of this package is one (Pod Security "restricted"): the Deployment would be refused
		// at every rollout, far from the field that caused it.
		if mp := m.MountPropagation; mp != nil && *mp == corev1.MountPropagationBidirectional {
			errs = append(errs, field.Forbidden(p.Child("extraVolumeMounts").Index(i).Child("mountPropagation"),
				`Bidirectional propagation needs a privileged container, and this package runs none (Pod Security "restricted"): use HostToContainer or None`))
		}
	}
	// Every kind's extra volumes pass here, the installation's children and a team's
	// VirtualWorkspace alike: the one place Kubernetes v1.37's volume fields are checked.
	return append(errs, VolumeOwners(p.Child("extraVolumes"), vols, p.Child("extraVolumeMounts"), mounts)...)
}
