// Package reference is the reference Secret <name>-reference that a RootShard, FrontProxy
// or CacheServer publishes (story 3 of docs/design/many-teams-many-clusters.md): what anyone
// needs to reach the published XR and trust it, its URLs and CA certificates, and never a
// key, so it can be synced to any namespace or cluster. reference.go is its content, as
// the publishing kinds write it; parse.go reads it back, refusing what is not a reference.
package reference

// The kinds that publish a reference.
const (
	KindRootShard   = "RootShard"
	KindFrontProxy  = "FrontProxy"
	KindCacheServer = "CacheServer"
)

// Kinds lists the kinds that publish a reference.
var Kinds = []string{KindRootShard, KindFrontProxy, KindCacheServer}

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
}

// Data is the Secret's data: every key, except the optional ones that are empty
// (client-ca.crt, external-url, image), so a reader tells "none" from "empty".
func (r Reference) Data() map[string][]byte {
	out := map[string][]byte{
		KeyKind:      []byte(r.Kind),
		KeyName:      []byte(r.Name),
		KeyNamespace: []byte(r.Namespace),
		KeyURL:       []byte(r.URL),
		KeyCA:        []byte(r.CA),
	}
	for k, v := range map[string]string{KeyClientCA: r.ClientCA, KeyExternalURL: r.ExternalURL, KeyImage: r.Image} {
		if v != "" {
			out[k] = []byte(v)
		}
	}
	return out
}
