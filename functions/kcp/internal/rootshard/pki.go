package rootshard

import (
	"slices"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/crossplane/function-sdk-go/resource"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/pki"
)

// Certificate template keys a RootShard understands, as in kcp-operator.
var (
	leafTemplateKeys  = []string{"server", "virtual-workspaces", "service-account", "logical-cluster-admin", "external-logical-cluster-admin", "client", "kcp-operator"}
	caTemplateKeys    = []string{"root-ca", "server-ca", "client-ca", "requestheader-client-ca", "service-account-ca"}
	proxyTemplateKeys = []string{"server", "kubeconfig", "requestheader"}
)

// composePKI composes the root CA (unless caSecretRef provides it), the four intermediate
// CAs with their Issuers, and the root shard's and its proxy's leaf certificates.
func (c *composer) composePKI() {
	ns := c.namespace
	labels := names.Labels(string(c.name), names.ComponentRootShard)
	secretLabels := map[string]string{names.LabelOwnerRootShard: string(c.name)}
	tpl := c.rs.Spec.CertificateTemplates

	if ref := c.rs.Spec.Certificates.IssuerRef; ref != nil {
		// The user's issuer reference is copied verbatim, empty kind and group included.
		root := pki.CA(c.name.RootCA(), ns, cmmeta.IssuerReference{Name: ref.Name, Kind: ref.Kind, Group: ref.Group}, labels, secretLabels)
		c.addCertificate(root, tpl.Get("root-ca"))
	}
	c.addIssuer(pki.CAIssuer(c.name.RootCA(), ns, c.rootCASecret(), labels))

	for _, ca := range names.IntermediateCAs {
		cert := pki.CA(c.name.CA(ca), ns, pki.IssuerRef(c.name.RootCA()), labels, secretLabels)
		c.addCertificate(cert, tpl.Get(ca+"-ca"))
		c.addIssuer(pki.CAIssuer(c.name.CA(ca), ns, c.name.CA(ca), labels))
	}

	leaf := func(kind, cn string, orgs []string, usages []cmv1.KeyUsage, issuerCA string) pki.Leaf {
		return pki.Leaf{
			Name: c.name.Cert(kind), Namespace: ns, CommonName: cn, Organizations: orgs,
			Usages: usages, Issuer: c.name.CA(issuerCA), Labels: labels, SecretLabels: secretLabels,
		}
	}
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
		{"logical-cluster-admin", leaf("logical-cluster-admin", "logical-cluster-admin", []string{"system:kcp:logical-cluster-admin"}, pki.UsagesClient, names.CAClient)},
		{"external-logical-cluster-admin", leaf("external-logical-cluster-admin", "external-logical-cluster-admin", []string{"system:kcp:external-logical-cluster-admin"}, pki.UsagesClient, names.CAClient)},
		{"client", leaf("client", string(c.name), []string{"system:masters"}, pki.UsagesClient, names.CAClient)},
		{"kcp-operator", leaf("kcp-operator", "system:kcp-operator", []string{"system:kcp:admin"}, pki.UsagesClient, names.CAClient)},
	} {
		c.addCertificate(l.leaf.Certificate(), tpl.Get(l.key))
	}

	// The internal proxy's certificates belong to the RootShard too.
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
	c.addCertificate(proxyServer.Certificate(), proxyTpl.Get("server"))
	c.addCertificate(proxy("kubeconfig", "kcp-root-shard-proxy", []string{"system:masters"}, pki.UsagesClient, names.CAClient).Certificate(), proxyTpl.Get("kubeconfig"))
	c.addCertificate(proxy("requestheader", "kcp-root-shard-proxy", nil, pki.UsagesClient, names.CARequestHeaderClient).Certificate(), proxyTpl.Get("requestheader"))
}

// serverDNSNames is the sorted set of names the root shard serves under.
func (c *composer) serverDNSNames() []string {
	dns := []string{
		names.ServiceFQDN(c.name.Deployment(), c.namespace, c.rs.Spec.ClusterDomain),
		c.rs.Spec.External.Hostname,
	}
	if h := hostOf(c.rs.Spec.ShardBaseURL); h != "" {
		dns = append(dns, h)
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

// addCertificate applies the user's template, registers the certificate's Secret as a
// workload input and composes it, ready once cert-manager reports it Ready.
func (c *composer) addCertificate(cert *cmv1.Certificate, tpl *v1alpha1.CertificateTemplate) {
	pki.ApplyTemplate(cert, tpl)
	key := c.key("certificate", cert.Name)
	c.inputs.Certificate(cert.Spec.SecretName, key)
	c.certificates = append(c.certificates, key)
	c.out.Desired.Add(key, cert, readiness(c.st.CertificateIssued(key)))
}

// addIssuer composes an Issuer, ready once cert-manager reports it Ready.
func (c *composer) addIssuer(iss *cmv1.Issuer) {
	key := c.key("issuer", iss.Name)
	c.out.Desired.Add(key, iss, readiness(c.st.ConditionTrue(key, "Ready")))
}

func readiness(ok bool) resource.Ready {
	if ok {
		return resource.ReadyTrue
	}
	return resource.ReadyFalse
}
