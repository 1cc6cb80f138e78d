package sharing

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// A route is one way into a kcp installation for an identity this package did not issue. The
// installation's own client CA signs only the certificates its Kubeconfigs compose, each held
// to its Tenant's prefix; every other authenticator names users and groups as it likes, within
// a prefix at best. A route whose identities can start with a Tenant's prefix would let an
// outsider act as the team: a group tenant:team-a:admins from an identity provider is
// cluster-admin of root:team-a. So every route of every component of a shared installation
// (each front-proxy, the root shard, each shard, each virtual workspace server) is held to
// every Tenant's prefix, from both sides: a Tenant is refused while such a route exists, and a
// route is refused while such a Tenant exists.
//
// Service account tokens are no route here: kcp names their users and groups
// system:serviceaccount:... and system:serviceaccounts..., under system:, which no Tenant's
// prefix may overlap (Reserved).

// Route is one authenticator of one component and the identities it can name.
type Route struct {
	// Field is the component's field that configures the route, e.g.
	// spec.auth.oidc.groupsPrefix.
	Field *field.Path
	// What says what takes identities there, for messages: "OIDC groups",
	// "a token webhook".
	What string
	// Prefix starts every identity the route names. Free routes have none.
	Prefix string
	// Free routes name any identity: no prefix, a prefix of "", or a mapping this package
	// cannot bound (a CEL expression, a webhook's answer, a certificate of another CA).
	Free bool
	// Fix says how the platform keeps the route off a Tenant's identities.
	Fix string
}

// Names reports whether the route can name an identity that starts with prefix.
func (r Route) Names(prefix string) bool { return r.Free || Overlap(r.Prefix, prefix) }

// Describe says what the route takes and under which prefix.
func (r Route) Describe() string {
	if r.Free {
		return fmt.Sprintf("%s (%s), under no prefix", r.What, r.Field)
	}
	return fmt.Sprintf("%s (%s), under %q", r.What, r.Field, r.Prefix)
}

// ConfigMapData returns the value of a key of a ConfigMap of the component's namespace, and
// whether it was read; a structured authentication configuration lives there.
type ConfigMapData func(name, key string) (string, bool)

// AuthRoutes are the routes of a component's spec.auth (at auth) and of its extra client CAs
// (at clientCA, nil when the component has no such field). config reads a structured
// authentication configuration; one it cannot read is a free route: what it maps is unknown.
func AuthRoutes(auth *field.Path, a *v1alpha1.AuthSpec, clientCA *field.Path, clientCARef *string, config ConfigMapData) []Route {
	var out []Route
	if clientCARef != nil && *clientCARef != "" {
		out = append(out, Route{Field: clientCA, What: fmt.Sprintf("client certificates of the CAs in Secret %s", *clientCARef), Free: true, Fix: unbounded})
	}
	if a == nil {
		return out
	}
	if a.OIDC != nil {
		users, groups := OIDCPrefixes(a)
		for _, r := range []struct {
			field, what string
			prefix      *string
		}{{"usernamePrefix", "OIDC users", users}, {"groupsPrefix", "OIDC groups", groups}} {
			p := auth.Child("oidc", r.field)
			out = append(out, prefixed(p, r.what+" of "+a.OIDC.IssuerURL, *r.prefix, fmt.Sprintf("set %s to a prefix no Tenant's starts with, such as oidc:", p)))
		}
	}
	if c := a.AuthenticationConfiguration; c != nil {
		p := auth.Child("authenticationConfiguration")
		data, ok := config(c.Name, c.Key)
		if !ok {
			out = append(out, Route{Field: p, What: fmt.Sprintf("the structured authentication configuration in ConfigMap %s (key %s), which cannot be read", c.Name, c.Key), Free: true, Fix: "create the ConfigMap"})
		} else {
			out = append(out, structuredRoutes(p, c, data)...)
		}
	}
	if w := a.Webhook; w != nil {
		out = append(out, Route{Field: auth.Child("webhook"), What: fmt.Sprintf("a token webhook (Secret %s), which answers with any user and groups", w.ConfigSecretName), Free: true, Fix: unbounded})
	}
	if f := a.TokenAuthFile; f != nil {
		out = append(out, Route{Field: auth.Child("tokenAuthFile"), What: "a token file, whose lines name any user and groups", Free: true, Fix: unbounded})
	}
	return out
}

// unbounded is the fix of a route that names any identity.
const unbounded = "a route that names any identity cannot serve an installation a Tenant shares: remove it, or serve it from an installation no Tenant shares"

// prefixed is a route under prefix; "" names identities freely.
func prefixed(p *field.Path, what, prefix, fix string) Route {
	return Route{Field: p, What: what, Prefix: prefix, Free: prefix == "", Fix: fix}
}

// authenticationConfiguration is what a route needs of a Kubernetes structured authentication
// configuration (apiserver.config.k8s.io/v1): each JWT issuer's user and group mappings.
type authenticationConfiguration struct {
	JWT []struct {
		Issuer struct {
			URL string `json:"url"`
		} `json:"issuer"`
		ClaimMappings struct {
			Username claimMapping `json:"username"`
			Groups   claimMapping `json:"groups"`
		} `json:"claimMappings"`
	} `json:"jwt"`
}

