package tenant

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// checkAPIBindings holds a team's spec.apiBindings to the Tenant's spec.apis: each binds an
// export the Tenant lists, by the same path and name, and accepts only claims the Tenant
// allows for it, with no verb beyond those allowed. A binding accepts a claim for the
// provider: what is refused here is what a provider could otherwise read or write in the
// team's workspace, and an export not listed may belong to anyone, another team included.
func (c *composer) checkAPIBindings(p *field.Path, bindings []v1alpha1.APIBinding) field.ErrorList {
	var errs field.ErrorList
	for i, b := range bindings {
		bp := p.Index(i)
		j := slices.IndexFunc(c.t.Spec.APIs, func(a v1alpha1.TenantAPI) bool { return a.Export == b.Export })
		if j < 0 {
			errs = append(errs, field.Forbidden(bp.Child("export"), fmt.Sprintf(
				"APIExport %s of workspace %s is not one Tenant %s lets the team bind (spec.apis: %s); bind one of those, or ask the platform team to grant this one",
				b.Export.Name, b.Export.Path, c.t.GetName(), grantedExports(c.t.Spec.APIs))))
			continue
		}
		allowed := c.t.Spec.APIs[j].PermissionClaims
		for k, claim := range b.PermissionClaims {
			cp := bp.Child("permissionClaims").Index(k)
			a := slices.IndexFunc(allowed, func(x v1alpha1.APIPermissionClaim) bool {
				return x.Group == claim.Group && x.Resource == claim.Resource
			})
			if a < 0 {
				errs = append(errs, field.Forbidden(cp, fmt.Sprintf(
					"Tenant %s does not let the team accept a claim on %s for APIExport %s:%s (spec.apis); remove it, or ask the platform team to allow it",
					c.t.GetName(), groupResource(claim), b.Export.Path, b.Export.Name)))
				continue
			}
			if extra := beyond(claim.Verbs, allowed[a].Verbs); len(extra) > 0 {
				errs = append(errs, field.Forbidden(cp.Child("verbs"), fmt.Sprintf(
					"Tenant %s lets the team accept %s on %s for APIExport %s:%s, not %s; accept those verbs only",
					c.t.GetName(), strings.Join(allowed[a].Verbs, ", "), groupResource(claim), b.Export.Path, b.Export.Name, strings.Join(extra, ", "))))
			}
		}
	}
	return errs
}

// beyond lists the verbs of want that allowed does not cover: * covers every verb, and only
// * covers *.
func beyond(want, allowed []string) []string {
	if slices.Contains(allowed, "*") {
		return nil
	}
	var out []string
	for _, v := range want {
		if !slices.Contains(allowed, v) {
			out = append(out, v)
		}
	}
	return out
}

// groupResource names a claim's resource as kubectl does.
func groupResource(c v1alpha1.APIPermissionClaim) string {
	if c.Group == "" {
		return c.Resource
	}
	return c.Resource + "." + c.Group
}

// grantedExports lists the exports of spec.apis for a message.
func grantedExports(apis []v1alpha1.TenantAPI) string {
	if len(apis) == 0 {
		return "none"
	}
	out := make([]string, len(apis))
	for i, a := range apis {
		out[i] = a.Export.Path + ":" + a.Export.Name
	}
	return strings.Join(out, ", ")
}

// validateAPIs checks spec.apis: each export once, each claim once per export, * alone.
func validateAPIs(p *field.Path, apis []v1alpha1.TenantAPI) field.ErrorList {
	var errs field.ErrorList
	seen := map[v1alpha1.APIExportReference]bool{}
	for i, a := range apis {
		ap := p.Index(i)
		if seen[a.Export] {
			errs = append(errs, field.Duplicate(ap.Child("export"), a.Export.Path+":"+a.Export.Name))
		}
		seen[a.Export] = true
		claims := map[string]bool{}
		for j, c := range a.PermissionClaims {
			cp := ap.Child("permissionClaims").Index(j)
			if claims[groupResource(c)] {
				errs = append(errs, field.Duplicate(cp, groupResource(c)))
			}
			claims[groupResource(c)] = true
			if slices.Contains(c.Verbs, "*") && len(c.Verbs) > 1 {
				errs = append(errs, field.Invalid(cp.Child("verbs"), c.Verbs, "* is every verb: list it alone, or list the verbs"))
			}
		}
	}
	return errs
}
