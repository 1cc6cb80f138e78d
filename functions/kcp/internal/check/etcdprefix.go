package check

import (
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxEtcdPrefix bounds an etcd key prefix; kcp adds its own keys below it.
const MaxEtcdPrefix = 256

// etcdPrefix is a key prefix of path segments of letters, digits, '.', '_' and '-', none of
// them empty, "." or "..": no control character or line break to carry into a flag or a
// log line, and no segment that makes two spellings name the same keys (/a//b, /a/./b).
// The XRD has the same pattern; this check gives `crossplane composition render`, which
// applies no schema, the same answer.
var etcdPrefix = regexp.MustCompile(`^(/[A-Za-z0-9_-][A-Za-z0-9._-]*)+/?$`)

// EtcdPrefix refuses a key prefix (at p) that is not an absolute path of plain segments.
func EtcdPrefix(p *field.Path, prefix string) field.ErrorList {
	switch {
	case prefix == "":
		return nil
	case len(prefix) > MaxEtcdPrefix:
		return field.ErrorList{field.TooLong(p, "", MaxEtcdPrefix)}
	case !etcdPrefix.MatchString(prefix):
		return field.ErrorList{field.Invalid(p, prefix, "must be a key path such as /kcp or /teams/a: '/' then segments of letters, digits, '.', '_' and '-', none empty or starting with '.'; no spaces, line breaks or control characters")}
	}
	return nil
}
