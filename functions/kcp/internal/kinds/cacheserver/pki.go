package cacheserver

import (
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// Certificate template keys a CacheServer understands, as in kcp-operator.
var templateKeys = []string{"root-ca", "server", "client"}

// composePKI composes the cache server's own CA chain, independent of any RootShard: the
// root CA Certificate <cs>-ca issued by spec.certificates.issuerRef, the Issuer <cs>-ca
// signing with it, and the leaf certificates <cs>-server and <cs>-client-certificate.
func (c *composer) composePKI() {
	ns := c.b.Namespace
	labels := names.Labels(string(c.name), names.ComponentCacheServer)
	secretLabels := map[string]string{names.LabelOwnerCacheServer: string(c.name)}
	tpl := c.cs.Spec.CertificateTemplates

	if ref := c.cs.Spec.Certificates.IssuerRef; ref != nil {
		// The user's issuer reference is copied verbatim, empty kind and group included.
		root := pki.CA(c.name.CA(), ns, cmmeta.IssuerReference{Name: ref.Name, Kind: ref.Kind, Group: ref.Group}, labels, secretLabels)
		c.b.Certificate(root, tpl.Get("root-ca"))
	}

	server := pki.Leaf{
		Name: c.name.ServerCertificate(), Namespace: ns,
		DNSNames: []string{"localhost", names.ServiceFQDN(c.name.Deployment(), ns, c.cs.Spec.ClusterDomain)},
		Usages:   pki.UsagesServing, Issuer: c.name.CA(), Labels: labels, SecretLabels: secretLabels,
	}
	c.b.Certificate(server.Certificate(), tpl.Get("server"))

	client := pki.Leaf{
		Name: c.name.ClientCertificate(), Namespace: ns,
		CommonName: "cache-client", Organizations: []string{"system:masters"},
		Usages: pki.UsagesCacheClient, Issuer: c.name.CA(), Labels: labels, SecretLabels: secretLabels,
	}
	c.b.Certificate(client.Certificate(), tpl.Get("client"))

	c.b.Issuer(pki.CAIssuer(c.name.CA(), ns, c.name.CA(), labels))
}