// claimMapping maps a claim, with a prefix, or a CEL expression, to a user or groups.
type claimMapping struct {
	Claim      string  `json:"claim"`
	Prefix     *string `json:"prefix"`
	Expression string  `json:"expression"`
}

// structuredRoutes are the routes of a structured authentication configuration: each JWT
// issuer's users and groups. A CEL expression can produce any name, so it is free; so is a
// configuration that does not parse.
func structuredRoutes(p *field.Path, ref *v1alpha1.LocalDataKeyReference, data string) []Route {
	var cfg authenticationConfiguration
	if err := yaml.Unmarshal([]byte(data), &cfg); err != nil {
		return []Route{{Field: p, What: fmt.Sprintf("the structured authentication configuration in ConfigMap %s (key %s), which does not parse", ref.Name, ref.Key), Free: true, Fix: "fix the configuration"}}
	}
	var out []Route
	for i, j := range cfg.JWT {
		what := fmt.Sprintf("ConfigMap %s's jwt[%d] (%s)", ref.Name, i, j.Issuer.URL)
		for _, m := range []struct {
			kind, field string
			mapping     claimMapping
		}{{"users", "username", j.ClaimMappings.Username}, {"groups", "groups", j.ClaimMappings.Groups}} {
			fix := fmt.Sprintf("give jwt[%d].claimMappings.%s of ConfigMap %s a prefix no Tenant's starts with, such as sso:", i, m.field, ref.Name)
			switch {
			case m.mapping.Expression != "":
				// An expression that starts with a string literal joined to the rest
				// ('sso:' + claims.email) prefixes every name it makes; any other can make any.
				prefix, ok := literalPrefix(m.mapping.Expression)
				out = append(out, Route{Field: p, What: fmt.Sprintf("%s of %s, mapped by the CEL expression %q", m.kind, what, m.mapping.Expression), Prefix: prefix, Free: !ok || prefix == "", Fix: fix + " (an expression counts as prefixed when it starts with a quoted prefix and +)"})
			case m.mapping.Claim != "":
				prefix := ""
				if m.mapping.Prefix != nil {
					prefix = *m.mapping.Prefix
				}
				out = append(out, prefixed(p, fmt.Sprintf("%s of %s", m.kind, what), prefix, fix))
			case m.kind == "users":
				// kube-apiserver requires a user mapping; without one nothing bounds it.
				out = append(out, Route{Field: p, What: fmt.Sprintf("users of %s, with no mapping", what), Free: true, Fix: fix})
			}
		}
	}
	return out
}

// literalPrefix is the string literal a CEL expression starts with when it is joined by +
// to what follows ('sso:' + claims.email), and whether there is one.
func literalPrefix(expr string) (string, bool) {
	e := strings.TrimSpace(expr)
	if e == "" || (e[0] != '\'' && e[0] != '"') {
		return "", false
	}
	end := strings.IndexByte(e[1:], e[0])
	if end < 0 {
		return "", false
	}
	lit := e[1 : end+1]
	if strings.ContainsAny(lit, "\\") {
		return "", false // an escape could spell anything; take no chances
	}
	if !strings.HasPrefix(strings.TrimSpace(e[end+2:]), "+") {
		return "", false
	}
	return lit, true
}

// CheckRoutes refuses, at the Tenant's field p, every route of a component that can name
// an identity starting with the Tenant's prefix. owner names the component.
func CheckRoutes(p *field.Path, prefix, owner string, routes []Route) field.ErrorList {
	var errs field.ErrorList
	for _, r := range routes {
		if !r.Names(prefix) {
			continue
		}
		errs = append(errs, field.Invalid(p, prefix, fmt.Sprintf("kcp would also take identities under this prefix from %s: %s; %s", owner, r.Describe(), r.Fix)))
	}
	return errs
}

// FrontProxyRoutes are the routes into kcp of a FrontProxy.
func FrontProxyRoutes(fp *v1alpha1.FrontProxy, config ConfigMapData) []Route {
	spec := field.NewPath("spec")
	return AuthRoutes(spec.Child("auth"), fp.Spec.Auth, spec.Child("clientCABundleRef"), refName(fp.Spec.ClientCABundleRef), config)
}

// ShardRoutes are the routes into kcp of a RootShard's or a Shard's spec.
func ShardRoutes(s *v1alpha1.CommonShardSpec, config ConfigMapData) []Route {
	spec := field.NewPath("spec")
	return AuthRoutes(spec.Child("auth"), s.Auth, spec.Child("clientCABundleRef"), refName(s.ClientCABundleRef), config)
}

// VirtualWorkspaceRoutes are the routes into kcp of a VirtualWorkspace: its extra client CAs.
func VirtualWorkspaceRoutes(vw *v1alpha1.VirtualWorkspace) []Route {
	return AuthRoutes(nil, nil, field.NewPath("spec", "clientCABundleRef"), refName(vw.Spec.ClientCABundleRef), nil)
}

// refName is the name a local reference names, nil without one.
func refName(r *corev1.LocalObjectReference) *string {
	if r == nil {
		return nil
	}
	return &r.Name
}
