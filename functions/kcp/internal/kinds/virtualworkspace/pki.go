package virtualworkspace

import (
	"maps"
	"slices"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// Certificate template keys a VirtualWorkspace understands.
var templateKeys = []string{"server", "client"}

// composePKI composes the server's two certificates, issued by the RootShard's CAs, in
// kcp-operator's order.
func (c *composer) composePKI() {
	secretLabels := map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerVirtualWS: c.vw.Name}
	tpl := c.vw.Spec.CertificateTemplates

	// The client certificate is labelled with a copy of the VirtualWorkspace's own labels, as
	// kcp-operator does (unlike every other certificate).
	client := pki.Leaf{
		Name: c.name.Cert("client"), Namespace: c.b.Namespace,
		CommonName: c.name.Deployment(), Organizations: []string{"system:masters"},
		Usages: pki.UsagesClient, Issuer: c.root.CA(names.CAClient),
		Labels: maps.Clone(c.vw.Labels), SecretLabels: secretLabels,
	}
	c.b.Certificate(client.Certificate(), tpl.Get("client"))

	// Unlike kcp-operator, the certificate covers spec.external.hostname too: shards advertise
	// that name as their virtual workspace URL, so clients, and the shard itself when it
	// forwards /services/ there, verify the server under it (found running kcp v0.32.3).
	dns := []string{"localhost", names.ServiceFQDN(c.name.Deployment(), c.b.Namespace, c.vw.Spec.ClusterDomain)}
	if h := c.vw.Spec.External.Hostname; h != "" && !slices.Contains(dns, h) {
		dns = append(dns, h)
	}
	server := pki.Leaf{
		Name: c.name.Cert("server"), Namespace: c.b.Namespace,
		DNSNames: dns,
		Usages:   pki.UsagesServing, Issuer: c.root.CA(names.CAServer),
		Labels: names.Labels(c.vw.Name, names.ComponentVirtualWS), SecretLabels: secretLabels,
	}
	c.b.Certificate(server.Certificate(), tpl.Get("server"))
}
