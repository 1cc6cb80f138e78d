package check

import (
	"fmt"
	"slices"
	"sort"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// UnknownTemplateKeys warns of certificate template keys that match none of known: the
// template is accepted, as kcp-operator accepts it, and applies to nothing. path is the
// map's field, for example spec.certificateTemplates.
func UnknownTemplateKeys(path string, m v1alpha1.CertificateTemplateMap, known []string) []string {
	var out []string
	for k := range m {
		if !slices.Contains(known, k) {
			out = append(out, fmt.Sprintf("%s[%q] matches no certificate and is ignored; known keys: %v", path, k, known))
		}
	}
	sort.Strings(out)
	return out
}
