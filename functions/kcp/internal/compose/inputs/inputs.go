// Package gate decides when a workload may be composed or changed: only once every Secret
// and ConfigMap its pods mount exists, so pods never start against missing files. It also
// fingerprints those inputs, so a renewed certificate or changed configuration rolls the pods.
package inputs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Kinds of object a pod can mount.
const (
	KindSecret    = "Secret"
	KindConfigMap = "ConfigMap"
)

type sourceKind int

const (
	fromCertificate sourceKind = iota
	fromComposed
	fromExternal
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

// Verdict is the outcome of checking a workload's mounts.
type Verdict struct {
	// WaitingCertificates are certificates not yet issued.
	WaitingCertificates []string
	// WaitingObjects are external objects (the user's) that do not exist, described with the
	// spec field that references them.
	WaitingObjects []string
	// WaitingComposed are objects the function composes that do not exist yet.
	WaitingComposed []string
	Rollout         workload.Rollout
}

// Open reports whether every mount is available.
func (v Verdict) Open() bool {
	return len(v.WaitingCertificates) == 0 && len(v.WaitingObjects) == 0 && len(v.WaitingComposed) == 0
}

// Check examines the Secrets and ConfigMaps mounted by a workload. Names not registered are
// assumed to be the user's (extra volumes) and not checked.
func (in *Inputs) Check(m workload.Mounts, st *observed.State, want *desired.Set) Verdict {
	var v Verdict
	for _, x := range m {
		var kind, name string
		switch {
		case x.Volume.Secret != nil:
			kind, name = KindSecret, x.Volume.Secret.SecretName
		case x.Volume.ConfigMap != nil:
			kind, name = KindConfigMap, x.Volume.ConfigMap.Name
		default:
			continue
		}
		s, ok := in.sources[kind+"/"+name]
		if !ok {
			continue
		}
		switch s.kind {
		case fromCertificate:
			if !st.CertificateIssued(s.key) {
				v.WaitingCertificates = append(v.WaitingCertificates, name)
				continue
			}
			v.Rollout.Certificate(name, st.CertificateRevision(s.key))
		case fromComposed:
			o, ok := want.Get(s.key)
			if !ok || !st.Exists(s.key) {
				v.WaitingComposed = append(v.WaitingComposed, fmt.Sprintf("%s %s", kind, name))
				continue
			}
			v.Rollout.Config(name, desired.Fingerprint(o))
		case fromExternal:
			l := st.Object(kind, name)
			if !l.Found {
				v.WaitingObjects = append(v.WaitingObjects, fmt.Sprintf("%s %s (%s)", kind, name, s.field))
				continue
			}
			// Its content, not its resourceVersion: a Secret deleted and created again with
			// the same data (a CacheServer re-created, a Secret restored from a backup) or
			// only relabelled must not restart kcp.
			v.Rollout.Config(kind+"/"+name, desired.DataFingerprint(l.Data))
		}
	}
	sort.Strings(v.WaitingCertificates)
	v.WaitingCertificates = compact(v.WaitingCertificates)
	sort.Strings(v.WaitingObjects)
	v.WaitingObjects = compact(v.WaitingObjects)
	sort.Strings(v.WaitingComposed)
	v.WaitingComposed = compact(v.WaitingComposed)
	return v
}

// Message describes what a workload waits for.
func (v Verdict) Message() string {
	var parts []string
	if len(v.WaitingCertificates) > 0 {
		parts = append(parts, "certificates not yet issued: "+strings.Join(v.WaitingCertificates, ", "))
	}
	if len(v.WaitingObjects) > 0 {
		parts = append(parts, "missing: "+strings.Join(v.WaitingObjects, ", "))
	}
	if len(v.WaitingComposed) > 0 {
		parts = append(parts, "not created yet: "+strings.Join(v.WaitingComposed, ", "))
	}
	return strings.Join(parts, "; ")
}

func compact(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i > 0 && x == s[i-1] {
			continue
		}
		out = append(out, x)
	}
	return out
}
