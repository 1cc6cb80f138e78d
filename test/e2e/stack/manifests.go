package stack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// ReadManifests returns every non-empty YAML document of the files, as JSON.
func ReadManifests(files ...string) ([][]byte, error) {
	var docs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			j, err := yaml.YAMLToJSON(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if string(j) == "null" {
				continue
			}
			docs = append(docs, j)
		}
	}
	return docs, nil
}

// ApplyFiles applies the manifests of the files, Namespaces first (kubectl does not order a
// multi-file apply, and an object cannot be created before its namespace). It returns the
// number of objects applied.
func (s *Stack) ApplyFiles(ctx context.Context, files ...string) (int, error) {
	docs, err := ReadManifests(files...)
	if err != nil {
		return 0, err
	}
	var first, rest [][]byte
	for _, d := range docs {
		var o Object
		if err := json.Unmarshal(d, &o); err != nil {
			return 0, err
		}
		if o.Kind == "Namespace" {
			first = append(first, d)
		} else {
			rest = append(rest, d)
		}
	}
	for _, d := range append(first, rest...) {
		if err := s.Apply(ctx, d); err != nil {
			return 0, err
		}
	}
	return len(docs), nil
}
