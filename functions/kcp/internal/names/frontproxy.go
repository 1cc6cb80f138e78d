package names

// FrontProxy names the objects of one FrontProxy. Its certificates and dynamic kubeconfig
// carry the name of its RootShard too, as in kcp-operator.
type FrontProxy string

// Deployment and Service of the front-proxy.
func (f FrontProxy) Deployment() string { return string(f) + "-front-proxy" }

// Config is the front-proxy's path-mapping ConfigMap.
func (f FrontProxy) Config() string { return string(f) + "-config" }

// MergedClientCA is the RootShard's client CA plus the RootShard's and the front-proxy's
// clientCABundleRef.
func (f FrontProxy) MergedClientCA() string { return string(f) + "-merged-client-ca" }

// MergedCABundle is the RootShard's server CA plus the front-proxy's caBundleSecretRef.
func (f FrontProxy) MergedCABundle() string { return string(f) + "-merged-ca-bundle" }

// Cert is a certificate of the front-proxy and its Secret: <rs>-<fp>-server, -kubeconfig or
// -requestheader.
func (f FrontProxy) Cert(root RootShard, kind string) string {
	return string(root) + "-" + string(f) + "-" + kind
}

// DynamicKubeconfig is the Secret with the kubeconfig the front-proxy reaches the root shard
// and discovers shards with.
func (f FrontProxy) DynamicKubeconfig(root RootShard) string {
	return string(root) + "-" + string(f) + "-dynamic-kubeconfig"
}
