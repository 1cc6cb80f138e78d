package observed

import "github.com/crossplane/function-sdk-go/resource"

// CertificateNotAfter is the Certificate's status.notAfter (RFC 3339), "" when unknown.
func (s *State) CertificateNotAfter(name resource.Name) string {
	u, ok := s.Get(name)
	if !ok {
		return ""
	}
	v, _ := field(u.Object, "status", "notAfter")
	str, _ := v.(string)
	return str
}
