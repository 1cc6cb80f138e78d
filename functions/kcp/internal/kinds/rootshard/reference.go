package rootshard

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// composeReference publishes the RootShard's reference Secret: the base URL other components
// reach it at, the server CA that verifies it and its proxy, the client CA its clients'
// certificates chain to, the installation's public URL and the image it runs (status.image,
// which components follow in an upgrade). Called last: it waits for every certificate.
func (c *composer) composeReference(image string) {
	r := reference.Reference{Kind: reference.KindRootShard, Name: c.rs.Name, Namespace: c.Namespace, URL: c.baseURL, Image: image}
	if c.rs.Spec.External.Hostname != "" {
		r.ExternalURL = names.ExternalURL(c.rs.Spec.External)
	}
	c.Reference(r, map[string]string{names.LabelOwnerRootShard: string(c.name)},
		builder.ReferenceCAs{CA: []string{c.name.CA(names.CAServer)}, ClientCA: []string{c.name.CA(names.CAClient)}})
}
