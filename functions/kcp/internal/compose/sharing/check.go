package sharing

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// reservedPrefix starts every identity kcp and Kubernetes give meaning to
// (system:masters, system:kcp:admin, system:authenticated, ...).
const reservedPrefix = "system:"

// CheckName refuses a team's XR whose name would make the name of the XR a Tenant composes
// for it too long.
func CheckName(ns, name string) field.ErrorList {
	if n := Name(ns, name); len(n) > MaxNameLength {
		return field.ErrorList{field.TooLong(field.NewPath("metadata", "name"), name, MaxNameLength-len(ns)-1)}
	}
	return nil
}

// CheckKubeconfig holds a team's Kubeconfig of namespace ns to the identities of its team:
// the user and every group start with "<ns>:", so no team can claim another's group (or
// kcp's own, system:...), and the certificate carries nothing else. The Tenant checks it
// again before it issues anything; a team's XR checks it first to say so at once.
func CheckKubeconfig(ns string, kc *v1alpha1.Kubeconfig) field.ErrorList {
	spec := field.NewPath("spec")
	prefix := ns + ":"
	errs := CheckName(ns, kc.GetName())
	if u := kc.Spec.Username; !strings.HasPrefix(u, prefix) || len(u) == len(prefix) {
		errs = append(errs, field.Invalid(spec.Child("username"), u, fmt.Sprintf("a Kubeconfig of namespace %s for a shared installation must name a user of its team: %s<name>", ns, prefix)))
	}
	for i, g := range kc.Spec.Groups {
		if !strings.HasPrefix(g, prefix) || len(g) == len(prefix) {
			errs = append(errs, field.Invalid(spec.Child("groups").Index(i), g, fmt.Sprintf("a Kubeconfig of namespace %s for a shared installation may name only groups of its team: %s<name>", ns, prefix)))
		}
	}
	if kc.Spec.CertificateTemplate != nil {
		errs = append(errs, field.Forbidden(spec.Child("certificateTemplate"), "a Kubeconfig for a shared installation gets the certificate its Tenant issues; its subject and usages are not the team's to choose"))
	}
	return errs
}

// CheckBindings refuses bindings of kcp's own identities (system:...) in a team's
// workspace: binding a role to system:authenticated would open it to every user of kcp.
func CheckBindings(p *field.Path, crbs []v1alpha1.WorkspaceClusterRoleBinding) field.ErrorList {
	var errs field.ErrorList
	for i, crb := range crbs {
		for j, g := range crb.Groups {
			if strings.HasPrefix(g, reservedPrefix) {
				errs = append(errs, field.Forbidden(p.Index(i).Child("groups").Index(j), fmt.Sprintf("%s is one of kcp's own groups; a team's workspace binds groups and users, not kcp's", g)))
			}
		}
		for j, u := range crb.Users {
			if strings.HasPrefix(u, reservedPrefix) {
				errs = append(errs, field.Forbidden(p.Index(i).Child("users").Index(j), fmt.Sprintf("%s is one of kcp's own users; a team's workspace binds groups and users, not kcp's", u)))
			}
		}
	}
	return errs
}
