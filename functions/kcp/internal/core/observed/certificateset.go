package observed

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// A RootShard or Shard composes its Certificates through CertificateSet XRs (see
// apis/v1alpha1/certificateset_types.go). It does not observe those Certificates; each set
// reports its certificates in its status once every one is issued. The questions about a
// Certificate answer from that report when the Certificate is not composed by the XR itself,
// so a composer asks the same questions whichever way a certificate is composed.

// issuedInSet is what a CertificateSet reports of one issued certificate.
type issuedInSet struct {
	revision int64
	notAfter string
}

// inSets returns the certificates the composed CertificateSets report issued, by key.
func (s *State) inSets() map[resource.Name]issuedInSet {
	if s.setCertificates != nil {
		return s.setCertificates
	}
	s.setCertificates = map[resource.Name]issuedInSet{}
	for _, o := range s.composed {
		f := o.GetFields()
		if f["kind"].GetStringValue() != v1alpha1.KindCertificateSet {
			continue
		}
		for _, c := range f["status"].GetStructValue().GetFields()["certificates"].GetListValue().GetValues() {
			cf := c.GetStructValue().GetFields()
			key := cf["key"].GetStringValue()
			if key == "" {
				continue
			}
			s.setCertificates[resource.Name(key)] = issuedInSet{
				revision: int64(cf["revision"].GetNumberValue()),
				notAfter: cf["notAfter"].GetStringValue(),
			}
		}
	}
	return s.setCertificates
}

// issuedThroughSet reports whether a certificate the XR does not compose itself is reported
// issued by one of its CertificateSets, and what they report of it.
func (s *State) issuedThroughSet(name resource.Name) (issuedInSet, bool) {
	if _, ok := s.composed[name]; ok {
		return issuedInSet{}, false
	}
	i, ok := s.inSets()[name]
	return i, ok
}
