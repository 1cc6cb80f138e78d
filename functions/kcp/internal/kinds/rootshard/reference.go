package rootshard

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// composeReference publishes the RootShard's reference Secret: the base URL other components
// reach it at, the server CA that verifies it and its proxy, the client CA its clients'
// certificates chain to, the installation's public (and private) URL, the image it runs
// (status.image, which components follow in an upgrade), and what a Shard or FrontProxy
// naming the RootShard by this Secret (spec.rootShard.secretRef) reads of it: the names of
// its root CA Secret, additional client CAs and cache server, and its cluster domain.
// Called last: it waits for every certificate.
func (c *composer) composeReference(image string) {
	r := reference.OfRootShard(c.rs, c.b.Namespace, image)
	c.b.Reference(r, map[string]string{names.LabelOwnerRootShard: string(c.name)},
		builder.ReferenceCAs{CA: []string{c.name.CA(names.CAServer)}, ClientCA: []string{c.name.CA(names.CAClient)}})
}
