package check

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// DisruptionBudget refuses a PodDisruptionBudget that would let none of a component's pods
// go (p is the podDisruptionBudget field): every drain of a node its pods run on would wait
// forever, which in a tenant's installation holds up the platform's node upgrades.
// replicas is the component's spec.replicas, or nil for its default (defaultReplicas); with
// fewer than 2 no budget is composed, so there is nothing to refuse.
func DisruptionBudget(p *field.Path, replicas *int32, defaultReplicas int32, b *v1alpha1.DisruptionBudget) field.ErrorList {
	if b == nil || b.MinAvailable == nil {
		return nil
	}
	n := defaultReplicas
	if replicas != nil {
		n = *replicas
	}
	f := p.Child("minAvailable")
	keep, err := intstr.GetScaledValueFromIntOrPercent(b.MinAvailable, int(n), true)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(f, b.MinAvailable.String(), "must be a number of pods or a percentage such as 50%")}
	case keep < 0:
		return field.ErrorList{field.Invalid(f, b.MinAvailable.String(), "must not be negative")}
	case n >= 2 && keep >= int(n):
		return field.ErrorList{field.Invalid(f, b.MinAvailable.String(), fmt.Sprintf(
			"keeps all %d pods, so no node they run on could ever be drained: keep fewer than %d (a percentage rounds up), or remove it to let one pod go at a time", n, n))}
	}
	return nil
}
