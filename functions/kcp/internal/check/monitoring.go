package check

import (
	"regexp"

	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// promDuration is a Prometheus duration as prometheus-operator's PodMonitor schema accepts it
// (units from y down to ms, largest first); the XRD has the same pattern, and this check
// gives `crossplane composition render`, which applies no schema, the same answer.
var promDuration = regexp.MustCompile(`^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`)

// monitoring checks a monitoring block at p: the PodMonitor's labels and scrape interval,
// which the API server would refuse on the PodMonitor with a message naming no field of the XR.
func monitoring(p *field.Path, v any) field.ErrorList {
	m, _ := v.(map[string]any)
	errs := metavalidation.ValidateLabels(stringMap(m["labels"]), p.Child("labels"))
	if s, ok := m["interval"].(string); ok && s != "" && !promDuration.MatchString(s) {
		errs = append(errs, field.Invalid(p.Child("interval"), s, "must be a Prometheus duration such as 30s, 1m or 1h30m"))
	}
	return errs
}
