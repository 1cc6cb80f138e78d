package render

import (
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestEverySpecFieldIsBounded holds every XRD to issue 19's bound: every string, list and map
// a user writes in a spec has a maxLength (or an enum), maxItems or maxProperties, so no XR
// the API server admits can make the shared function's work unbounded. Quantities
// (int-or-string) and fields that keep unknown fields are bounded by the function's response
// budget instead (check.Budget).
func TestEverySpecFieldIsBounded(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "apis", "*", "definition.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no XRDs: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var xrd struct {
			Spec struct {
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema apiextensionsv1.JSONSchemaProps `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(raw, &xrd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range xrd.Spec.Versions {
			spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
			checked := 0
			walkBounds("spec", &spec, func(path, why string) {
				t.Errorf("%s %s: %s %s", f, v.Name, path, why)
			}, &checked)
			if checked == 0 {
				t.Errorf("%s %s: no spec field checked", f, v.Name)
			}
		}
	}
}

// walkBounds reports every unbounded string, list and map under s.
func walkBounds(path string, s *apiextensionsv1.JSONSchemaProps, report func(path, why string), checked *int) {
	if s.XIntOrString || (s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields) {
		return
	}
	switch s.Type {
	case "string":
		*checked++
		if s.MaxLength == nil && len(s.Enum) == 0 {
			report(path, "is a string without maxLength")
		}
	case "array":
		*checked++
		if s.MaxItems == nil {
			report(path, "is a list without maxItems")
		}
		if s.Items != nil && s.Items.Schema != nil {
			walkBounds(path+"[]", s.Items.Schema, report, checked)
		}
	case "object":
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			*checked++
			if s.MaxProperties == nil {
				report(path, "is a map without maxProperties")
			}
			walkBounds(path+"[*]", s.AdditionalProperties.Schema, report, checked)
		}
		for k, p := range s.Properties {
			walkBounds(path+"."+k, &p, report, checked)
		}
	}
}

// maxXRDBytes bounds an XRD as compact JSON. etcd refuses an object over 1.5 MiB (its default
// request limit); Crossplane stores the XRD and the CRD it derives from it, and
// `kubectl apply` of an XRD adds a copy of it as the last-applied annotation. Kubernetes'
// embedded types once made the KcpInstallation XRD 1.9 MB of YAML; xrdgen now drops their
// descriptions.
const maxXRDBytes = 512 << 10

// TestXRDSize holds every XRD well under etcd's limit for one object.
func TestXRDSize(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "apis", "*", "definition.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no XRDs: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		compact, err := yaml.YAMLToJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n := len(compact); n > maxXRDBytes {
			t.Errorf("%s is %d KiB as JSON, over %d KiB: share a block between components or leave a Kubernetes type's schema out", f, n>>10, maxXRDBytes>>10)
		}
	}
}
