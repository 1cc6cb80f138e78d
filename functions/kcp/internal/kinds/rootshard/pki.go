package rootshard

import (
	"slices"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// Certificate template keys a RootShard understands, as in kcp-operator.
var (
	leafTemplateKeys  = []string{"server", "virtual-workspaces", "service-account", "logical-cluster-admin", "external-logical-cluster-admin", "client", "kcp-operator"}
	caTemplateKeys    = []string{"root-ca", "server-ca", "client-ca", "requestheader-client-ca", "service-account-ca"}
	proxyTemplateKeys = []string{"server", "kubeconfig", "requestheader"}
)

// The RootShard's CertificateSets, by the suffix they add to the RootShard's name: short
// enough that a RootShard's longest name (MaxNameLength) gives a set name that is a valid
// label value (Crossplane labels what the set composes with it), and unlike a Shard's.
var (
	setCAs     = names.RootShardCertificateSets[0]
	setServing = names.RootShardCertificateSets[1]
	setClients = names.RootShardCertificateSets[2]
)

// composePKI composes the root CA (unless caSecretRef provides it), the four intermediate
// CAs with their Issuers, and the root shard's and its proxy's leaf certificates.
func (c *composer) composePKI() {
	ns := c.b.Namespace
	labels := names.Labels(string(c.name), names.ComponentRootShard)
	secretLabels := map[string]string{names.LabelOwnerRootShard: string(c.name)}
	tpl := c.rs.Spec.CertificateTemplates
	// Three CertificateSets, each well under Crossplane's default burst of watch events:
	// the CAs and their Issuers, the serving certificates, the client certificates.
	defer c.b.InCertificateSet("", nil)
	c.b.InCertificateSet(setCAs, labels)

	if ref := c.rs.Spec.Certificates.IssuerRef; ref != nil {
		// The user's issuer reference is copied verbatim, empty kind and group included.
		root := pki.CA(c.name.RootCA(), ns, cmmeta.IssuerReference{Name: ref.Name, Kind: ref.Kind, Group: ref.Group}, labels, secretLabels)
		c.b.Certificate(root, tpl.Get("root-ca"))
	}
	c.b.Issuer(pki.CAIssuer(c.name.RootCA(), ns, names.RootCASecret(c.rs), labels))

	for _, ca := range names.IntermediateCAs {
		cert := pki.CA(c.name.CA(ca), ns, pki.IssuerRef(c.name.RootCA()), labels, secretLabels)
		c.b.Certificate(cert, tpl.Get(ca+"-ca"))
		c.b.Issuer(pki.CAIssuer(c.name.CA(ca), ns, c.name.CA(ca), labels))
	}

	leaf := func(kind, cn string, orgs []string, usages []cmv1.KeyUsage, issuerCA string) pki.Leaf {
		return pki.Leaf{
			Name: c.name.Cert(kind), Namespace: ns, CommonName: cn, Organizations: orgs,
			Usages: usages, Issuer: c.name.CA(issuerCA), Labels: labels, SecretLabels: secretLabels,
		}
	}
	c.b.InCertificateSet(setServing, labels)
	server := leaf("server", "", nil, pki.UsagesServing, names.CAServer)
	server.DNSNames = c.serverDNSNames()
	vw := leaf("virtual-workspaces", "", nil, pki.UsagesServerAuth, names.CAServer)
	vw.DNSNames = []string{c.rs.Spec.External.Hostname}
	for _, l := range []struct {
		key  string
		leaf pki.Leaf
	}{
		{"server", server},
		{"virtual-workspaces", vw},
		{"service-account", leaf("service-account", c.name.Cert("service-account"), nil, pki.UsagesSigningKey, names.CAServiceAccount)},
	} {
		c.b.Certificate(l.leaf.Certificate(), tpl.Get(l.key))
	}
	if p := c.rs.Spec.Public; p != nil && p.ServerCertificate != nil {
		c.b.Certificate(pki.PublicServer(c.name.Cert(names.CertPublicServer), ns, p.ServerCertificate, names.PublicDNSNames(p.ServerCertificate, p.Hostname), labels, secretLabels), nil)
	}
	c.b.InCertificateSet(setClients, labels)
	for _, l := range []struct {
		key  string
		leaf pki.Leaf
	}{
		{"logical-cluster-admin", leaf("logical-cluster-admin", "logical-cluster-admin", []string{"system:kcp:logical-cluster-admin"}, pki.UsagesClient, names.CAClient)},
		{"external-logical-cluster-admin", leaf("external-logical-cluster-admin", "external-logical-cluster-admin", []string{"system:kcp:external-logical-cluster-admin"}, pki.UsagesClient, names.CAClient)},
		{"client", leaf("client", string(c.name), []string{"system:masters"}, pki.UsagesClient, names.CAClient)},
		{"kcp-operator", leaf("kcp-operator", "system:kcp-operator", []string{"system:kcp:admin"}, pki.UsagesClient, names.CAClient)},
	} {
		c.b.Certificate(l.leaf.Certificate(), tpl.Get(l.key))
	}

	// The internal proxy's certificates belong to the RootShard too: its serving certificate
	// with the serving ones, its client certificates with the clients.
	proxyLabels := names.Labels(string(c.name), names.ComponentRootShardProxy)
	proxyTpl := c.proxyTemplates()
	proxy := func(kind, cn string, orgs []string, usages []cmv1.KeyUsage, issuerCA string) pki.Leaf {
		return pki.Leaf{
			Name: c.name.ProxyCert(kind), Namespace: ns, CommonName: cn, Organizations: orgs,
			Usages: usages, Issuer: c.name.CA(issuerCA), Labels: proxyLabels, SecretLabels: secretLabels,
		}
	}
	proxyServer := proxy("server", "", nil, pki.UsagesServing, names.CAServer)
	svc := c.name.Proxy()
	// Unlike kcp-operator (quirk 9) the FQDN uses spec.clusterDomain, not a literal cluster.local.
	proxyServer.DNSNames = []string{svc, svc + "." + ns, names.ServiceFQDN(svc, ns, c.rs.Spec.ClusterDomain)}
	c.b.InCertificateSet(setServing, labels)
	c.b.Certificate(proxyServer.Certificate(), proxyTpl.Get("server"))
	c.b.InCertificateSet(setClients, labels)
	c.b.Certificate(proxy("kubeconfig", "kcp-root-shard-proxy", []string{"system:masters"}, pki.UsagesClient, names.CAClient).Certificate(), proxyTpl.Get("kubeconfig"))
	c.b.Certificate(proxy("requestheader", "kcp-root-shard-proxy", nil, pki.UsagesClient, names.CARequestHeaderClient).Certificate(), proxyTpl.Get("requestheader"))
}

// serverDNSNames is the sorted set of names the root shard serves under.
func (c *composer) serverDNSNames() []string {
	dns := []string{
		names.ServiceFQDN(c.name.Deployment(), c.b.Namespace, c.rs.Spec.ClusterDomain),
		c.rs.Spec.External.Hostname,
	}
	if h := names.HostOf(c.rs.Spec.ShardBaseURL); h != "" {
		dns = append(dns, h)
	}
	if p := c.rs.Spec.Public; p != nil && p.ServerCertificate == nil {
		dns = append(dns, p.Hostname) // no certificate of its own: this one serves the public name
	}
	slices.Sort(dns)
	return slices.Compact(dns)
}

func (c *composer) proxyTemplates() v1alpha1.CertificateTemplateMap {
	if p := c.rs.Spec.Proxy; p != nil {
		return p.CertificateTemplates
	}
	return nil
}
