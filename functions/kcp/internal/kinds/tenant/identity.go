package tenant

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
)

// checkOthers refuses a Tenant that would share what an older Tenant of its namespace holds:
// the same team (both would compose the same XRs), identities one of them could forge in the
// other's name, or a workspace inside the other's, whose administrators would reach it. The
// older Tenant keeps its grant.
func (c *composer) checkOthers() field.ErrorList {
	spec := field.NewPath("spec")
	for _, o := range sharing.Tenants(c.St, c.Namespace, "") {
		if o.GetName() == c.t.GetName() {
			return nil // every Tenant after this one is newer
		}
		held := fmt.Sprintf("Tenant %s/%s, created before this one,", c.Namespace, o.GetName())
		switch {
		case sharing.Namespace(o) == c.team:
			return field.ErrorList{field.Forbidden(spec.Child("namespace"),
				fmt.Sprintf("%s already shares this namespace's kcp installation with namespace %s; one Tenant per team: change that one", held, c.team))}
		case sharing.Overlap(sharing.IdentityPrefix(o), c.prefix):
			return field.ErrorList{field.Invalid(spec.Child("identityPrefix"), c.prefix,
				fmt.Sprintf("overlaps the identities of %s grants (%s): one team could name the other's users and groups; choose a prefix neither starts with", held, sharing.IdentityPrefix(o)))}
		case sharing.Within(c.workspace, sharing.Workspace(o)) || sharing.Within(sharing.Workspace(o), c.workspace):
			return field.ErrorList{field.Invalid(spec.Child("workspace"), c.workspace,
				fmt.Sprintf("overlaps workspace %s, which %s grants: the administrators of one would reach the other; choose a workspace outside it", sharing.Workspace(o), held))}
		}
	}
	return nil
}

// checkAuthentication refuses a Tenant whose identities kcp could also take from the
// installation's OIDC issuer: a user of the identity provider named like the team's would be
// the team's. The installation's other authenticators (a structured authentication
// configuration, a token webhook, a token file) are the platform's to keep clear of the
// prefix (docs/shared-kcp.md).
func (c *composer) checkAuthentication(rs *v1alpha1.RootShard, fp *v1alpha1.FrontProxy) field.ErrorList {
	for _, a := range []struct {
		what string
		auth *v1alpha1.AuthSpec
	}{
		{"RootShard " + rs.GetName(), rs.Spec.Auth},
		{"FrontProxy " + fp.GetName(), fp.Spec.Auth},
	} {
		users, groups := sharing.OIDCPrefixes(a.auth)
		for _, p := range []struct {
			field  string
			prefix *string
		}{{"usernamePrefix", users}, {"groupsPrefix", groups}} {
			if p.prefix == nil || !sharing.Overlap(*p.prefix, c.prefix) {
				continue
			}
			why := fmt.Sprintf("%s takes OIDC identities under %q (spec.auth.oidc.%s)", a.what, *p.prefix, p.field)
			if *p.prefix == "" {
				why = fmt.Sprintf("%s takes OIDC identities without a prefix (spec.auth.oidc.%s): its identity provider could name a user or group %s...; set a prefix such as oidc: there", a.what, p.field, c.prefix)
			}
			return field.ErrorList{field.Invalid(field.NewPath("spec", "identityPrefix"), c.prefix, "overlaps the identities kcp takes from elsewhere: "+why)}
		}
	}
	return nil
}
