package kcpinstallation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// The rule for every DNS name an installation puts in a certificate or a route: a name that
// another XR already serves (another installation's, in any namespace, or the platform's), or
// that the platform's policy reserves (data.hostnames.reserved), is refused naming the field
// that writes it and the holder, and the holder keeps it. A certificate from a public issuer
// for another team's name, or a route for it on a shared Gateway or Ingress controller, would
// take that team's clients.
//
// The names are those the specs of the XRs an installation composes write (xrNames): every
// certificate and route of a RootShard, Shard, FrontProxy or VirtualWorkspace is composed from
// them, besides the in-cluster names of its Services, which carry the installation's own
// namespace and whose only written part is spec.clusterDomain (checked against the policy).
// TestEveryComposedNameIsChecked, in functions/kcp, renders an installation with every option
// on and holds every name of its certificates and routes to this list.

// LabelHostname marks every FrontProxy an installation composes with the hostname it
// serves (hostnameLabel). Kept beside the zone labels for the platform's FrontProxies labelled
// so before there were zones (docs/self-service.md told the platform to add it).
const LabelHostname = "kcp.crossplane.io/hostname"

// LabelZonePrefix, followed by a DNS zone (zoneLabel), marks every XR an installation
// composes whose certificates or routes carry a name of that zone (labelZoneValue): an index
// through which every other installation, in any namespace, finds by a label selector who
// serves a name, reading the XRs of the zones its own names are in rather than every XR of
// the cluster. A zone finds a name, the wildcard covering it (*.example.com and
// kcp.example.com are both of example.com) and the names a wildcard covers alike. Since the
// labels are written only once an installation composes, they say who serves a name now, not
// who wants it. The platform may label its own XRs so too; data.hostnames.reserved is simpler.
const LabelZonePrefix = "zone.kcp.crossplane.io/"

const labelZoneValue = "true"

// MaxZones bounds the DNS zones of one installation's names: each zone is one lookup per kind
// of nameKinds, in every namespace, on every reconcile. An installation needs one or two
// (its public names and, with shardBaseURL, its namespace's Services).
const MaxZones = 16

// nameKinds are the kinds of XR whose certificates or routes carry names their spec writes.
var nameKinds = []string{v1alpha1.KindRootShard, v1alpha1.KindShard, v1alpha1.KindFrontProxy, v1alpha1.KindVirtualWorkspace}

// hostnameLabel is the LabelHostname value of a hostname: the hostname itself when it is a
// valid label value, else a digest of it (a label value has at most 63 characters). Holders
// are compared by their names, so a digest shared by two hostnames refuses nothing.
func hostnameLabel(host string) string {
	if len(validation.IsValidLabelValue(host)) == 0 {
		return host
	}
	return digest(host)
}

// zoneLabel is the label key of a DNS zone: LabelZonePrefix and the zone, or a digest of a zone
// that is no label name (longer than 63 characters, or "", the zone of single labels). As
// with hostnameLabel, a digest shared by two zones refuses nothing.
func zoneLabel(zone string) string {
	if zone != "" && len(validation.IsQualifiedName(LabelZonePrefix+zone)) == 0 {
		return LabelZonePrefix + zone
	}
	return LabelZonePrefix + digest(zone)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + hex.EncodeToString(sum[:])[:40]
}

// dnsName is a DNS name a certificate or route carries, with the spec field that writes it.
type dnsName struct {
	host  string // as written, for messages
	key   string // as compared (names.DNSKey)
	field *field.Path
}

// namePaths are the fields that write one XR's names: the XR's own, or the installation's
// that its spec is built from.
type namePaths struct {
	external, shardBaseURL, public, publicCertificate *field.Path
}

// xrPaths are an XR's own fields.
var xrPaths = namePaths{
	external:          field.NewPath("spec", "external"),
	shardBaseURL:      field.NewPath("spec", "shardBaseURL"),
	public:            field.NewPath("spec", "public"),
	publicCertificate: field.NewPath("spec", "publicServerCertificate"),
}

