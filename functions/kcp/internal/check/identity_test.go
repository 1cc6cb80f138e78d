package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestPrintable(t *testing.T) {
	p := field.NewPath("spec", "username")
	cases := map[string]struct {
		reason string
		name   string
		want   []string
	}{
		"Plain":        {reason: "Letters, digits, punctuation and ASCII spaces are printable.", name: "team-a:Alice Smith (ops)"},
		"NonASCII":     {reason: "Letters of any script are printable.", name: "équipe:zoë-例"},
		"Empty":        {reason: "Emptiness is Required's to refuse, not this check's.", name: ""},
		"Newline":      {reason: "A line break forges a second line in a log.", name: "alice\nsystem:masters", want: []string{`spec.username: Invalid value: "alice\nsystem:masters": must hold only printable characters, and U+000A at byte 5 is not (a control, formatting or non-ASCII space character); remove it`}},
		"Escape":       {reason: "A terminal escape sequence rewrites what an operator sees.", name: "\x1b[2Jroot", want: []string{`spec.username: Invalid value: "\x1b[2Jroot": must hold only printable characters, and U+001B at byte 0 is not (a control, formatting or non-ASCII space character); remove it`}},
		"Nul":          {reason: "NUL ends the name for C code.", name: "alice\x00", want: []string{`spec.username: Invalid value: "alice\x00": must hold only printable characters, and U+0000 at byte 5 is not (a control, formatting or non-ASCII space character); remove it`}},
		"BidiOverride": {reason: "A right-to-left override makes one name display as another.", name: "alice\u202egnp.exe", want: []string{`spec.username: Invalid value: "alice\u202egnp.exe": must hold only printable characters, and U+202E at byte 5 is not (a control, formatting or non-ASCII space character); remove it`}},
		"ZeroWidth":    {reason: "A zero-width space makes two names look alike.", name: "ad\u200bmin", want: []string{`spec.username: Invalid value: "ad\u200bmin": must hold only printable characters, and U+200B at byte 2 is not (a control, formatting or non-ASCII space character); remove it`}},
		"NoBreakSpace": {reason: "A no-break space looks like a space and is not one.", name: "alice\u00a0smith", want: []string{`spec.username: Invalid value: "alice\u00a0smith": must hold only printable characters, and U+00A0 at byte 5 is not (a control, formatting or non-ASCII space character); remove it`}},
		"NotUTF8":      {reason: "Bytes that are not UTF-8 are refused.", name: "alice\xff", want: []string{`spec.username: Invalid value: "alice\xff": must be UTF-8 text; write the name in UTF-8`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, messages(Printable(p, tc.name))); diff != "" {
				t.Errorf("%s\nPrintable(%q): -want, +got:\n%s", tc.reason, tc.name, diff)
			}
		})
	}
}
