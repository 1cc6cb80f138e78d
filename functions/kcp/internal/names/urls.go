package names

import (
	"net"
	"net/url"
	"strconv"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Port is kcp's port: of every kcp server, cache server and virtual workspace Service, and
// of a front-proxy when nothing else says.
const Port = 6443

// HTTPS is the URL of a host and port. net.JoinHostPort brackets an IPv6 literal, which
// "https://%s:%d" would not: https://fd00::1:6443 is no URL.
func HTTPS(host string, port uint32) string {
	return "https://" + net.JoinHostPort(host, strconv.FormatUint(uint64(port), 10))
}

// ServiceURL is the in-cluster URL of a Service on kcp's port.
func ServiceURL(service, namespace, clusterDomain string) string {
	return HTTPS(ServiceFQDN(service, namespace, clusterDomain), Port)
}

// ExternalURL is the public URL of an installation or virtual workspace.
func ExternalURL(e v1alpha1.ExternalConfig) string { return HTTPS(e.Hostname, e.Port) }

// ExternalAdminURL is the server of the external-logical-cluster-admin kubeconfigs: the
// private address when one is given (port defaulting to the public one), else the public URL.
func ExternalAdminURL(e v1alpha1.ExternalConfig) string {
	if e.PrivateHostname == "" {
		return ExternalURL(e)
	}
	port := e.Port
	if e.PrivatePort != nil {
		port = *e.PrivatePort
	}
	return HTTPS(e.PrivateHostname, port)
}

// PublicURL is a shard's public URL, https://<hostname>:<port, default 6443>; "" without one.
func PublicURL(p *v1alpha1.PublicEndpoint) string {
	if p == nil {
		return ""
	}
	port := p.Port
	if port == 0 {
		port = Port
	}
	return HTTPS(p.Hostname, port)
}

// PublicDNSNames are the names of a public serving certificate: its dnsNames, else host.
func PublicDNSNames(c *v1alpha1.PublicServerCertificate, host string) []string {
	if len(c.DNSNames) > 0 {
		return c.DNSNames
	}
	return []string{host}
}

// HostOf returns the hostname of a URL such as spec.shardBaseURL, or "" when it has none.
func HostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// RootShardURL is where other kcp components reach a root shard: spec.shardBaseURL, else its
// Service.
func RootShardURL(rs *v1alpha1.RootShard) string {
	if rs.Spec.ShardBaseURL != "" {
		return rs.Spec.ShardBaseURL
	}
	return ServiceURL(RootShard(rs.GetName()).Deployment(), rs.GetNamespace(), rs.Spec.ClusterDomain)
}

// ShardURL is where other kcp components reach a shard: spec.shardBaseURL, else its Service.
func ShardURL(sh *v1alpha1.Shard) string {
	if sh.Spec.ShardBaseURL != "" {
		return sh.Spec.ShardBaseURL
	}
	return ServiceURL(Shard(sh.GetName()).Deployment(), sh.GetNamespace(), sh.Spec.ClusterDomain)
}

// CacheServerURL is where shards reach a cache server:
// https://<cs>-cache-server.<ns>.svc.<cd>:6443.
func CacheServerURL(cs *v1alpha1.CacheServer) string {
	return ServiceURL(CacheServer(cs.GetName()).Deployment(), cs.GetNamespace(), cs.Spec.ClusterDomain)
}

// FrontProxyURL is the public URL of a front-proxy: its spec.external, else the deprecated
// spec.externalHostname (with its own port, else kcp's), else its RootShard's spec.external.
func FrontProxyURL(fp *v1alpha1.FrontProxy, rs *v1alpha1.RootShard) string {
	s := fp.Spec
	switch {
	case s.External.Hostname != "":
		return HTTPS(s.External.Hostname, s.External.Port)
	case s.ExternalHostname != "":
		if _, _, err := net.SplitHostPort(s.ExternalHostname); err == nil {
			return "https://" + s.ExternalHostname
		}
		return HTTPS(s.ExternalHostname, Port)
	case rs != nil:
		return HTTPS(rs.Spec.External.Hostname, rs.Spec.External.Port)
	}
	return ""
}
