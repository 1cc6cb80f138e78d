package names

import "strings"

// DNSKey is the form in which DNS names are compared: DNS is case-insensitive, and a name
// with a trailing dot (its absolute form) is the same host, so KCP.example.com. and
// kcp.example.com must meet as one name when deciding who serves it.
func DNSKey(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// DNSZone is the zone of a name as DNSKey writes it: the name without its first label, which
// is all a wildcard stands for. *.example.com and kcp.example.com are both in example.com;
// a single label is in "".
func DNSZone(key string) string {
	_, zone, _ := strings.Cut(key, ".")
	return zone
}

// DNSWildcard reports whether a name as DNSKey writes it is a wildcard, *.<zone>.
func DNSWildcard(key string) bool { return strings.HasPrefix(key, "*.") }

// DNSOverlap reports whether a certificate or route for a and one for b can answer for the
// same host: the same name, or a wildcard and a name of its zone. A wildcard stands for one
// label only (RFC 6125, and cert-manager's issuers, Gateway API and Ingress controllers all
// match so): *.example.com covers kcp.example.com, neither example.com nor
// a.kcp.example.com. Both are compared as DNSKey writes them.
func DNSOverlap(a, b string) bool {
	a, b = DNSKey(a), DNSKey(b)
	if a == b {
		return true
	}
	if DNSWildcard(a) == DNSWildcard(b) {
		return false // two different names, or two wildcards of different zones
	}
	return DNSZone(a) == DNSZone(b)
}

// DNSUnder reports whether the name key (as DNSKey writes it) is zone or lies under it, at any
// depth.
func DNSUnder(key, zone string) bool {
	return key == zone || strings.HasSuffix(key, "."+zone)
}
