package observed

import (
	"slices"
	"strings"
)

// Elsewhere lists the required objects of a kind found in namespaces other than the XR's,
// by namespace and then name: what a requirement across every namespace returned beyond
// the XR's own.
func (s *State) Elsewhere(kind string) []Lookup {
	var keys []string
	for k := range s.elsewhereKinds {
		if strings.HasPrefix(k, kind+"/") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []Lookup
	for _, k := range keys {
		ns := strings.TrimPrefix(k, kind+"/")
		for _, name := range s.NamesIn(ns, kind) {
			out = append(out, s.elsewhere[kind+"/"+ns+"/"+name])
		}
	}
	return out
}
