package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestEtcdPrefix(t *testing.T) {
	p := field.NewPath("spec", "etcd", "external", "prefix")
	invalid := func(v string) []string {
		return []string{field.Invalid(p, v, "must be a key path such as /kcp or /teams/a: '/' then segments of letters, digits, '.', '_' and '-', none empty or starting with '.'; no spaces, line breaks or control characters").Error()}
	}
	cases := map[string]struct {
		reason string
		prefix string
		want   []string
	}{
		"Unset":          {reason: "kcp's default prefix."},
		"Plain":          {reason: "A path of plain segments.", prefix: "/teams/a-1/kcp_v2.0"},
		"TrailingSlash":  {reason: "kcp writes below <prefix>/ either way.", prefix: "/kcp/"},
		"Newline":        {reason: "A line break would be carried into the flag and the logs.", prefix: "/kcp\n--etcd-servers=x", want: invalid("/kcp\n--etcd-servers=x")},
		"ControlChar":    {reason: "A control character is no key path.", prefix: "/kcp\x00", want: invalid("/kcp\x00")},
		"Space":          {reason: "A space is no key path.", prefix: "/my kcp", want: invalid("/my kcp")},
		"Relative":       {reason: "A prefix is absolute.", prefix: "kcp", want: invalid("kcp")},
		"Root":           {reason: "/ alone is the whole keyspace, every other user's keys of the etcd included.", prefix: "/", want: invalid("/")},
		"EmptySegment":   {reason: "/a//b names the keys of /a/b under another spelling.", prefix: "/a//b", want: invalid("/a//b")},
		"DotDot":         {reason: "/a/../b is no key path.", prefix: "/a/../b", want: invalid("/a/../b")},
		"NotASCIILetter": {reason: "Letters are ASCII.", prefix: "/kcp\u200b", want: invalid("/kcp\u200b")},
		"TooLong":        {reason: "Bounded.", prefix: "/" + strings.Repeat("a", MaxEtcdPrefix), want: []string{field.TooLong(p, "", MaxEtcdPrefix).Error()}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, messages(EtcdPrefix(p, tc.prefix))); diff != "" {
				t.Errorf("%s\nEtcdPrefix(%q): -want, +got:\n%s", tc.reason, tc.prefix, diff)
			}
		})
	}
}
