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

// CheckKubeconfig refuses what a team's Kubeconfig of namespace ns for a shared installation
// may not ask for, whatever its Tenant: a name too long for the XR composed for it, and a
// certificate template, which could add groups to the certificate. Its identities are
// checked against its Tenant's prefix (CheckIdentities) once the Tenant is read.
func CheckKubeconfig(ns string, kc *v1alpha1.Kubeconfig) field.ErrorList {
	errs := CheckName(ns, kc.GetName())
	if kc.Spec.CertificateTemplate != nil {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "certificateTemplate"), "a Kubeconfig for a shared installation gets the certificate its Tenant issues; its subject and usages are not the team's to choose"))
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
