// Package reference is the reference Secret <name>-reference that a RootShard, FrontProxy
// or CacheServer publishes (story 3 of docs/design/many-teams-many-clusters.md): what anyone
// needs to reach the published XR and trust it, its URLs and CA certificates, and never a
// key, so it can be synced to any namespace or cluster. reference.go is its content, as
// the publishing kinds write it; parse.go reads it back, refusing what is not a reference.
package reference

import "github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"

// Kinds lists the kinds that publish a reference.
var Kinds = []string{v1alpha1.KindRootShard, v1alpha1.KindFrontProxy, v1alpha1.KindCacheServer}

// The keys of a reference Secret.
const (
	KeyKind        = "kind"
	KeyName        = "name"
	KeyNamespace   = "namespace"
	KeyURL         = "url"
	KeyCA          = "ca.crt"
	KeyClientCA    = "client-ca.crt"
	KeyExternalURL = "external-url"
	KeyImage       = "image"
)

// The keys only a RootShard's reference has: what a Shard or FrontProxy naming it by its
// reference Secret reads of the RootShard besides its URLs and CAs (rootshard.go).
const (
	// KeyExternalAdminURL is the RootShard's private address (spec.external.privateHostname
	// and privatePort) as a URL, when it has one.
	KeyExternalAdminURL = "external-admin-url"
	// KeyRootCASecret is the name of the Secret holding the root CA's certificate.
	KeyRootCASecret = "root-ca-secret"
	// KeyClusterDomain is the RootShard's spec.clusterDomain, when set.
	KeyClusterDomain = "cluster-domain"
	// KeyClientCABundleSecret is the RootShard's spec.clientCABundleRef.name, when set.
	KeyClientCABundleSecret = "client-ca-bundle-secret"
	// KeyCacheServer is the RootShard's spec.cache.ref.name, when set.
	KeyCacheServer = "cache-server"
)

// Reference is what a reference Secret publishes.
type Reference struct {
	// Kind, Name and Namespace name the published XR.
	Kind, Name, Namespace string
	// URL is where the published XR's server is reached.
	URL string
	// CA is the PEM bundle that verifies the server's certificate.
	CA string
	// ClientCA is the PEM bundle a client's certificate must chain to; "" when the kind
	// has none to publish.
	ClientCA string
	// ExternalURL is the installation's public URL (a RootShard's spec.external), or "".
	ExternalURL string
	// Image is what the published XR runs (its status.image), or "".
	Image string

	// The rest is published by a RootShard only, and names Secrets and a CacheServer that
	// a Shard or FrontProxy reads in its own namespace; each is "" when it has none.

	// ExternalAdminURL is the RootShard's private address as a URL.
	ExternalAdminURL string
	// RootCASecret names the Secret of the root CA.
	RootCASecret string
	// ClusterDomain is the RootShard's spec.clusterDomain.
	ClusterDomain string
	// ClientCABundleSecret names the RootShard's additional client CAs (spec.clientCABundleRef).
	ClientCABundleSecret string
	// CacheServer names the RootShard's CacheServer (spec.cache.ref).
	CacheServer string
}

// Data is the Secret's data: every key, except the optional ones that are empty
// (client-ca.crt, external-url, image and the RootShard's own), so a reader tells "none"
// from "empty".
func (r Reference) Data() map[string][]byte {
	out := map[string][]byte{
		KeyKind:      []byte(r.Kind),
		KeyName:      []byte(r.Name),
		KeyNamespace: []byte(r.Namespace),
		KeyURL:       []byte(r.URL),
		KeyCA:        []byte(r.CA),
	}
	for k, v := range map[string]string{
		KeyClientCA: r.ClientCA, KeyExternalURL: r.ExternalURL, KeyImage: r.Image,
		KeyExternalAdminURL: r.ExternalAdminURL, KeyRootCASecret: r.RootCASecret, KeyClusterDomain: r.ClusterDomain,
		KeyClientCABundleSecret: r.ClientCABundleSecret, KeyCacheServer: r.CacheServer,
	} {
		if v != "" {
			out[k] = []byte(v)
		}
	}
	return out
}
