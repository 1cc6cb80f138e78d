package names

// LabelOwnerKubeconfig is kcp-operator's ownership label of a Kubeconfig's Secrets.
const LabelOwnerKubeconfig = "operator.kcp.io/kubeconfig"

// KubeconfigCertificatePrefix starts the name of every Kubeconfig's client certificate.
const KubeconfigCertificatePrefix = "kubeconfig-cert-"

// Kubeconfig names the objects of one Kubeconfig.
type Kubeconfig string

// Certificate is the client Certificate and the Secret cert-manager writes for it.
func (k Kubeconfig) Certificate() string { return KubeconfigCertificatePrefix + string(k) }

// Group is the organization every client certificate of the Kubeconfig carries, the group
// kcp-operator binds cluster roles to.
func (k Kubeconfig) Group() string { return "kubeconfig:" + string(k) }

// Secrets lists every Secret a RootShard's composition writes or has cert-manager write:
// CAs, leaf certificates, kubeconfigs, merged bundles and its reference, those of its
// internal proxy included, whether or not the spec switches them on.
func (r RootShard) Secrets() []string {
	out := []string{r.RootCA()}
	for _, ca := range IntermediateCAs {
		out = append(out, r.CA(ca))
	}
	for _, kind := range []string{"server", "virtual-workspaces", "service-account", "logical-cluster-admin", "external-logical-cluster-admin", "client", "kcp-operator", CertPublicServer, CertMonitoring} {
		out = append(out, r.Cert(kind))
	}
	for _, kind := range []string{"server", "kubeconfig", "requestheader"} {
		out = append(out, r.ProxyCert(kind))
	}
	return append(out,
		r.LogicalClusterAdminKubeconfig(), r.ExternalLogicalClusterAdminKubeconfig(),
		r.MergedCABundle(), r.MergedClientCA(),
		r.ProxyDynamicKubeconfig(), r.ProxyMergedClientCA(), r.ProxyMergedCABundle(),
		r.AccessKubeconfig(), Reference(string(r)),
	)
}

// Secrets lists every Secret a Shard's composition writes or has cert-manager write,
// whether or not the spec switches them on.
func (s Shard) Secrets() []string {
	var out []string
	for _, kind := range []string{"server", "virtual-workspaces", "service-account", "client", "mounts-proxy", "logical-cluster-admin", "external-logical-cluster-admin", CertPublicServer, CertMonitoring} {
		out = append(out, s.Cert(kind))
	}
	return append(out,
		s.ClientKubeconfig(), s.LogicalClusterAdminKubeconfig(), s.ExternalLogicalClusterAdminKubeconfig(),
		s.MergedCABundle(), s.MergedClientCA(),
	)
}
