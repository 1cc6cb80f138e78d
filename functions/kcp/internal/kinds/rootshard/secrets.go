package rootshard

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// composeKubeconfigs composes the two kubeconfig Secrets the root shard uses to reach
// logical clusters as their admin, through its own URL and through the external one.
func (c *composer) composeKubeconfigs() {
	internal := kubeconfigfile.Files{
		ClusterName: "root-shard", Server: c.baseURL, CAFile: kcpserver.PathServerCA,
		UserName: "shard", CertFile: kcpserver.DirLogicalClusterAdmin + "/tls.crt", KeyFile: kcpserver.DirLogicalClusterAdmin + "/tls.key",
		ContextName: "shard-base",
	}
	labels := map[string]string{names.LabelOwnerRootShard: string(c.name)}
	c.b.Secret(c.name.LogicalClusterAdminKubeconfig(), labels, map[string][]byte{"kubeconfig": internal.Config().Marshal()})

	server := names.ExternalAdminURL(c.rs.Spec.External)
	ca := kcpserver.PathServerCA
	if c.rs.Spec.CABundleSecretRef != nil {
		ca = kcpserver.PathCABundle
	}
	external := kubeconfigfile.Files{
		ClusterName: "root-shard", Server: server, CAFile: ca,
		UserName: "shard", CertFile: kcpserver.DirExternalLCA + "/tls.crt", KeyFile: kcpserver.DirExternalLCA + "/tls.key",
		ContextName: "shard-base",
	}
	c.b.Secret(c.name.ExternalLogicalClusterAdminKubeconfig(), labels, map[string][]byte{"kubeconfig": external.Config().Marshal()})
}

// composeMergedBundles composes the CA bundles that combine an issued CA with a CA bundle
// the user provides.
func (c *composer) composeMergedBundles() {
	s := c.rs.Spec
	labels := map[string]string{names.LabelOwnerRootShard: string(c.name)}
	serverCA, clientCA := c.name.CA(names.CAServer), c.name.CA(names.CAClient)
	var clientBundle []string
	if ref := s.ClientCABundleRef; ref != nil {
		clientBundle = []string{ref.Name}
	}
	if ref := s.CABundleSecretRef; ref != nil {
		c.b.MergedBundle(c.name.MergedCABundle(), labels, serverCA, ref.Name)
		c.b.MergedBundle(c.name.ProxyMergedCABundle(), labels, serverCA, ref.Name)
	}
	if len(clientBundle) > 0 {
		c.b.MergedBundle(c.name.MergedClientCA(), labels, append([]string{clientCA}, clientBundle...)...)
	}
	// The proxy's client CA bundle always exists, even without a user bundle.
	c.b.MergedBundle(c.name.ProxyMergedClientCA(), labels, append([]string{clientCA}, clientBundle...)...)
}
