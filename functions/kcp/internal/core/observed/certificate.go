package observed

import "github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"

// CertificateNotAfter is the Certificate's status.notAfter (RFC 3339), "" when unknown.
func (s *State) CertificateNotAfter(name resource.Name) string {
	if i, ok := s.issuedThroughSet(name); ok {
		return i.notAfter
	}
	return s.String(name, "status", "notAfter")
}
