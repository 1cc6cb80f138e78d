// Package result holds what composing one XR produces, the same shape for every kind:
// desired objects, the XR's status and conditions, the objects Crossplane must read for the
// next call (requirements), and warnings. Kinds fill it; fn.go writes it into the
// RunFunction response and knows nothing else about a kind.
package result

import (
	"strings"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
)

// Result is what composing one XR of a kind whose status is S produced.
type Result[S any] struct {
	// Desired are the composed resources. Crossplane deletes every composed resource that is
	// not in here, so a kind keeps what it cannot rebuild rather than leave it out.
	Desired      desired.Set
	Requirements []Requirement
	Status       S
	Conditions   []condition.Condition
	// NotReady forces the XR not ready, e.g. while a workload is not composed yet: the
	// composed resources that do exist could otherwise all be ready.
	NotReady bool
	// Warnings are accepted but probably not what the user meant; each becomes an event.
	Warnings []string
}

// NonEmpty lists the warnings that say something, for kinds whose steps return "" for none.
func NonEmpty(warnings ...string) []string {
	var out []string
	for _, w := range warnings {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Untyped is the same result with its status as a pointer of any type, for fn.go, which
// writes every kind's status the same way.
func (r *Result[S]) Untyped() Result[any] {
	return Result[any]{
		Desired:      r.Desired,
		Requirements: r.Requirements,
		Status:       &r.Status,
		Conditions:   r.Conditions,
		NotReady:     r.NotReady,
		Warnings:     r.Warnings,
	}
}

// Requirement is an object Crossplane must read for the next call, as a required resource:
// one object by name, or every object of the kind in the XR's namespace when Name is empty
// (only those carrying Labels, when set).
type Requirement struct {
	// APIVersion defaults to v1.
	APIVersion string
	Kind       string
	Name       string
	// Labels select among every object of the kind; ignored with a Name. One label is
	// enough for what the kinds ask, and keeps the key readable.
	Label, LabelValue string
	// ClusterScoped objects are read without a namespace, e.g. the platform's policy.
	ClusterScoped bool
	// Namespace reads the object(s) in another namespace than the XR's, e.g. a team's XRs
	// that a Tenant grants, or the Tenant's XRs a team's XR copies from. The state keeps
	// them apart from the XR's own namespace (observed.State.ObjectIn).
	Namespace string
}

// Key is the name of the requirement in the RunFunction response.
func (r Requirement) Key() string {
	prefix := strings.ToLower(r.Kind) + "/"
	if r.Namespace != "" {
		// Namespaces hold no dots or slashes: the key stays unambiguous.
		prefix += r.Namespace + "/"
	}
	if r.Name == "" && r.Label != "" {
		return prefix + r.Label + "=" + r.LabelValue
	}
	if r.Name == "" {
		return prefix + "*"
	}
	return prefix + r.Name
}
