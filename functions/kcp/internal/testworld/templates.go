package testworld

import (
	"encoding/json"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
)

// probeAnnotation marks the Certificate a template reached.
const probeAnnotation = "testworld.kcp.crossplane.io/template"

// ProbeTemplates returns a certificate template for each key that annotates its Certificate
// with prefix+key, so that TemplateProbes can tell which Certificates each key reaches.
func ProbeTemplates(prefix string, keys []string) v1alpha1.CertificateTemplateMap {
	m := v1alpha1.CertificateTemplateMap{}
	for _, k := range keys {
		m[k] = v1alpha1.CertificateTemplate{Metadata: &v1alpha1.CertificateMetadataTemplate{Annotations: map[string]string{probeAnnotation: prefix + k}}}
	}
	return m
}

// TemplateProbes counts the Certificates of set that each ProbeTemplates key reached, under
// "" those no key reached; Certificates a CertificateSet composes are included.
func TemplateProbes(set *desired.Set) map[string]int {
	got := map[string]int{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["kind"] == "Certificate" {
				meta, _ := v["metadata"].(map[string]any)
				a, _ := meta["annotations"].(map[string]any)
				p, _ := a[probeAnnotation].(string)
				got[p]++
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, o := range set.Objects() {
		b, err := json.Marshal(o.Resource)
		if err != nil {
			panic(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			panic(err)
		}
		walk(v)
	}
	return got
}

// Once is the count TemplateProbes finds when every key of ProbeTemplates(prefix, keys)
// reaches one Certificate.
func Once(prefix string, keys []string) map[string]int {
	m := map[string]int{}
	for _, k := range keys {
		m[prefix+k] = 1
	}
	return m
}
