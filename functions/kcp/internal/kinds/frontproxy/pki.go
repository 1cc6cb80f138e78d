package frontproxy

import (
	"slices"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// Certificate template keys a FrontProxy understands, as in kcp-operator.
var templateKeys = []string{"server", "kubeconfig", "requestheader"}

// Identities of the front-proxy.
const (
	// CommonName of the front-proxy's client certificates: kcp's requestheader allowed names
	// accept it.
	CommonName = "kcp-front-proxy"
	// adminGroup is the group of the kubeconfig certificate with which the front-proxy reads
	// the root shard to discover shards.
	adminGroup = "system:masters"
)

// composePKI composes the front-proxy's three certificates, issued by the RootShard's CAs, in
// kcp-operator's order.
func (c *composer) composePKI() {
	labels := names.Labels(string(c.name), names.ComponentFrontProxy)
	secretLabels := map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerFrontProxy: string(c.name)}
	tpl := c.fp.Spec.CertificateTemplates
	leaf := func(kind, cn string, orgs []string, usages []cmv1.KeyUsage, issuerCA string) pki.Leaf {
		return pki.Leaf{
			Name: c.name.Cert(c.root, kind), Namespace: c.b.Namespace, CommonName: cn, Organizations: orgs,
			Usages: usages, Issuer: c.root.CA(issuerCA), Labels: labels, SecretLabels: secretLabels,
		}
	}
	server := leaf("server", "", nil, pki.UsagesServing, names.CAServer)
	server.DNSNames = c.serverDNSNames()
	c.b.Certificate(server.Certificate(), tpl.Get("server"))
	c.b.Certificate(leaf("kubeconfig", CommonName, []string{adminGroup}, pki.UsagesClient, names.CAClient).Certificate(), tpl.Get("kubeconfig"))
	c.b.Certificate(leaf("requestheader", CommonName, nil, pki.UsagesClient, names.CARequestHeaderClient).Certificate(), tpl.Get("requestheader"))
	if pub := c.fp.Spec.PublicServerCertificate; pub != nil {
		c.b.Certificate(pki.PublicServer(c.name.Cert(c.root, names.CertPublicServer), c.b.Namespace, pub, c.publicDNSNames(), labels, secretLabels), nil)
	}
}

// publicDNSNames are the names of the public serving certificate: its dnsNames, else the
// front-proxy's public hostname, which defaults to the RootShard's.
func (c *composer) publicDNSNames() []string {
	host := externalHost(c.fp)
	if host == "" {
		host = c.rs.Spec.External.Hostname
	}
	return names.PublicDNSNames(c.fp.Spec.PublicServerCertificate, host)
}

// serverDNSNames are the names the front-proxy serves under, in kcp-operator's order: its
// Service, the RootShard's public and private hostnames, and its own public hostname.
//
// Unlike kcp-operator (quirk 9) the Service FQDN uses the RootShard's spec.clusterDomain (a
// FrontProxy has none) instead of a literal cluster.local; the deprecated externalHostname
// is added without its port, which cert-manager would reject; and names are listed once.
func (c *composer) serverDNSNames() []string {
	svc := c.name.Deployment()
	dns := []string{svc, svc + "." + c.b.Namespace, names.ServiceFQDN(svc, c.b.Namespace, c.rs.Spec.ClusterDomain)}
	ext := c.rs.Spec.External
	dns = append(dns, ext.Hostname)
	if ext.PrivateHostname != "" {
		dns = append(dns, ext.PrivateHostname)
	}
	if h := externalHost(c.fp); h != "" {
		dns = append(dns, h)
	}
	out := make([]string, 0, len(dns))
	for _, n := range dns {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
