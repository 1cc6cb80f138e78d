package kubeconfigfile

import "sort"

// Embedded describes a kubeconfig whose one user authenticates with an embedded client
// certificate and whose clusters all trust the same embedded CA bundle: the shape of the
// kubeconfigs kcp-operator writes for its Kubeconfig kind.
//
// Clusters and contexts are maps, as in client-go's clientcmd API: Config lists them sorted
// by name, which is the order clientcmd.Write writes them in.
type Embedded struct {
	// Clusters maps a cluster name to its server URL.
	Clusters map[string]string
	// Contexts maps a context name to its cluster; every context uses the one user.
	Contexts       map[string]string
	CurrentContext string
	// CAData is the PEM bundle every cluster trusts.
	CAData   []byte
	UserName string
	// CertData and KeyData are the user's PEM client certificate (chain) and private key.
	CertData []byte
	KeyData  []byte
}

// Config returns the kubeconfig, with apiVersion and kind set.
func (e Embedded) Config() Config {
	c := Config{
		APIVersion:     "v1",
		Kind:           "Config",
		Clusters:       make([]NamedCluster, 0, len(e.Clusters)),
		Contexts:       make([]NamedContext, 0, len(e.Contexts)),
		CurrentContext: e.CurrentContext,
		Users:          []NamedUser{{Name: e.UserName, User: User{ClientCertificateData: e.CertData, ClientKeyData: e.KeyData}}},
	}
	for _, name := range sortedKeys(e.Clusters) {
		c.Clusters = append(c.Clusters, NamedCluster{Name: name, Cluster: Cluster{Server: e.Clusters[name], CertificateAuthorityData: e.CAData}})
	}
	for _, name := range sortedKeys(e.Contexts) {
		c.Contexts = append(c.Contexts, NamedContext{Name: name, Context: Context{Cluster: e.Contexts[name], User: e.UserName}})
	}
	return c
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
