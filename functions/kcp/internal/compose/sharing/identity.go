package sharing

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// tenantPrefix starts every team's default identity prefix: tenant:<namespace>:. A namespace
// name holds no colon, so no namespace can name its way into another team's identities, and
// no team's identities can be Kubernetes', kcp's or this package's.
const tenantPrefix = "tenant:"

// Reserved are the identity prefixes no Tenant may overlap, with whose they are: identities
// there carry meaning in kcp that a team's certificate must never claim.
var Reserved = []struct{ Prefix, Owner string }{
	{"system:", "Kubernetes' and kcp's own users and groups (system:masters, system:kcp:admin, system:authenticated, service accounts)"},
	{"kubeconfig:", "the groups this package gives every Kubeconfig (kubeconfig:<name>), which kcp grants that Kubeconfig's roles"},
}

// IdentityPrefix is the prefix of every identity of a Tenant's team: spec.identityPrefix, else
// tenant:<namespace>:.
func IdentityPrefix(t *v1alpha1.Tenant) string {
	if t.Spec.IdentityPrefix != "" {
		return t.Spec.IdentityPrefix
	}
	return tenantPrefix + Namespace(t) + ":"
}

// Overlap reports whether two identity prefixes can name the same identity: one starts with
// the other. An empty prefix (identities named freely) overlaps every prefix.
func Overlap(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }

// CheckPrefix refuses an identity prefix at p that overlaps a reserved one, or that does not
// end with a colon (without it, prefix team would also start team-b's identities).
func CheckPrefix(p *field.Path, prefix string) field.ErrorList {
	if !strings.HasSuffix(prefix, ":") {
		return field.ErrorList{field.Invalid(p, prefix, "must end with a colon, e.g. tenant:team-a:, so that no other team's identities start with it")}
	}
	for _, r := range Reserved {
		if Overlap(prefix, r.Prefix) {
			return field.ErrorList{field.Invalid(p, prefix, fmt.Sprintf("overlaps %s, the prefix of %s; choose a prefix such as %steam-a:", r.Prefix, r.Owner, tenantPrefix))}
		}
	}
	return nil
}

// CheckIdentities holds a team's Kubeconfig to its team's identities: the user and every group
// start with the Tenant's prefix, so the certificate names no one else.
func CheckIdentities(prefix string, kc *v1alpha1.Kubeconfig) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if u := kc.Spec.Username; !strings.HasPrefix(u, prefix) || len(u) == len(prefix) {
		errs = append(errs, field.Invalid(spec.Child("username"), u, fmt.Sprintf("a Kubeconfig of namespace %s for a shared installation must name a user of its team: %s<name>", kc.GetNamespace(), prefix)))
	}
	for i, g := range kc.Spec.Groups {
		if !strings.HasPrefix(g, prefix) || len(g) == len(prefix) {
			errs = append(errs, field.Invalid(spec.Child("groups").Index(i), g, fmt.Sprintf("a Kubeconfig of namespace %s for a shared installation may name only groups of its team: %s<name>", kc.GetNamespace(), prefix)))
		}
	}
	return errs
}

// OIDCPrefixes are the prefixes kcp gives the users and groups it takes from an OIDC issuer,
// as kube-apiserver derives them: "" where the issuer names them freely (usernamePrefix "-",
// an e-mail claim without a prefix, groups without groupsPrefix). nil without OIDC.
func OIDCPrefixes(a *v1alpha1.AuthSpec) (users, groups *string) {
	if a == nil || a.OIDC == nil {
		return nil, nil
	}
	o := a.OIDC
	u := o.UsernamePrefix
	switch {
	case u == "-":
		u = ""
	case u == "" && o.UsernameClaim != "email":
		// kube-apiserver's default for every claim but email (sub included).
		u = o.IssuerURL + "#"
	}
	g := o.GroupsPrefix
	if g == "-" {
		g = ""
	}
	return &u, &g
}
