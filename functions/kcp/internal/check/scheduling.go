package check

import (
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// priorityClassName refuses a name no PriorityClass can have.
func priorityClassName(p *field.Path, v any) field.ErrorList {
	name, _ := v.(string)
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// tolerations refuses what the API server refuses in a pod's tolerations, which would
// otherwise surface only on the composed Deployment.
func tolerations(p *field.Path, v any) field.ErrorList {
	var ts []corev1.Toleration
	if !decode(v, &ts) {
		return nil
	}
	var errs field.ErrorList
	for i, t := range ts {
		tp := p.Index(i)
		if t.Key != "" {
			errs = append(errs, metavalidation.ValidateLabelName(t.Key, tp.Child("key"))...)
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if t.Key == "" {
				errs = append(errs, field.Invalid(tp.Child("operator"), t.Operator, "must be Exists when key is empty, which tolerates every taint"))
			}
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, msg))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, "must be empty when operator is Exists"))
			}
		default:
			errs = append(errs, field.NotSupported(tp.Child("operator"), t.Operator, []string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}))
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect, []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(tp.Child("tolerationSeconds"), *t.TolerationSeconds, "only applies with effect NoExecute"))
		}
	}
	return errs
}

// topologySpreadConstraints refuses what the API server refuses in a pod's constraints.
func topologySpreadConstraints(p *field.Path, v any) field.ErrorList {
	var cs []corev1.TopologySpreadConstraint
	if !decode(v, &cs) {
		return nil
	}
	var errs field.ErrorList
	for i, c := range cs {
		cp := p.Index(i)
		if c.MaxSkew < 1 {
			errs = append(errs, field.Invalid(cp.Child("maxSkew"), c.MaxSkew, "must be at least 1"))
		}
		errs = append(errs, metavalidation.ValidateLabelName(c.TopologyKey, cp.Child("topologyKey"))...)
		if !slices.Contains([]corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}, c.WhenUnsatisfiable) {
			errs = append(errs, field.NotSupported(cp.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, []string{string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway)}))
		}
		if c.MinDomains != nil && (*c.MinDomains < 1 || c.WhenUnsatisfiable != corev1.DoNotSchedule) {
			errs = append(errs, field.Invalid(cp.Child("minDomains"), *c.MinDomains, "must be at least 1, and only with whenUnsatisfiable DoNotSchedule"))
		}
		if c.LabelSelector != nil {
			errs = append(errs, metavalidation.ValidateLabelSelector(c.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, cp.Child("labelSelector"))...)
		}
		for j, k := range c.MatchLabelKeys {
			kp := cp.Child("matchLabelKeys").Index(j)
			errs = append(errs, metavalidation.ValidateLabelName(k, kp)...)
			if c.LabelSelector == nil {
				errs = append(errs, field.Forbidden(kp, "needs labelSelector"))
			} else if _, ok := c.LabelSelector.MatchLabels[k]; ok {
				errs = append(errs, field.Invalid(kp, k, "exists in labelSelector.matchLabels too"))
			}
		}
	}
	return errs
}

// decode reads a JSON value the schema admitted into out; false when it does not fit, which
// the kind's own decoding then reports.
func decode(v any, out any) bool {
	raw, err := json.Marshal(v)
	return err == nil && json.Unmarshal(raw, out) == nil
}
