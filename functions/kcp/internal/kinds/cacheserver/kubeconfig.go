package cacheserver

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// Where the cache server's consumers (root shard, shards, virtual workspaces) mount <cs>-ca
// and <cs>-client-certificate; the kubeconfig refers to these paths.
const (
	consumerCADir         = "/etc/cache-server/tls/ca/root"
	consumerClientCertDir = "/etc/cache-server/tls/client-certificate"
)

// KubeconfigFiles is the kubeconfig, in <cs>-kubeconfig, with which consumers reach the
// cache server: cluster, user and context are all named "cache".
func KubeconfigFiles(url string) kubeconfigfile.Files {
	return kubeconfigfile.Files{
		ClusterName: "cache", Server: url, CAFile: consumerCADir + "/tls.crt",
		UserName: "cache", CertFile: consumerClientCertDir + "/tls.crt", KeyFile: consumerClientCertDir + "/tls.key",
		ContextName: "cache",
	}
}

// composeKubeconfig composes <cs>-kubeconfig, labelled as kcp-operator labels it.
func (c *composer) composeKubeconfig() {
	c.b.Secret(c.name.Kubeconfig(), map[string]string{names.LabelOwnerCacheServer: string(c.name)},
		map[string][]byte{"kubeconfig": KubeconfigFiles(c.url).Config().Marshal()})
}
