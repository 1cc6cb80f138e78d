// Package pki builds the cert-manager Issuers and Certificates of a kcp installation.
//
// The defaults (RSA 4096, one-year leaves renewed a week early, ten-year CAs renewed a month
// early) and the certificate template merge rules are kcp-operator's.
package pki

import (
	"slices"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Lifetimes kcp-operator gives its certificates.
const (
	LeafDuration    = 365 * 24 * time.Hour
	LeafRenewBefore = 7 * 24 * time.Hour
	CADuration      = 10 * 365 * 24 * time.Hour
	CARenewBefore   = 30 * 24 * time.Hour
)

// Usages of the certificate kinds kcp uses.
var (
	UsagesServing       = []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature}
	UsagesServerAuth    = []cmv1.KeyUsage{cmv1.UsageServerAuth}
	UsagesClient        = []cmv1.KeyUsage{cmv1.UsageClientAuth}
	UsagesSigningKey    = []cmv1.KeyUsage{cmv1.UsageDigitalSignature, cmv1.UsageKeyEncipherment}
	UsagesCacheClient   = []cmv1.KeyUsage{cmv1.UsageClientAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature}
	issuerKindIssuer    = "Issuer"
	certManagerAPIGroup = "cert-manager.io"
)

// IssuerRef references a namespaced cert-manager Issuer by name.
func IssuerRef(name string) cmmeta.IssuerReference {
	return cmmeta.IssuerReference{Name: name, Kind: issuerKindIssuer, Group: certManagerAPIGroup}
}

// Leaf describes a leaf certificate; its Secret has the same name.
type Leaf struct {
	Name          string
	Namespace     string
	CommonName    string
	Organizations []string
	DNSNames      []string
	Usages        []cmv1.KeyUsage
	Issuer        string
	Labels        map[string]string
	SecretLabels  map[string]string
}

// Certificate returns the leaf as a cert-manager Certificate with kcp-operator's defaults.
func (l Leaf) Certificate() *cmv1.Certificate {
	c := base(l.Name, l.Namespace, l.Labels, l.SecretLabels)
	c.Spec.CommonName = l.CommonName
	if len(l.Organizations) > 0 {
		c.Spec.Subject = &cmv1.X509Subject{Organizations: slices.Clone(l.Organizations)}
	}
	c.Spec.DNSNames = slices.Clone(l.DNSNames)
	c.Spec.Usages = slices.Clone(l.Usages)
	c.Spec.IssuerRef = IssuerRef(l.Issuer)
	c.Spec.Duration = &metav1.Duration{Duration: LeafDuration}
	c.Spec.RenewBefore = &metav1.Duration{Duration: LeafRenewBefore}
	return c
}

// PublicServer returns a component's second serving certificate, for the names clients reach
// it at from outside, issued by the user's issuer (typically a public ACME one). It has no
// lifetime of its own: a public CA decides it, and cert-manager renews at two thirds.
func PublicServer(name, namespace string, c *v1alpha1.PublicServerCertificate, dnsNames []string, labels, secretLabels map[string]string) *cmv1.Certificate {
	cert := base(name, namespace, labels, secretLabels)
	cert.Spec.DNSNames = slices.Clone(dnsNames)
	cert.Spec.Usages = slices.Clone(UsagesServing)
	cert.Spec.IssuerRef = cmmeta.IssuerReference{Name: c.IssuerRef.Name, Kind: c.IssuerRef.Kind, Group: c.IssuerRef.Group}
	return cert
}

// CA returns a CA Certificate named name (also its CN and Secret) issued by issuer.
func CA(name, namespace string, issuer cmmeta.IssuerReference, labels, secretLabels map[string]string) *cmv1.Certificate {
	c := base(name, namespace, labels, secretLabels)
	c.Spec.CommonName = name
	c.Spec.IsCA = true
	c.Spec.IssuerRef = issuer
	c.Spec.Duration = &metav1.Duration{Duration: CADuration}
	c.Spec.RenewBefore = &metav1.Duration{Duration: CARenewBefore}
	// A CA renewed with a new key (cert-manager's default since v1.18) no longer verifies the
	// certificates it signed before, and every component trusting it would refuse its peers
	// until all of them were issued again. With its key kept, a renewed CA verifies them all.
	c.Spec.PrivateKey.RotationPolicy = cmv1.RotationPolicyNever
	return c
}

func base(name, namespace string, labels, secretLabels map[string]string) *cmv1.Certificate {
	c := &cmv1.Certificate{
		TypeMeta:   metav1.TypeMeta{APIVersion: cmv1.SchemeGroupVersion.String(), Kind: cmv1.CertificateKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: clone(labels)},
		Spec: cmv1.CertificateSpec{
			SecretName: name,
			PrivateKey: &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096},
		},
	}
	if len(secretLabels) > 0 {
		c.Spec.SecretTemplate = &cmv1.CertificateSecretTemplate{Labels: clone(secretLabels)}
	}
	return c
}

