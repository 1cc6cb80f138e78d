// Package inputs knows where every Secret and ConfigMap a workload mounts comes from (a
// composed Certificate, the function itself, or the user) and which objects Crossplane must
// read for the next call (inputs.go). From that it decides whether a workload may be
// composed or changed: only once every mount exists, so pods never start against missing
// files; and it fingerprints the mounts, so a renewed certificate or changed configuration
// rolls the pods (verdict.go).
package inputs

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Kinds of object a pod can mount.
const (
	KindSecret    = resource.KindSecret
	KindConfigMap = resource.KindConfigMap
)

type sourceKind int

const (
	fromCertificate sourceKind = iota
	fromComposed
	fromExternal
	// fromChild is written by an XR this one composes (a Kubeconfig's Secret): read and
	// checked as an external object, but this XR's own.
	fromChild
)

type source struct {
	kind sourceKind
	key  resource.Name
	// objectKind and field describe an external object: where in the spec it is referenced.
	objectKind string
	field      string
}

// Inputs knows where every mountable object of one XR comes from.
type Inputs struct {
	sources map[string]source
	// requirements are kept in registration order, so responses are deterministic.
	requirements []result.Requirement
}

// Certificate registers a Secret written by cert-manager for the composed Certificate key.
func (in *Inputs) Certificate(secret string, key resource.Name) {
	in.set(KindSecret+"/"+secret, source{kind: fromCertificate, key: key})
}

// Composed registers a Secret or ConfigMap the function composes itself under key.
func (in *Inputs) Composed(kind, name string, key resource.Name) {
	in.set(kind+"/"+name, source{kind: fromComposed, key: key})
}

// External registers an object the user provides, referenced from the given spec field.
// External objects are read as required resources.
func (in *Inputs) External(kind, name, field string) {
	id := kind + "/" + name
	if _, ok := in.sources[id]; !ok {
		in.set(id, source{kind: fromExternal, objectKind: kind, field: field})
	}
	in.Read(kind, name)
}

// Child registers an object an XR this one composes writes, described by what (e.g.
// "written by Kubeconfig x"). It is read and gates the workload as an external object, and
// is this XR's own: a placed copy of it goes with the XR.
func (in *Inputs) Child(kind, name, what string) {
	in.set(kind+"/"+name, source{kind: fromChild, objectKind: kind, field: what})
	in.Read(kind, name)
}

// Read requires an object whose data the function needs (say a CA certificate to merge into
// a bundle) without making it a workload input.
func (in *Inputs) Read(kind, name string) {
	in.Require(result.Requirement{Kind: kind, Name: name})
}

func (in *Inputs) set(id string, s source) {
	if in.sources == nil {
		in.sources = map[string]source{}
	}
	in.sources[id] = s
}

// Require adds any requirement, for example another XR this one refers to.
func (in *Inputs) Require(r result.Requirement) {
	for _, x := range in.requirements {
		if x == r {
			return
		}
	}
	in.requirements = append(in.requirements, r)
}

// Requirements lists the objects to read, in registration order.
func (in *Inputs) Requirements() []result.Requirement { return in.requirements }

// Pending reports whether Secret name will be written by cert-manager for a composed
// Certificate that is not issued yet: its absence is expected, not a missing input.
func (in *Inputs) Pending(name string, st *observed.State) bool {
	s, ok := in.sources[KindSecret+"/"+name]
	return ok && s.kind == fromCertificate && !st.CertificateIssued(s.key)
}

// Own reports whether a Secret or ConfigMap is this XR's: composed by it, or written by
// cert-manager for one of its Certificates. Everything else is another's or the user's.
func (in *Inputs) Own(kind, name string) bool {
	s, ok := in.sources[kind+"/"+name]
	return ok && s.kind != fromExternal
}
