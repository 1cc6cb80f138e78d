package check

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FlagName is the name of the flag an argument sets, as kcp's flag parser (pflag with
// Kubernetes' word separator normalization) reads it: "--etcd_servers=x", "--etcd-servers"
// and "-etcd-servers" all set etcd-servers, and "-v=4" sets v. An argument that is not a
// flag (a value after its flag, or anything after "--") has no name.
func FlagName(arg string) string {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return ""
	}
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, _ = strings.Cut(name, "=")
	return strings.ReplaceAll(name, "_", "-")
}

// FlagNames are the distinct names of the flags in args, sorted, up to a "--" that ends them.
func FlagNames(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if n := FlagName(a); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// override is an extra argument that sets a flag the component's renderer generates.
type override struct {
	index int
	flag  string
}

// overrides lists the extra arguments that set a generated flag. kcp takes the last value
// of a flag given twice, and extra arguments come last: each would silently replace what the
// package generated (the etcd it stores in, the CAs it trusts, its serving certificate).
func overrides(generated, args []string) []override {
	var out []override
	for i, a := range args {
		if a == "--" {
			break
		}
		if n := FlagName(a); n != "" && slices.Contains(generated, n) {
			out = append(out, override{index: i, flag: n})
		}
	}
	return out
}

// GeneratedFlags refuses every argument of args (at p, the list) that sets a flag of
// generated, the flag names the component's renderer writes (FlagNames of its arguments
// without extras). fix says which fields configure what those flags set.
func GeneratedFlags(p *field.Path, generated, args []string, fix string) field.ErrorList {
	var errs field.ErrorList
	for _, o := range overrides(generated, args) {
		errs = append(errs, field.Forbidden(p.Index(o.index), fmt.Sprintf(
			"--%s is generated for this component, and given again it would replace the generated value (a flag given twice takes the last value); remove it: %s",
			o.flag, fix)))
	}
	return errs
}

// GeneratedFlagWarnings says, for a platform's per-kind XR, which extra arguments replace a
// generated flag: accepted, as kcp-operator accepts them, but rarely meant. generated lists
// the flags; it renders the component's arguments, so it is called only when there are
// extra arguments to check.
func GeneratedFlagWarnings(p *field.Path, generated func() []string, args []string) []string {
	if len(args) == 0 {
		return nil
	}
	var out []string
	for _, o := range overrides(generated(), args) {
		out = append(out, fmt.Sprintf("%s sets --%s, which this XR generates: the last value wins, so it replaces the generated one", p.Index(o.index), o.flag))
	}
	return out
}
