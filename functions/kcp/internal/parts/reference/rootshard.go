package reference

import (
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// OfRootShard is the reference a RootShard publishes: its name and namespace, base URL and
// image (status.image), and what a Shard or FrontProxy reads of it besides: its public and
// private addresses, the name of its root CA's Secret, its cluster domain, additional client
// CAs and cache server. The CA bundles are left to the builder, which reads them from the
// issued Secrets.
func OfRootShard(rs *v1alpha1.RootShard, namespace, image string) Reference {
	s := rs.Spec
	r := Reference{
		Kind: v1alpha1.KindRootShard, Name: rs.GetName(), Namespace: namespace, URL: names.RootShardURL(rs), Image: image,
		RootCASecret: names.RootCASecret(rs), ClusterDomain: s.ClusterDomain, CacheServer: names.CacheServerOf(nil, rs),
	}
	if s.External.Hostname != "" {
		r.ExternalURL = names.ExternalURL(s.External)
	}
	if s.External.PrivateHostname != "" {
		r.ExternalAdminURL = names.ExternalAdminURL(s.External)
	}
	if ref := s.ClientCABundleRef; ref != nil {
		r.ClientCABundleSecret = ref.Name
	}
	return r
}

// RootShard rebuilds, from a RootShard's reference, the RootShard XR as far as a Shard or
// FrontProxy reads it: name and namespace, spec.shardBaseURL (unset when the URL is the
// RootShard's Service's), spec.external, spec.clusterDomain, the root CA's Secret
// (spec.certificates.caSecretRef, unset when it is the default <rs>-ca), spec.clientCABundleRef,
// spec.cache.ref and status.image. It is the inverse of OfRootShard on those fields, so a
// component composes the same from either. r must have passed Parse.
//
// A reference published before these keys existed rebuilds a RootShard without a private
// address, cluster domain, client CA bundle or cache server, and with the default root CA
// Secret.
func (r Reference) RootShard() *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{}
	rs.SetName(r.Name)
	rs.SetNamespace(r.Namespace)
	s := &rs.Spec
	s.ClusterDomain = r.ClusterDomain
	if r.URL != names.RootShardURL(rs) {
		s.ShardBaseURL = r.URL
	}
	if host, port, ok := hostPort(r.ExternalURL); ok {
		s.External.Hostname, s.External.Port = host, port
	}
	if host, port, ok := hostPort(r.ExternalAdminURL); ok {
		s.External.PrivateHostname = host
		if port != s.External.Port {
			s.External.PrivatePort = &port
		}
	}
	if n := r.RootCASecret; n != "" && n != names.RootShard(r.Name).RootCA() {
		s.Certificates.CASecretRef = &corev1.LocalObjectReference{Name: n}
	}
	if n := r.ClientCABundleSecret; n != "" {
		s.ClientCABundleRef = &corev1.LocalObjectReference{Name: n}
	}
	if n := r.CacheServer; n != "" {
		s.Cache.Ref = &corev1.LocalObjectReference{Name: n}
	}
	rs.Status.Image = r.Image
	return rs
}

// hostPort is the host and port of an https URL, the port 443 when it names none; false
// for "" or a URL that does not parse.
func hostPort(raw string) (string, uint32, bool) {
	if raw == "" {
		return "", 0, false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", 0, false
	}
	if u.Port() == "" {
		return u.Hostname(), 443, true
	}
	p, err := strconv.ParseUint(u.Port(), 10, 32)
	if err != nil {
		return "", 0, false
	}
	return u.Hostname(), uint32(p), true
}
