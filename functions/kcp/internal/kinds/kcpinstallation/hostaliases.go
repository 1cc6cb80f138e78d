package kcpinstallation

import (
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// checkHostAliases refuses, in a tenant's namespace, a host alias (spec.<component>.extra.
// hostAliases) for a name kcp's components dial: an alias overrides DNS inside the pod, so it
// would send the component's traffic to etcd, to the other shards, to the cache server or to
// the installation's public names wherever the alias points, past the Services and names the
// installation's certificates were issued for. The platform's installations may alias
// anything.
func checkHostAliases(p *plan, pol policy.Policy) field.ErrorList {
	if pol.Platform(p.inst.GetNamespace()) {
		return nil
	}
	dialed := dialedNames(p)
	domain := p.inst.Spec.ClusterDomain
	if domain == "" {
		domain = "cluster.local"
	}
	var errs field.ErrorList
	for _, c := range p.children {
		if c.extra == nil {
			continue
		}
		for i, a := range c.extra.HostAliases {
			for j, h := range a.Hostnames {
				why := dialedWhy(names.DNSKey(h), domain, dialed)
				if why == "" {
					continue
				}
				errs = append(errs, field.Forbidden(c.component.Child("extra", "hostAliases").Index(i).Child("hostnames").Index(j), fmt.Sprintf(
					"%s is %s, which kcp's components dial: an alias would send their traffic to %s instead; remove it, or ask the platform team (host aliases for such names are the platform's, in its namespaces)",
					h, why, a.IP)))
			}
		}
	}
	return errs
}

// dialedWhy says why kcp's components dial host (as names.DNSKey writes it), or "" when they
// do not.
func dialedWhy(host, domain string, dialed map[string]string) string {
	switch {
	case host == "localhost":
		return "the pod itself"
	case !strings.Contains(host, "."):
		return "a single label, which the namespace's search domains resolve to a Service"
	case strings.HasSuffix(host, ".svc") || strings.Contains(host, ".svc."):
		return "a Service's name"
	case host == domain || strings.HasSuffix(host, "."+domain):
		return "a name of the cluster's domain " + domain
	}
	return dialed[host]
}

// dialedNames are the names the installation's components dial beyond the cluster's own:
// the public names it serves and its external etcd's, each with what it is.
func dialedNames(p *plan) map[string]string {
	out := map[string]string{}
	for _, h := range p.hosts {
		out[h.key] = "a name this installation serves (" + h.field.String() + ")"
	}
	etcd := func(path *field.Path, e *v1alpha1.EtcdConfig) {
		if e == nil {
			return
		}
		for i, ep := range e.Endpoints {
			if u, err := url.Parse(ep); err == nil && u.Hostname() != "" {
				out[names.DNSKey(u.Hostname())] = "the installation's etcd (" + path.Child("endpoints").Index(i).String() + ")"
			}
		}
	}
	s := p.inst.Spec
	if s.Etcd != nil {
		etcd(field.NewPath("spec", "etcd", "external"), s.Etcd.External)
	}
	for i, sh := range s.Shards {
		etcd(field.NewPath("spec", "shards").Index(i).Child("etcd"), sh.Etcd)
	}
	if s.CacheServer != nil {
		etcd(field.NewPath("spec", "cacheServer", "etcd"), s.CacheServer.Etcd)
	}
	return out
}
