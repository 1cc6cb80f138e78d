package kubeconfig

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// certSecretKey is the composition resource name of the adopted client certificate Secret.
// Not b.Key: trimming the XR's name could make it equal "secret-" + spec.secretRef.name,
// whereas output names starting with kubeconfig-cert- are rejected, so this key never is.
func (c *composer) certSecretKey() resource.Name {
	return resource.Name("secret-" + c.name.Certificate())
}

// adoptCertificateSecret makes the Secret cert-manager writes for kubeconfig-cert-<kc> belong
// to the XR, so that it is deleted with it like the Certificate and the kubeconfig Secret
// (quirk 7).
//
// Adoption is metadata-only: the desired object holds only apiVersion, kind, name, namespace
// and the label cert-manager already writes from the Certificate's secretTemplate. Applied
// with server-side apply, it adds Crossplane's controller reference (and its own label and
// annotation) and takes over no field cert-manager manages: cert-manager keeps owning the
// type and the key material, which therefore never appear in what the function returns.
//
// Adoption is gated on the Secret existing, having been issued: composing it earlier would
// have Crossplane create it first, as an Opaque Secret, and a Secret's type is immutable, so
// cert-manager could never write its kubernetes.io/tls Secret. A Secret another object
// controls is left alone: with cert-manager's --enable-certificate-owner-ref that is the
// Certificate, which the XR owns, so it is deleted with the XR anyway.
//
// Once adopted it is composed on every reconcile, whether or not it can be read, so that
// Crossplane never deletes it while the XR exists.
func (c *composer) adoptCertificateSecret() {
	l := c.b.St.Secret(c.name.Certificate())
	// Composed by this XR, though perhaps no longer in its resource references: its
	// controller says it is ours.
	own := l.Found && c.kc.UID != "" && l.Controller == string(c.kc.UID)
	issuedUnowned := c.b.St.CertificateIssued(c.certKey) && l.Found && l.Controller == ""
	if !c.b.St.Exists(c.certSecretKey()) && !own && !issuedUnowned {
		return
	}
	c.composeCertificateSecret()
}

// composeCertificateSecret composes the metadata-only adoption of the client certificate
// Secret, ready as it exists.
func (c *composer) composeCertificateSecret() {
	c.b.Set.Add(c.certSecretKey(), kubeconfigfile.OwnedSecret(c.name.Certificate(), c.b.Namespace, c.kc.Name), resource.ReadyTrue)
}
