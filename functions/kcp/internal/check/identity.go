package check

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Printable refuses an identity (a user or group name a certificate carries) that is not
// UTF-8 or holds a rune that is not printable: a control character (a line break, an escape
// sequence), a formatting one (a bidirectional override, a zero-width joiner) or a space
// other than ASCII's. kcp, its audit log and whoever reads an RBAC binding see such a name
// as another one, or not at all: "alice\u202e" and "alice" read alike.
func Printable(p *field.Path, s string) field.ErrorList {
	if !utf8.ValidString(s) {
		return field.ErrorList{field.Invalid(p, s, "must be UTF-8 text; write the name in UTF-8")}
	}
	for i, r := range s {
		if !unicode.IsPrint(r) {
			return field.ErrorList{field.Invalid(p, s, fmt.Sprintf("must hold only printable characters, and %U at byte %d is not (a control, formatting or non-ASCII space character); remove it", r, i))}
		}
	}
	return nil
}
