package names

// Every name an XR's composition may give an object: what it composes and the Secrets
// cert-manager writes for its Certificates, whatever its spec switches on. Kinds differ
// (a Deployment and its Service share a name), so the lists hold names, not objects. Two XRs
// of one namespace whose lists share a name would compose the same object, and the second
// would either fail on the first's controller reference or adopt an object that has none;
// the KcpInstallation kind refuses such names before anything is composed.
//
// A Shard or FrontProxy placed in another cluster also composes provider-kubernetes Objects
// named <deployment>.<name>.<kind> (compose/placement): the dot keeps them apart from every
// name here.
//
// TestComposedListsEveryGoldenObject holds these lists against every golden render.

// Composed lists the names a RootShard's composition may give an object.
//
// shards are the RootShard's Shards, whose kcp objects it observes; the ProviderConfigs of
// workspaces other than root are named with a dot, which no XR name holds, so they cannot
// clash with another XR's objects.
func (r RootShard) Composed(shards ...string) []string {
	out := append(r.Secrets(), r.Deployment(), r.Proxy(), r.ProxyConfig(), r.ProviderConfig(RootWorkspace), EncryptionConfig(string(r)))
	for _, set := range RootShardCertificateSets {
		out = append(out, string(r)+"-"+set)
	}
	for _, sh := range shards {
		out = append(out, r.Registration(sh))
	}
	return out
}

// Composed lists the names a Shard's composition may give an object.
func (s Shard) Composed() []string {
	return append(s.Secrets(), s.Deployment(), string(s)+"-"+ShardCertificateSet, EncryptionConfig(string(s)))
}

// The CertificateSets a RootShard and a Shard compose their Issuers and Certificates through,
// by the suffix each adds to the XR's name: short enough that the longest admitted name gives
// a valid label value (Crossplane labels what a set composes with its name), and the Shard's
// unlike any RootShard's, so no Shard's set has a RootShard's set's name.
var RootShardCertificateSets = []string{"ca-certs", "serving-certs", "client-certs"}

// ShardCertificateSet is the suffix of a Shard's CertificateSet.
const ShardCertificateSet = "shard-certs"

// Composed lists the names a CacheServer's composition may give an object.
func (c CacheServer) Composed() []string {
	return []string{c.CA(), c.ServerCertificate(), c.ClientCertificate(), c.Kubeconfig(), c.Deployment(), Reference(string(c))}
}

// Composed lists the names a FrontProxy of the RootShard root may give an object.
func (f FrontProxy) Composed(root RootShard) []string {
	return []string{
		f.Deployment(), f.Config(), f.MergedClientCA(), f.MergedCABundle(), f.DynamicKubeconfig(root),
		f.Cert(root, "server"), f.Cert(root, "kubeconfig"), f.Cert(root, "requestheader"), f.Cert(root, CertPublicServer),
		f.Cert(root, CertMonitoring), Reference(string(f)),
	}
}

// Composed lists the names a VirtualWorkspace's composition may give an object.
func (v VirtualWorkspace) Composed() []string {
	return []string{v.Deployment(), v.Cert("server"), v.Cert("client"), v.MergedClientCA()}
}

// Composed lists the names a Kubeconfig writing its kubeconfig into Secret secret may give
// an object.
func (k Kubeconfig) Composed(secret string) []string { return []string{k.Certificate(), secret} }
