package render

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Output is one parsed render.
type Output struct {
	XR       *Object
	Composed []*Object
	// Results are render's Result documents, in render's order.
	Results []*Object
	// Fatal is set when a pipeline step returned a Fatal result.
	Fatal bool
}

// resultGroup is the API group of the documents render adds with -r (and -c).
const resultGroup = "render.crossplane.io"

// SplitOutput splits render's documents: the XR comes first, then the composed resources;
// Result documents may come anywhere.
func SplitOutput(objs []*Object) (*Output, error) {
	out := &Output{}
	for _, o := range objs {
		switch {
		case o.GroupVersionKind().Group == resultGroup:
			if o.GetKind() == "Result" {
				out.Results = append(out.Results, o)
			}
		case out.XR == nil:
			out.XR = o
		default:
			out.Composed = append(out.Composed, o)
		}
	}
	if out.XR == nil {
		return nil, fmt.Errorf("render output holds no composite resource")
	}
	return out, nil
}

// notReady is Crossplane's per-resource "not yet ready" result. Its order varies between
// runs and it repeats what the XR's Ready condition says.
var notReady = regexp.MustCompile(`^Composed resource ".*" is not yet ready$`)

// Noise reports whether a result is Crossplane's own bookkeeping rather than something a
// function said.
func Noise(r *Object) bool {
	msg, _ := r.Object["message"].(string)
	reason, _ := r.Object["reason"].(string)
	return reason == "SelectComposition" && strings.HasPrefix(msg, "Successfully selected composition") ||
		reason == "ComposeResources" && notReady.MatchString(msg)
}

// Golden returns the reviewable form of an output: the XR, its composed resources and the
// results that are not noise. Secret data is shown decoded, as stringData (an equivalent
// manifest), so a reviewer can read the kubeconfigs and bundles. `make render` writes this
// form too.
func (o *Output) Golden() ([]byte, error) {
	docs := []*Object{o.XR}
	for _, c := range o.Composed {
		docs = append(docs, decodedSecret(c))
	}
	for _, r := range o.Results {
		if !Noise(r) {
			docs = append(docs, r)
		}
	}
	return MarshalObjects(docs...)
}

// decodedSecret returns a Secret with its text data moved to stringData; other objects and
// binary data are returned as they are.
func decodedSecret(o *Object) *Object {
	data, ok := o.Object["data"].(map[string]any)
	if o.GetKind() != "Secret" || o.GetAPIVersion() != "v1" || !ok {
		return o
	}
	text := make(map[string]any, len(data))
	for k, v := range data {
		s, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || !utf8.Valid(b) {
			return o
		}
		text[k] = string(b)
	}
	c := o.DeepCopy()
	delete(c.Object, "data")
	c.Object["stringData"] = text
	return c
}

// Resources returns what an API server would validate: the XR, and the composed resources
// without status. Crossplane applies composed resources to their main endpoint, where status
// is ignored (render has emitted a schema-invalid `conditions: null` there). The XR keeps its
// status: Crossplane writes it to the status subresource.
func (o *Output) Resources() ([]byte, error) {
	objs := []*Object{o.XR}
	for _, c := range o.Composed {
		c = c.DeepCopy()
		delete(c.Object, "status")
		objs = append(objs, c)
	}
	return MarshalObjects(objs...)
}

// changedResources names the composed resources (by composition resource name) that one
// render added, removed or changed relative to another, sorted.
func changedResources(before, after []*Object) ([]string, error) {
	index := func(objs []*Object) (map[string][]byte, error) {
		m := make(map[string][]byte, len(objs))
		for _, o := range objs {
			b, err := MarshalObjects(o)
			if err != nil {
				return nil, err
			}
			m[o.GetAnnotations()[AnnotationResourceName]] = b
		}
		return m, nil
	}
	a, err := index(before)
	if err != nil {
		return nil, err
	}
	b, err := index(after)
	if err != nil {
		return nil, err
	}
	var changed []string
	for name, x := range a {
		if y, ok := b[name]; !ok || !bytes.Equal(x, y) {
			changed = append(changed, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	return changed, nil
}
