package kcpinstallation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
)

// generatedFlagsFix says where what a generated flag sets comes from instead.
const generatedFlagsFix = "what it sets comes from this installation's own fields (spec.etcd, spec.auth, spec.audit, spec.authorization, spec.external, the component's own fields and extra.logging)"

// checkExtras refuses what a tenant adds to a component's container (spec.<component>.extra)
// that the platform's per-kind XRs may add, with a warning, but a tenant may not: a volume of
// a type Pod Security "restricted" does not admit (it reaches the node, a network share or a
// cloud disk, and the namespace refuses the pod anyway, naming no field), which the schema
// does not offer and so reaches the function as a volume without a type, and an argument
// that replaces a flag the package generates (the etcd the component stores in, the CAs it
// trusts, the certificate it serves), which kcp takes silently as a flag given twice.
func checkExtras(children []child) field.ErrorList {
	var errs field.ErrorList
	for _, c := range children {
		if c.extra == nil {
			continue
		}
		p := c.component.Child("extra")
		vols := c.extra.CoreVolumes()
		errs = append(errs, check.UntypedVolumes(p.Child("volumes"), vols)...)
		// The schema offers no other type; kept should InstallationVolumeSource ever gain one.
		errs = append(errs, check.RestrictedVolumes(p.Child("volumes"), vols)...)
		if len(c.extra.Args) > 0 {
			errs = append(errs, check.GeneratedFlags(p.Child("args"), c.checks.flags(), c.extra.Args, generatedFlagsFix)...)
		}
	}
	return errs
}
