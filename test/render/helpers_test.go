package render

import (
	"testing"
)

// objects parses YAML documents for table tests; it panics on bad YAML, which is a bug in
// the test itself.
func objects(docs ...string) []*Object {
	var out []*Object
	for _, d := range docs {
		objs, err := ParseObjects([]byte(d))
		if err != nil {
			panic(err)
		}
		out = append(out, objs...)
	}
	return out
}

// contents strips objects to their maps, which go-cmp compares and diffs readably.
func contents(objs []*Object) []map[string]any {
	if objs == nil {
		return nil
	}
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Object)
	}
	return out
}

func errorString(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	return err.Error()
}
