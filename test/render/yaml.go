package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Object is one Kubernetes-style YAML document.
type Object = unstructured.Unstructured

// ParseObjects splits a multi-document YAML stream into objects, skipping empty documents.
// Whole numbers decode as int64, as the API machinery expects.
func ParseObjects(data []byte) ([]*Object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := utilyaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("cannot parse YAML document %d: %w", len(out)+1, err)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &Object{Object: m})
	}
}

// MarshalObjects writes objects as a YAML stream, each document preceded by "---" as
// render writes them. Keys are sorted, so equal objects always give equal bytes.
func MarshalObjects(objs ...*Object) ([]byte, error) {
	var buf bytes.Buffer
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("cannot marshal %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes(), nil
}
