package required

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// The fields of a Shard's or FrontProxy's spec.rootShard.
var (
	rootShardRefField    = field.NewPath("spec", "rootShard", "ref", "name")
	rootShardSecretField = field.NewPath("spec", "rootShard", "secretRef", "name")
)

// RootShardRead is the RootShard a Shard's or FrontProxy's spec.rootShard names, as far as
// it could be read: the XR ref names, or the RootShard rebuilt from the reference Secret
// secretRef names (reference.Reference.RootShard).
type RootShardRead struct {
	// RootShard is nil while it cannot be read: Missing says why, or Invalid.
	RootShard *v1alpha1.RootShard
	// Secret is the reference Secret it was read from; "" for ref.
	Secret string
	// Missing says, for a condition, which object does not exist and how to fix it.
	Missing string
	// Invalid refuses a Secret that is no RootShard's reference, naming the field.
	Invalid *field.Error
}

// RootShardRequirement is what spec.rootShard makes the function read: the RootShard XR,
// or the reference Secret. The XR must have passed Validate (exactly one of them is set).
func RootShardRequirement(cfg v1alpha1.RootShardConfig) result.Requirement {
	if r := cfg.SecretRef; r != nil {
		return result.Requirement{Kind: "Secret", Name: r.Name}
	}
	return Named(v1alpha1.KindRootShard, cfg.Ref.Name)
}

// ReadRootShard reads the RootShard spec.rootShard names, for an XR of namespace ns.
func ReadRootShard(st *observed.State, cfg v1alpha1.RootShardConfig, ns string) RootShardRead {
	if r := cfg.SecretRef; r != nil {
		return readReference(st, r.Name, ns)
	}
	name := cfg.Ref.Name
	if rs, ok := RootShard(st, name); ok {
		return RootShardRead{RootShard: rs}
	}
	return RootShardRead{Missing: fmt.Sprintf("RootShard %s (%s) does not exist in namespace %s; create it or fix the reference", name, rootShardRefField, ns)}
}

// readReference rebuilds the RootShard of reference Secret name.
func readReference(st *observed.State, name, ns string) RootShardRead {
	l := st.Secret(name)
	if !l.Found {
		return RootShardRead{Secret: name, Missing: fmt.Sprintf("Secret %s (%s) does not exist in namespace %s; copy the reference Secret of the RootShard (<rootshard>-reference) here or fix the reference", name, rootShardSecretField, ns)}
	}
	fix := "; name a RootShard's reference Secret (<rootshard>-reference), or a copy of it"
	r, err := reference.Parse(l.Data)
	if err != nil {
		return RootShardRead{Secret: name, Invalid: field.Invalid(rootShardSecretField, name, fmt.Sprintf("Secret %s is not a reference Secret: %v%s", name, err, fix))}
	}
	if r.Kind != v1alpha1.KindRootShard {
		return RootShardRead{Secret: name, Invalid: field.Invalid(rootShardSecretField, name, fmt.Sprintf("Secret %s is the reference of %s %s/%s, not of a RootShard%s", name, r.Kind, r.Namespace, r.Name, fix))}
	}
	return RootShardRead{RootShard: r.RootShard(), Secret: name}
}

// Field names the RootShard for messages about what it provides: the field that names it
// and the RootShard, for instance "spec.rootShard.ref.name (RootShard root)". Only for a
// read that found the RootShard.
func (r RootShardRead) Field() string {
	if r.Secret == "" {
		return fmt.Sprintf("%s (RootShard %s)", rootShardRefField, r.RootShard.Name)
	}
	return fmt.Sprintf("%s (RootShard %s/%s, by its reference Secret %s)", rootShardSecretField, r.RootShard.Namespace, r.RootShard.Name, r.Secret)
}

// IssuingCertificates reports whether the RootShard says it is still issuing its
// certificates (IssuingCertificates of the XR). A reference Secret does not say, and need
// not: a RootShard composes its reference only once every certificate it composed is
// issued, so one that exists speaks for a RootShard that has issued them.
func (r RootShardRead) IssuingCertificates(st *observed.State) bool {
	if r.Secret != "" || r.RootShard == nil {
		return false
	}
	return IssuingCertificates(st, v1alpha1.KindRootShard, r.RootShard.Name)
}

// SameNamespace reports whether the RootShard is of namespace ns: always for ref; for
// secretRef, when its reference says so. What only the RootShard XR composes in its own
// namespace (the Object that registers a shard, say) is read only then.
func (r RootShardRead) SameNamespace(ns string) bool {
	return r.RootShard != nil && (r.Secret == "" || r.RootShard.Namespace == ns)
}
