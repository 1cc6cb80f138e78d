package check

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// ServingPorts are the ports a kcp component's container listens on; a profiler there would
// keep the component from starting.
var ServingPorts = []int32{6443, 6444}

// ServerFeatures refuses what kcp would not start with, or would read otherwise than asked, in
// the home workspaces, batteries, profiling and audit log of a shard's spec s at p.
func ServerFeatures(p *field.Path, s *v1alpha1.CommonShardSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, HomeWorkspaces(p.Child("homeWorkspaces"), s.HomeWorkspaces)...)
	errs = append(errs, Batteries(p.Child("batteries"), s.Batteries)...)
	errs = append(errs, Profiling(p.Child("profiling"), s.Profiling)...)
	if s.Audit != nil {
		errs = append(errs, AuditLog(p.Child("audit"), s.Audit)...)
	}
	errs = append(errs, Encryption(p.Child("encryption"), s.Encryption, p.Child("extraArgs"), s.ExtraArgs)...)
	return errs
}

// HomeWorkspaces refuses creator groups kcp would read as other groups (its flag is a comma
// separated list) or with home workspaces off, where they would silently do nothing.
func HomeWorkspaces(p *field.Path, h *v1alpha1.HomeWorkspaces) field.ErrorList {
	if h == nil {
		return nil
	}
	var errs field.ErrorList
	if !h.Enabled && len(h.CreatorGroups) > 0 {
		errs = append(errs, field.Forbidden(p.Child("creatorGroups"), "home workspaces are off (enabled: false), so no group gets one; set enabled: true, or remove creatorGroups"))
	}
	for i, g := range h.CreatorGroups {
		gp := p.Child("creatorGroups").Index(i)
		if strings.ContainsAny(g, `,"`) {
			errs = append(errs, field.Invalid(gp, g, `must not contain a comma or a double quote: kcp reads the groups as one comma-separated list; name the group without them`))
			continue
		}
		errs = append(errs, Printable(gp, g)...)
	}
	return errs
}

// OfferedBatteries are the batteries the schema's enum admits.
var OfferedBatteries = []v1alpha1.Battery{v1alpha1.BatteryWorkspaceTypes, v1alpha1.BatteryMetricsViewer}

// Batteries refuses what the schema refuses, for clients that skip it (`crossplane composition
// render`, an API server without the schema): a battery named twice, and one not offered, such
// as kcp's admin battery, which would have kcp write a kubeconfig into its read-only
// filesystem, or a "+"/"-" change of kcp's own default set.
func Batteries(p *field.Path, b *[]v1alpha1.Battery) field.ErrorList {
	if b == nil {
		return nil
	}
	var errs field.ErrorList
	for i, x := range *b {
		if !slices.Contains(OfferedBatteries, x) {
			errs = append(errs, field.NotSupported(p.Index(i), x, OfferedBatteries))
			continue
		}
		if slices.Index(*b, x) < i {
			errs = append(errs, field.Duplicate(p.Index(i), x))
		}
	}
	return errs
}

// Profiling refuses a profiler on a port the component serves on.
func Profiling(p *field.Path, pr *v1alpha1.Profiling) field.ErrorList {
	if !pr.On() || !slices.Contains(ServingPorts, pr.Port) {
		return nil
	}
	return field.ErrorList{field.Invalid(p.Child("port"), pr.Port, fmt.Sprintf("is a port kcp serves on (%v); choose another, or remove port for %d", ServingPorts, v1alpha1.ProfilingPort))}
}

// AuditLog refuses an audit log without an audit policy: kcp then records no event, and the
// log would stay empty with nothing saying why.
func AuditLog(p *field.Path, a *v1alpha1.AuditSpec) field.ErrorList {
	if a.Log == nil || (a.Policy != nil && a.Policy.ConfigMap != nil) {
		return nil
	}
	return field.ErrorList{field.Required(p.Child("policy", "configMap"), "kcp records no audit event without an audit policy, so audit.log would stay empty; name a ConfigMap key holding an audit.k8s.io/v1 Policy (for example one rule, level: Metadata)")}
}
