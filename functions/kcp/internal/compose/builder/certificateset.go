package builder

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// certificateSet names the CertificateSet Certificates and Issuers currently go to.
type certificateSet struct {
	name   string
	labels map[string]string
}

// InCertificateSet sends the Certificates and Issuers composed after it to the
// CertificateSet <XR>-<name> (composition resource certificateset-<name>), until the next
// call; "" composes them directly again. A RootShard's and a Shard's certificates go through
// sets so that cert-manager's status updates of them do not open the XR's circuit breaker
// in Crossplane (apis/v1alpha1/certificateset_types.go). Nothing else changes for the
// composer: the observed state answers for certificates in a set from the set's status.
//
// A Certificate or Issuer the XR already composes itself (an installation made before sets
// existed) stays with the XR: moving it would delete it and create it again under the set,
// and with cert-manager's --enable-certificate-owner-ref its Secret, a CA's key among them,
// would go with it.
func (b *Builder) InCertificateSet(name string, labels map[string]string) {
	b.set = certificateSet{name: name, labels: labels}
}

// addToSet adds an object to the current set and composes the set with every member so
// far: the last call composes it whole, and no call is needed after the last member.
func (b *Builder) addToSet(key resource.Name, obj runtime.Object) {
	setKey := resource.Name("certificateset-" + b.set.name)
	member, err := desired.ToComposed(obj)
	if err == nil {
		var raw []byte
		raw, err = json.Marshal(member.Object)
		if err == nil {
			if b.sets == nil {
				b.sets = map[string]*v1alpha1.CertificateSetSpec{}
			}
			spec := b.sets[b.set.name]
			if spec == nil {
				spec = &v1alpha1.CertificateSetSpec{}
				b.sets[b.set.name] = spec
			}
			m := v1alpha1.CertificateSetMember{Key: string(key), Resource: runtime.RawExtension{Raw: raw}}
			if member.GetKind() == "Issuer" {
				spec.Issuers = append(spec.Issuers, m)
			} else {
				spec.Certificates = append(spec.Certificates, m)
			}
			_, err = b.XR(setKey, "CertificateSet", b.Prefix+b.set.name, b.set.labels, spec)
		}
	}
	if err != nil {
		// Cannot happen with the typed objects the composers build; if it did, the set as it
		// is stays, and nothing it composed is deleted.
		b.KeepOrWait(setKey, true, fmt.Sprintf("CertificateSet %s%s (%v)", b.Prefix, b.set.name, err))
	}
}
