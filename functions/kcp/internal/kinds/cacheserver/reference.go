package cacheserver

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// composeReference publishes the CacheServer's reference Secret: its URL, and its own CA
// <cs>-ca, which signs its serving certificate. The same CA signs the client certificate its
// consumers present, and is its client CA too where its kcp checks clients against it
// (--client-ca-file, clientCA); an older kcp checks no client certificate, and then the
// reference says so by having no client-ca.crt. Called last: it waits for every certificate.
func (c *composer) composeReference() {
	cas := builder.ReferenceCAs{CA: []string{c.name.CA()}}
	if server(c.cs, c.image).ClientCA() {
		cas.ClientCA = []string{c.name.CA()}
	}
	r := reference.Reference{Kind: v1alpha1.KindCacheServer, Name: c.cs.Name, Namespace: c.b.Namespace, URL: c.url}
	c.b.Reference(r, map[string]string{names.LabelOwnerCacheServer: string(c.name)}, cas)
}
