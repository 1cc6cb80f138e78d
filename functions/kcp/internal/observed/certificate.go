package observed

import "github.com/crossplane/function-sdk-go/resource"

// CertificateNotAfter is the Certificate's status.notAfter (RFC 3339), "" when unknown.
func (s *State) CertificateNotAfter(name resource.Name) string {
	return s.String(name, "status", "notAfter")
}
