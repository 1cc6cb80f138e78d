package check

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// maxID is the largest user or group ID Kubernetes accepts in a pod.
const maxID = 2147483647

// podSecurity refuses a pod's user or group ID that is root's (0: "restricted" refuses user
// 0, and group 0 would give the containers root's group) or one Kubernetes refuses, and a
// supplemental group listed twice. The schema says the same; a render, which no API server
// checks, hears it from here.
func podSecurity(p *field.Path, v any) field.ErrorList {
	var sc v1alpha1.PodSecurity
	if !decode(v, &sc) {
		return nil
	}
	var errs field.ErrorList
	id := func(fp *field.Path, n *int64) {
		if n != nil && (*n < 1 || *n > maxID) {
			errs = append(errs, field.Invalid(fp, *n, fmt.Sprintf("must be between 1 and %d: 0 is root's, and every pod the package composes runs as a non-root user", maxID)))
		}
	}
	id(p.Child("runAsUser"), sc.RunAsUser)
	id(p.Child("runAsGroup"), sc.RunAsGroup)
	id(p.Child("fsGroup"), sc.FSGroup)
	seen := map[int64]bool{}
	for i, g := range sc.SupplementalGroups {
		id(p.Child("supplementalGroups").Index(i), &g)
		if seen[g] {
			errs = append(errs, field.Duplicate(p.Child("supplementalGroups").Index(i), g))
		}
		seen[g] = true
	}
	return errs
}