// xrNames lists the names the certificates and routes of an XR (typed: *v1alpha1.RootShard,
// ...) carry that its spec writes, at the fields at says. Each kind's composer puts these in
// its certificates (kinds/*/pki.go) and the installation puts a front-proxy's hostname in its
// TLSRoute or Ingress.
func xrNames(xr any, at namePaths) []dnsName {
	var out []dnsName
	add := func(host string, p *field.Path) {
		if host != "" {
			out = append(out, dnsName{host: host, key: names.DNSKey(host), field: p})
		}
	}
	public := func(e *v1alpha1.PublicEndpoint) {
		if e == nil {
			return
		}
		add(e.Hostname, at.public.Child("hostname"))
		if c := e.ServerCertificate; c != nil {
			for i, n := range c.DNSNames {
				add(n, at.public.Child("serverCertificate", "dnsNames").Index(i))
			}
		}
	}
	switch x := xr.(type) {
	case *v1alpha1.RootShard:
		add(x.Spec.External.Hostname, at.external.Child("hostname"))
		// Its front-proxies' serving certificates name it (kinds/frontproxy/pki.go).
		add(x.Spec.External.PrivateHostname, at.external.Child("privateHostname"))
		add(names.HostOf(x.Spec.ShardBaseURL), at.shardBaseURL)
		public(x.Spec.Public)
	case *v1alpha1.Shard:
		add(names.HostOf(x.Spec.ShardBaseURL), at.shardBaseURL)
		public(x.Spec.Public)
	case *v1alpha1.FrontProxy:
		add(frontProxyHost(x.Spec), at.external.Child("hostname"))
		if c := x.Spec.PublicServerCertificate; c != nil {
			for i, n := range c.DNSNames {
				add(n, at.publicCertificate.Child("dnsNames").Index(i))
			}
		}
	case *v1alpha1.VirtualWorkspace:
		add(x.Spec.External.Hostname, at.external.Child("hostname"))
	}
	return out
}

