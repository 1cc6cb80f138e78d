// Command apidocs writes the API reference, docs/reference/<kind>.md, from the XRDs in
// apis/*/definition.yaml. The XRDs are generated from the Go types in apis/v1alpha1 (xrdgen),
// so the reference says what the Go doc comments and kubebuilder markers say.
//
// Usage, from the repository root:
//
//	apidocs -apis apis -out docs/reference          # (re)write
//	apidocs -apis apis -out docs/reference -check   # exit 1 if a file is stale
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// maxDepth bounds how deep the tables go below spec and status: deeper objects are
// Kubernetes' own types (pod templates, volumes) whose reference is Kubernetes'.
const maxDepth = 4

type schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description"`
	Properties           map[string]*schema `json:"properties"`
	Items                *schema            `json:"items"`
	AdditionalProperties *schema            `json:"additionalProperties"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
	Default              any                `json:"default"`
	Pattern              string             `json:"pattern"`
	Validations          []struct {
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"x-kubernetes-validations"`
}

type xrd struct {
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema *schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apidocs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	apis := fs.String("apis", "apis", "directory holding <plural>/definition.yaml")
	out := fs.String("out", "docs/reference", "directory to write <kind>.md and README.md into")
	check := fs.Bool("check", false, "write nothing; exit 1 listing stale or missing files")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	files, err := Generate(*apis)
	if err != nil {
		fmt.Fprintf(stderr, "apidocs: %v\n", err)
		return 1
	}
	var stale []string
	for name, content := range files {
		path := filepath.Join(*out, name)
		if *check {
			if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, content) {
				stale = append(stale, path)
			}
			continue
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintf(stderr, "apidocs: %v\n", err)
			return 1
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			fmt.Fprintf(stderr, "apidocs: %v\n", err)
			return 1
		}
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		fmt.Fprintf(stderr, "apidocs: stale API reference, run make generate:\n  %s\n", strings.Join(stale, "\n  "))
		return 1
	}
	return 0
}

// Generate returns the reference files by name: one per kind and a README.md index.
func Generate(apisDir string) (map[string][]byte, error) {
	defs, err := filepath.Glob(filepath.Join(apisDir, "*", "definition.yaml"))
	if err != nil {
		return nil, err
	}
	if len(defs) == 0 {
		return nil, fmt.Errorf("no %s/*/definition.yaml", apisDir)
	}
	sort.Strings(defs)
	files := map[string][]byte{}
	var index bytes.Buffer
	index.WriteString("# API reference\n\nGenerated from the Go types in `apis/v1alpha1` (`make generate`); do not edit.\n\n| Kind | Group/version | Scope |\n|---|---|---|\n")
	for _, d := range defs {
		b, err := os.ReadFile(d)
		if err != nil {
			return nil, err
		}
		var x xrd
		if err := yaml.Unmarshal(b, &x); err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		name := strings.ToLower(x.Spec.Names.Kind) + ".md"
		for _, v := range x.Spec.Versions {
			fmt.Fprintf(&index, "| [%s](%s) | `%s/%s` | %s |\n", x.Spec.Names.Kind, name, x.Spec.Group, v.Name, scope(x.Spec.Scope))
		}
		files[name] = kindPage(x)
	}
	files["README.md"] = index.Bytes()
	return files, nil
}

func scope(s string) string {
	if s == "" {
		return "Namespaced"
	}
	return s
}

func kindPage(x xrd) []byte {
	var b bytes.Buffer
	for _, v := range x.Spec.Versions {
		s := v.Schema.OpenAPIV3Schema
		fmt.Fprintf(&b, "# %s\n\n`apiVersion: %s/%s`, `kind: %s`, %s.\n\n", x.Spec.Names.Kind, x.Spec.Group, v.Name, x.Spec.Names.Kind, strings.ToLower(scope(x.Spec.Scope)))
		b.WriteString("Generated from the Go types in `apis/v1alpha1` (`make generate`); do not edit.\n\n")
		if s == nil {
			continue
		}
		if s.Description != "" {
			b.WriteString(oneLine(s.Description) + "\n\n")
		}
		for _, top := range []string{"spec", "status"} {
			p := s.Properties[top]
			if p == nil {
				continue
			}
			fmt.Fprintf(&b, "## %s\n\n", top)
			for _, v := range p.Validations {
				fmt.Fprintf(&b, "- Rule: %s\n", oneLine(v.Message))
			}
			b.WriteString("\n| Field | Type | Required | Description |\n|---|---|---|---|\n")
			fields(&b, top, p, 1)
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// fields writes a row per property of s, recursively, sorted by name.
func fields(b *bytes.Buffer, path string, s *schema, depth int) {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, n := range names {
		p := s.Properties[n]
		fp := path + "." + n
		desc := oneLine(p.Description)
		if len(p.Enum) > 0 {
			var vs []string
			for _, e := range p.Enum {
				vs = append(vs, fmt.Sprintf("`%v`", e))
			}
			desc += " One of " + strings.Join(vs, ", ") + "."
		}
		if p.Default != nil {
			desc += fmt.Sprintf(" Default `%v`.", p.Default)
		}
		for _, v := range p.Validations {
			desc += " Rule: " + strings.TrimSuffix(oneLine(v.Message), ".") + "."
		}
		req := ""
		if required[n] {
			req = "yes"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", fp, typeOf(p), req, strings.TrimSpace(desc))
		if depth >= maxDepth {
			continue
		}
		switch {
		case len(p.Properties) > 0:
			fields(b, fp, p, depth+1)
		case p.Items != nil && len(p.Items.Properties) > 0:
			fields(b, fp+"[]", p.Items, depth+1)
		}
	}
}

func typeOf(s *schema) string {
	switch {
	case s.Type == "array" && s.Items != nil:
		return "[]" + typeOf(s.Items)
	case s.Type == "object" && s.AdditionalProperties != nil:
		return "map[string]" + typeOf(s.AdditionalProperties)
	case s.Type == "":
		return "any"
	default:
		return s.Type
	}
}

// oneLine is a description on one line, safe in a Markdown table cell.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", "\\|")
}
