package check

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// RootShard checks a Shard's or FrontProxy's spec.rootShard (fld): exactly one of ref and
// secretRef, with a name. what completes "name the RootShard ...", for instance "this shard
// belongs to".
func RootShard(fld *field.Path, cfg v1alpha1.RootShardConfig, what string) field.ErrorList {
	ref, secret := cfg.Ref, cfg.SecretRef
	switch {
	case ref != nil && secret != nil:
		return field.ErrorList{field.Forbidden(fld.Child("secretRef"), "set either ref (the RootShard in this namespace) or secretRef (its reference Secret), not both")}
	case secret != nil && secret.Name == "":
		return field.ErrorList{field.Required(fld.Child("secretRef", "name"), "name the reference Secret (<rootshard>-reference, or a copy of it, in this namespace) of the RootShard "+what)}
	case ref == nil && secret == nil, ref != nil && ref.Name == "":
		return field.ErrorList{field.Required(fld.Child("ref", "name"), "name the RootShard (in the same namespace) "+what+", or set secretRef to its reference Secret")}
	}
	return nil
}