// CAIssuer returns an Issuer that signs with the CA key pair in secretName.
func CAIssuer(name, namespace, secretName string, labels map[string]string) *cmv1.Issuer {
	return &cmv1.Issuer{
		TypeMeta:   metav1.TypeMeta{APIVersion: cmv1.SchemeGroupVersion.String(), Kind: cmv1.IssuerKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: clone(labels)},
		Spec: cmv1.IssuerSpec{IssuerConfig: cmv1.IssuerConfig{
			CA: &cmv1.CAIssuer{SecretName: secretName},
		}},
	}
}

// ApplyTemplate merges a user's certificate template onto a generated Certificate, with
// kcp-operator's rules: lists are sorted set unions, scalars replace, and generated labels,
// annotations and Secret template keys win over the user's.
func ApplyTemplate(c *cmv1.Certificate, t *v1alpha1.CertificateTemplate) {
	if t == nil {
		return
	}
	if m := t.Metadata; m != nil {
		c.Labels = mergeKeep(c.Labels, m.Labels)
		c.Annotations = mergeKeep(c.Annotations, m.Annotations)
	}
	s := t.Spec
	if s == nil {
		return
	}
	if s.Subject != nil {
		if c.Spec.Subject == nil {
			c.Spec.Subject = &cmv1.X509Subject{}
		}
		sub := c.Spec.Subject
		sub.Organizations = union(sub.Organizations, s.Subject.Organizations)
		sub.Countries = union(sub.Countries, s.Subject.Countries)
		sub.OrganizationalUnits = union(sub.OrganizationalUnits, s.Subject.OrganizationalUnits)
		sub.Localities = union(sub.Localities, s.Subject.Localities)
		sub.Provinces = union(sub.Provinces, s.Subject.Provinces)
		sub.StreetAddresses = union(sub.StreetAddresses, s.Subject.StreetAddresses)
		sub.PostalCodes = union(sub.PostalCodes, s.Subject.PostalCodes)
		if s.Subject.SerialNumber != "" {
			sub.SerialNumber = s.Subject.SerialNumber
		}
	}
	if s.IssuerRef != nil {
		c.Spec.IssuerRef = cmmeta.IssuerReference{Name: s.IssuerRef.Name, Kind: s.IssuerRef.Kind, Group: s.IssuerRef.Group}
		// A different issuer (say a public ACME one) validates names itself: the template's
		// names are the complete list.
		if len(s.DNSNames) > 0 {
			c.Spec.DNSNames = slices.Clone(s.DNSNames)
		}
	} else {
		c.Spec.DNSNames = union(c.Spec.DNSNames, s.DNSNames)
	}
	c.Spec.IPAddresses = union(c.Spec.IPAddresses, s.IPAddresses)
	if st := s.SecretTemplate; st != nil {
		if c.Spec.SecretTemplate == nil {
			c.Spec.SecretTemplate = &cmv1.CertificateSecretTemplate{}
		}
		c.Spec.SecretTemplate.Labels = mergeKeep(c.Spec.SecretTemplate.Labels, st.Labels)
		c.Spec.SecretTemplate.Annotations = mergeKeep(c.Spec.SecretTemplate.Annotations, st.Annotations)
	}
	if s.Duration != nil {
		c.Spec.Duration = s.Duration.DeepCopy()
		// kcp-operator keeps the default renewBefore (a week, a month for a CA) under any
		// duration, and cert-manager refuses a Certificate that renews before it is issued.
		// A duration that short renews a third of its lifetime early, as cert-manager would.
		if s.RenewBefore == nil && c.Spec.RenewBefore != nil && c.Spec.RenewBefore.Duration >= s.Duration.Duration {
			c.Spec.RenewBefore = &metav1.Duration{Duration: s.Duration.Duration / 3}
		}
	}
	if s.RenewBefore != nil {
		c.Spec.RenewBefore = s.RenewBefore.DeepCopy()
	}
	if pk := s.PrivateKey; pk != nil {
		if c.Spec.PrivateKey == nil {
			c.Spec.PrivateKey = &cmv1.CertificatePrivateKey{}
		}
		if pk.RotationPolicy != "" {
			c.Spec.PrivateKey.RotationPolicy = cmv1.PrivateKeyRotationPolicy(pk.RotationPolicy)
		}
		if pk.Encoding != "" {
			c.Spec.PrivateKey.Encoding = cmv1.PrivateKeyEncoding(pk.Encoding)
		}
		if pk.Algorithm != "" {
			c.Spec.PrivateKey.Algorithm = cmv1.PrivateKeyAlgorithm(pk.Algorithm)
		}
		if pk.Size != 0 {
			c.Spec.PrivateKey.Size = pk.Size
		}
	}
}

// union returns the sorted set union of a and b, or a unchanged when b is empty.
func union(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// mergeKeep adds the keys of extra that base does not have.
func mergeKeep(base, extra map[string]string) map[string]string {
	if len(extra) == 0 {
		return base
	}
	out := clone(base)
	if out == nil {
		out = make(map[string]string, len(extra))
	}
	for k, v := range extra {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

func clone(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
