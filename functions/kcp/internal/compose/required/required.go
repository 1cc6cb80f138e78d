// Package required reads the other XRs an XR refers to (its RootShard, the Shards of a RootShard,
// a VirtualWorkspace), which the function receives as required resources.
package required

import (
	"encoding/json"
	"sort"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// APIVersion of every XR.
var APIVersion = v1alpha1.Group + "/" + v1alpha1.Version

// Named is the requirement for the XR of a kind with a name.
func Named(kind, name string) result.Requirement {
	return result.Requirement{APIVersion: APIVersion, Kind: kind, Name: name}
}

// All is the requirement for every XR of a kind in the namespace.
func All(kind string) result.Requirement {
	return result.Requirement{APIVersion: APIVersion, Kind: kind}
}

// NamedIn is the requirement for the XR of a kind with a name in namespace ns.
func NamedIn(kind, ns, name string) result.Requirement {
	return result.Requirement{APIVersion: APIVersion, Kind: kind, Name: name, Namespace: ns}
}

// AllIn is the requirement for every XR of a kind in namespace ns.
func AllIn(kind, ns string) result.Requirement {
	return result.Requirement{APIVersion: APIVersion, Kind: kind, Namespace: ns}
}

// Get decodes the required XR of a kind and name into into; false when it is not known.
func Get(st *observed.State, kind, name string, into any) bool {
	return decode(st.Object(kind, name), into)
}

// GetIn is Get for an XR of namespace ns.
func GetIn(st *observed.State, ns, kind, name string, into any) bool {
	return decode(st.ObjectIn(ns, kind, name), into)
}

// decode decodes a found required XR into into.
func decode(l observed.Lookup, into any) bool {
	if !l.Found || l.Object == nil {
		return false
	}
	b, err := json.Marshal(l.Object)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, into) == nil
}

// RootShard returns the required RootShard named name.
func RootShard(st *observed.State, name string) (*v1alpha1.RootShard, bool) {
	rs := &v1alpha1.RootShard{}
	return rs, Get(st, v1alpha1.KindRootShard, name, rs)
}

// IssuingCertificates reports whether the required XR of a kind and name says, in its
// condition CertificatesReady (False), that it is still issuing its certificates. Without
// the condition it does not say so.
func IssuingCertificates(st *observed.State, kind, name string) bool {
	l := st.Object(kind, name)
	if !l.Found || l.Object == nil {
		return false
	}
	status, _ := l.Object["status"].(map[string]any)
	conditions, _ := status["conditions"].([]any)
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == condition.TypeCertificatesReady {
			return m["status"] == "False"
		}
	}
	return false
}

// VirtualWorkspace returns the required VirtualWorkspace named name.
func VirtualWorkspace(st *observed.State, name string) (*v1alpha1.VirtualWorkspace, bool) {
	vw := &v1alpha1.VirtualWorkspace{}
	return vw, Get(st, v1alpha1.KindVirtualWorkspace, name, vw)
}

// ShardsOf returns the required Shards whose spec.rootShard.ref names rootShard, or whose
// spec.rootShard.secretRef names its reference Secret <rootShard>-reference (the RootShard
// of this namespace composes it), sorted by name. A Shard that names a copy of the
// reference under another name is not known to be the RootShard's.
func ShardsOf(st *observed.State, rootShard string) []v1alpha1.Shard {
	var out []v1alpha1.Shard
	for _, n := range st.Names(v1alpha1.KindShard) {
		sh := v1alpha1.Shard{}
		if !Get(st, v1alpha1.KindShard, n, &sh) {
			continue
		}
		ref, secret := sh.Spec.RootShard.Ref, sh.Spec.RootShard.SecretRef
		if (ref != nil && ref.Name == rootShard) || (secret != nil && secret.Name == names.Reference(rootShard)) {
			out = append(out, sh)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
