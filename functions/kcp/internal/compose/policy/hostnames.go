package policy

import (
	"strings"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// Hostnames is data.hostnames: the DNS names the platform keeps for its own certificates and
// routes. Another installation's names need no entry: the function finds who serves a name
// through the labels every installation's XRs carry (kinds/kcpinstallation/hostnames.go).
// What this list adds is every name the platform serves that no installation composed: its
// per-kind XRs in other namespaces, and Ingresses, routes and certificates of its own.
type Hostnames struct {
	// Reserved are names no installation of a tenant's namespace may put in a certificate or
	// a route: an exact name (kcp.example.com), or *.<zone> (*.platform.example.com), which
	// reserves every name under the zone at any depth, wildcards included; the zone's own
	// name only when listed too. A tenant's wildcard covering a reserved exact name
	// (*.example.com and kcp.example.com) is refused as well.
	Reserved []string `json:"reserved,omitempty"`
}

// ReservedFor returns the entry of data.hostnames.reserved that keeps host for the platform,
// "" when none does or when namespace is the platform's.
func (p Policy) ReservedFor(namespace, host string) string {
	if p.Platform(namespace) {
		return ""
	}
	key := names.DNSKey(host)
	for _, r := range p.Hostnames.Reserved {
		rk := names.DNSKey(r)
		if zone, ok := strings.CutPrefix(rk, "*."); ok {
			if key != zone && names.DNSUnder(key, zone) {
				return r
			}
			continue
		}
		if names.DNSOverlap(key, rk) {
			return r
		}
	}
	return ""
}

// ReservedUnder returns the entry of data.hostnames.reserved that may keep some name under
// zone (at depth one or more) for the platform, "" when none can or when namespace is the
// platform's: for names an installation derives under a zone it chose (its Services under
// spec.clusterDomain), whose first labels it does not write.
func (p Policy) ReservedUnder(namespace, zone string) string {
	if p.Platform(namespace) {
		return ""
	}
	zone = names.DNSKey(zone)
	for _, r := range p.Hostnames.Reserved {
		rk := names.DNSKey(r)
		reserved, ok := strings.CutPrefix(rk, "*.")
		switch {
		case ok && (names.DNSUnder(zone, reserved) || names.DNSUnder(reserved, zone)):
			return r // the zone lies in the reserved one, or holds it
		case !ok && rk != zone && names.DNSUnder(rk, zone):
			return r
		}
	}
	return ""
}