// heldNames are the names an XR of another installation, or of the platform, serves, read
// from the object Crossplane sent. A field the API types cannot decode is skipped; the rest
// still counts.
func heldNames(kind string, obj map[string]any) []dnsName {
	var xr any
	switch kind {
	case v1alpha1.KindRootShard:
		xr = &v1alpha1.RootShard{}
	case v1alpha1.KindShard:
		xr = &v1alpha1.Shard{}
	case v1alpha1.KindFrontProxy:
		xr = &v1alpha1.FrontProxy{}
	case v1alpha1.KindVirtualWorkspace:
		xr = &v1alpha1.VirtualWorkspace{}
	default:
		return nil
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	_ = json.Unmarshal(raw, xr) // partial on a type error: what decoded still counts
	return xrNames(xr, xrPaths)
}

// served is a name the installation puts in a certificate or route, with the installation's
// field that writes it and the child XRs that carry it (spec.external.hostname: the RootShard
// and the first front-proxy).
type served struct {
	dnsName
	children []child
}

// servedHostnames are the names the installation's children carry that its spec writes, each
// once per field. The root shard's private hostname is left out when defaulted: it is the
// first front-proxy's Service in the installation's own namespace, like the other in-cluster
// names.
func servedHostnames(inst *v1alpha1.KcpInstallation, children []child) []served {
	var out []served
	seen := map[string]int{}
	for _, c := range children {
		for _, n := range xrNames(c.xr, installationPaths(inst, c)) {
			f := n.field.String()
			if f == "spec.external.privateHostname" && inst.Spec.External.PrivateHostname == "" {
				continue
			}
			if i, ok := seen[f+" "+n.key]; ok {
				out[i].children = append(out[i].children, c)
				continue
			}
			seen[f+" "+n.key] = len(out)
			out = append(out, served{dnsName: n, children: []child{c}})
		}
	}
	return out
}

// installationPaths are the installation's fields the child's names come from (build).
func installationPaths(inst *v1alpha1.KcpInstallation, c child) namePaths {
	spec := field.NewPath("spec")
	switch c.kind {
	case v1alpha1.KindRootShard:
		return namePaths{external: spec.Child("external"), shardBaseURL: spec.Child("rootShard", "shardBaseURL"), public: spec.Child("rootShard", "public")}
	case v1alpha1.KindShard:
		return namePaths{shardBaseURL: c.field.Child("shardBaseURL"), public: c.field.Child("public")}
	case v1alpha1.KindFrontProxy:
		p := namePaths{external: c.field.Child("external"), publicCertificate: c.field.Child("serverCertificate")}
		if len(inst.Spec.FrontProxies) == 0 || c.field.String() == "spec.frontProxies[0]" && inst.Spec.FrontProxies[0].External == nil {
			p.external = spec.Child("external") // the first front-proxy's default
		}
		return p
	case v1alpha1.KindVirtualWorkspace:
		return namePaths{external: c.field.Child("external")}
	}
	return namePaths{}
}

// zones are the distinct DNS zones of the names, in the order they first appear.
func zones(hosts []served) []string {
	var out []string
	for _, h := range hosts {
		if z := names.DNSZone(h.key); !slices.Contains(out, z) {
			out = append(out, z)
		}
	}
	return out
}

// hostnameLabels are the labels of a child XR that say which names it serves: a zone label
// per zone of its names, and a FrontProxy's LabelHostname.
func hostnameLabels(c child, hosts []served) map[string]string {
	labels := map[string]string{}
	for _, h := range hosts {
		if slices.ContainsFunc(h.children, func(o child) bool { return o.key == c.key }) {
			labels[zoneLabel(names.DNSZone(h.key))] = labelZoneValue
		}
	}
	if fp, ok := c.xr.(*v1alpha1.FrontProxy); ok && fp.Spec.External.Hostname != "" {
		labels[LabelHostname] = hostnameLabel(fp.Spec.External.Hostname)
	}
	return labels
}

// hostnameRequirements read, in every namespace, the XRs serving names of each zone of the
// installation's names, and the FrontProxies labelled with each front-proxy's hostname.
func hostnameRequirements(hosts []served, children []child) []result.Requirement {
	var reqs []result.Requirement
	zs := zones(hosts)
	if len(zs) > MaxZones {
		return nil // refused by checkHostnames
	}
	for _, z := range zs {
		for _, k := range nameKinds {
			reqs = append(reqs, result.Requirement{APIVersion: required.APIVersion, Kind: k, Label: zoneLabel(z), LabelValue: labelZoneValue, ClusterScoped: true})
		}
	}
	seen := map[string]bool{}
	for _, c := range children {
		if fp, ok := c.xr.(*v1alpha1.FrontProxy); ok && fp.Spec.External.Hostname != "" && !seen[fp.Spec.External.Hostname] {
			seen[fp.Spec.External.Hostname] = true
			reqs = append(reqs, result.Requirement{APIVersion: required.APIVersion, Kind: v1alpha1.KindFrontProxy, Label: LabelHostname, LabelValue: hostnameLabel(fp.Spec.External.Hostname), ClusterScoped: true})
		}
	}
	return reqs
}

// holding is a name an XR that is not this installation's serves.
type holding struct {
	dnsName
	kind string
	l    observed.Lookup
}

// holdings indexes the names every XR of nameKinds that Crossplane sent and this installation
// does not control serves: by name, and the names that are not wildcards by zone too, so that a
// wildcard finds the names it covers.
func holdings(uid string, st *observed.State) (byKey, byZone map[string][]holding) {
	byKey, byZone = map[string][]holding{}, map[string][]holding{}
	for _, kind := range nameKinds {
		var lookups []observed.Lookup
		for _, name := range st.Names(kind) {
			lookups = append(lookups, st.Object(kind, name))
		}
		lookups = append(lookups, st.Elsewhere(kind)...)
		for _, l := range lookups {
			if l.Object == nil || (uid != "" && l.Controller == uid) {
				continue
			}
			for _, n := range heldNames(kind, l.Object) {
				h := holding{dnsName: n, kind: kind, l: l}
				byKey[n.key] = append(byKey[n.key], h)
				if !names.DNSWildcard(n.key) {
					byZone[names.DNSZone(n.key)] = append(byZone[names.DNSZone(n.key)], h)
				}
			}
		}
	}
	return byKey, byZone
}

// checkHostnames holds every name the installation puts in a certificate or route to the
// rule at the top of this file. Of two installations that began to serve a name at once, the
// one whose XR was created first keeps it; the platform's XRs always keep theirs.
func checkHostnames(inst *v1alpha1.KcpInstallation, hosts []served, st *observed.State) field.ErrorList {
	if zs := zones(hosts); len(zs) > MaxZones {
		for _, h := range hosts {
			if names.DNSZone(h.key) == zs[MaxZones] {
				return field.ErrorList{field.Forbidden(h.field, fmt.Sprintf(
					"%s is in the %dth DNS zone of this installation's names (%s), and an installation's names may be in at most %d, each of which every reconcile looks up in every namespace: put the names in fewer zones",
					h.host, MaxZones+1, zs[MaxZones], MaxZones))}
			}
		}
	}
	ns := inst.GetNamespace()
	var errs field.ErrorList
	reserved := map[string]bool{}
	if pol, known, err := policy.Read(st); known && err == nil { // an unreadable policy is checkSafe's to report
		for _, h := range hosts {
			if r := pol.ReservedFor(ns, h.host); r != "" {
				reserved[h.field.String()] = true
				errs = append(errs, field.Forbidden(h.field, fmt.Sprintf(
					"%s is the platform's: its policy reserves %s (%s %s, data.hostnames.reserved); choose a name outside it (ask the platform team which names are this namespace's)",
					h.host, r, policy.Kind, policy.Name)))
			}
		}
		// Every Service's certificate names <service>.<namespace>.svc.<clusterDomain>.
		cd := inst.Spec.ClusterDomain
		if cd == "" {
			cd = names.DefaultClusterDomain
		}
		if r := pol.ReservedUnder(ns, ns+".svc."+cd); r != "" {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "clusterDomain"), fmt.Sprintf(
				"the certificates of this installation's Services name <service>.%s.svc.%s, under %s, which the platform's policy reserves (%s %s, data.hostnames.reserved); leave spec.clusterDomain unset (cluster.local) or set the cluster's own DNS domain",
				ns, cd, r, policy.Kind, policy.Name)))
		}
	}
	byKey, byZone := holdings(string(inst.GetUID()), st)
	for _, h := range hosts {
		if reserved[h.field.String()] {
			continue // said once, by the policy
		}
		if e := heldBy(h, byKey, byZone, st); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// heldBy refuses h when an XR that keeps it serves h's name, a wildcard covering it, or, when
// h is a wildcard, a name it covers.
func heldBy(h served, byKey, byZone map[string][]holding, st *observed.State) *field.Error {
	zone := names.DNSZone(h.key)
	candidates := slices.Clone(byKey[h.key])
	if names.DNSWildcard(h.key) {
		candidates = append(candidates, byZone[zone]...)
	} else if zone != "" {
		candidates = append(candidates, byKey["*."+zone]...)
	}
	for _, c := range candidates {
		if c.l.ControllerKind == v1alpha1.KindKcpInstallation && !servedBefore(c.l.Meta(), h, st) {
			continue // a neighbour that took it later: it is refused, not this one
		}
		fix := "choose another hostname (ask the platform team which names are this namespace's)"
		var msg string
		switch {
		case c.key == h.key:
			msg = fmt.Sprintf("%s is served already by %s, which keeps it; %s", h.host, holder(c), fix)
		case names.DNSWildcard(c.key):
			msg = fmt.Sprintf("%s is covered by %s, which %s serves already and keeps; %s", h.host, c.host, holder(c), fix)
		default:
			msg = fmt.Sprintf("%s covers %s, which %s serves already and keeps; name this installation's own hosts instead of the wildcard, or %s", h.host, c.host, holder(c), fix)
		}
		return field.Forbidden(h.field, msg)
	}
	return nil
}

// servedBefore reports whether the XR theirs began to serve h's name before this
// installation did: this one serves it once a child carrying it, as Crossplane applied it,
// names it; since the oldest such child was created. A creation time that does not parse is
// the oldest, so an installation never takes a name from it.
func servedBefore(theirs *resource.Unstructured, h served, st *observed.State) bool {
	var ours *resource.Unstructured
	for _, c := range h.children {
		u, ok := st.Get(c.key)
		if !ok || !slices.ContainsFunc(heldNames(c.kind, u.Object), func(n dnsName) bool { return n.key == h.key }) {
			continue
		}
		if ours == nil || u.GetCreationTimestamp().Time.Before(ours.GetCreationTimestamp().Time) {
			ours = u
		}
	}
	if ours == nil {
		return true
	}
	then, mine := theirs.GetCreationTimestamp().Time, ours.GetCreationTimestamp().Time
	if !then.Equal(mine) {
		return then.Before(mine)
	}
	return theirs.GetNamespace()+"/"+theirs.GetName() < ours.GetNamespace()+"/"+ours.GetName()
}

// holder names an XR and what controls it, for messages.
func holder(h holding) string {
	m := h.l.Meta()
	ns, name := m.GetNamespace(), m.GetName()
	by := fmt.Sprintf("a %s of the platform's", h.kind)
	if h.l.ControllerKind != "" {
		by = fmt.Sprintf("the %s %s/%s", h.l.ControllerKind, ns, h.l.ControllerName)
	}
	return fmt.Sprintf("%s %s/%s (%s)", h.kind, ns, name, by)
}

// frontProxyHost is the hostname a FrontProxy serves: spec.external.hostname, or the host of
// the deprecated spec.externalHostname.
func frontProxyHost(s v1alpha1.FrontProxySpec) string {
	if s.External.Hostname != "" {
		return s.External.Hostname
	}
	h := s.ExternalHostname
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == ':' {
			return h[:i]
		}
		if h[i] < '0' || h[i] > '9' {
			break
		}
	}
	return h
}

// CheckedNames returns the names of inst's certificates and routes that checkHostnames
// checks, each with the field that writes it, and inCluster, which says whether any other
// name is one the installation derives in the cluster (localhost, its Services' names, which
// carry its namespace, and those under <namespace>.svc.<spec.clusterDomain>, which the rule
// checks through spec.clusterDomain). functions/kcp's TestEveryComposedNameIsChecked holds
// every name of the composed output to them, so that a field that comes to put a name in a
// certificate or a route is not left out of the rule unnoticed.
func CheckedNames(inst *v1alpha1.KcpInstallation) (checked map[string]string, inCluster func(host string) bool) {
	p := newPlan(inst, Kinds{})
	checked = map[string]string{}
	for _, h := range servedHostnames(inst, p.children) {
		checked[h.key] = h.field.String()
	}
	ns, cd := inst.GetNamespace(), inst.Spec.ClusterDomain
	if cd == "" {
		cd = names.DefaultClusterDomain
	}
	return checked, func(host string) bool {
		k := names.DNSKey(host)
		z := names.DNSZone(k)
		return k == "localhost" || z == "" || z == ns || z == ns+".svc" || (k != ns+".svc."+cd && names.DNSUnder(k, ns+".svc."+cd))
	}
}
