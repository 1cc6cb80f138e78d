package render

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// XRGroup is the API group of the XRs this repository defines.
const XRGroup = "kcp.crossplane.io"

// ExpectFatalFile marks an example whose render must end in a Fatal result.
const ExpectFatalFile = "expect-fatal"

// Example is one directory under examples/.
type Example struct {
	Name string
	Dir  string
	// XRs are the documents of group kcp.crossplane.io, in file (sorted) and document order.
	XRs []*Object
	// Environment holds every other document; its Secrets and ConfigMaps are offered to the
	// function as required resources.
	Environment []*Object
	// ExpectFatal is set when the example's directory holds an expect-fatal file.
	ExpectFatal bool
}

// LoadExamples reads every example directory under dir, sorted by name. Fixtures that exist
// only for rendering live in <example>/testdata/*.yaml and join the environment.
func LoadExamples(dir string) ([]Example, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Example
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		ex, err := LoadExample(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}

// LoadExample reads one example directory.
func LoadExample(dir string) (Example, error) {
	ex := Example{Name: filepath.Base(dir), Dir: dir}
	if _, err := os.Stat(filepath.Join(dir, ExpectFatalFile)); err == nil {
		ex.ExpectFatal = true
	}
	files, err := yamlFiles(dir)
	if err != nil {
		return Example{}, err
	}
	fixtures, err := yamlFiles(filepath.Join(dir, "testdata"))
	if err != nil && !os.IsNotExist(err) {
		return Example{}, err
	}
	for _, f := range files {
		objs, err := readObjects(f)
		if err != nil {
			return Example{}, err
		}
		for _, o := range objs {
			if o.GroupVersionKind().Group == XRGroup {
				ex.XRs = append(ex.XRs, o)
			} else {
				ex.Environment = append(ex.Environment, o)
			}
		}
	}
	for _, f := range fixtures {
		objs, err := readObjects(f)
		if err != nil {
			return Example{}, err
		}
		ex.Environment = append(ex.Environment, objs...)
	}
	if len(ex.XRs) == 0 {
		return Example{}, fmt.Errorf("example %s has no %s resource to render", dir, XRGroup)
	}
	return ex, nil
}

// yamlFiles lists dir/*.yaml sorted by name.
func yamlFiles(dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	sort.Strings(files)
	return files, err
}

func readObjects(path string) ([]*Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := ParseObjects(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
}

// API is one XR kind's definition and composition under apis/<plural>/.
type API struct {
	Plural      string
	XRD         string
	Composition string
}

// LoadAPIs maps every XR kind to its files by reading apis/*/definition.yaml.
func LoadAPIs(dir string) (map[schema.GroupKind]API, error) {
	xrds, err := filepath.Glob(filepath.Join(dir, "*", "definition.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupKind]API{}
	for _, path := range xrds {
		objs, err := readObjects(path)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.GetKind() != "CompositeResourceDefinition" {
				continue
			}
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			plural, _, _ := unstructured.NestedString(o.Object, "spec", "names", "plural")
			api := API{
				Plural:      plural,
				XRD:         path,
				Composition: filepath.Join(dir, plural, "composition.yaml"),
			}
			// Stat it here so a missing composition fails early, and so `go test` caching
			// notices when it changes.
			if _, err := os.Stat(api.Composition); err != nil {
				return nil, fmt.Errorf("XRD %s: %w", path, err)
			}
			out[schema.GroupKind{Group: group, Kind: kind}] = api
		}
	}
	return out, nil
}
