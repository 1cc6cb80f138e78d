package names

import "github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"

// RootCASecret is the Secret holding a RootShard's root CA, which every component of its
// installation mounts: spec.certificates.caSecretRef when given, else <rs>-ca. kcp-operator
// mounts <rs>-ca even with caSecretRef (its quirk 5), which then never exists.
func RootCASecret(rs *v1alpha1.RootShard) string {
	if ref := rs.Spec.Certificates.CASecretRef; ref != nil {
		return ref.Name
	}
	return RootShard(rs.GetName()).RootCA()
}

// CacheServerOf is the CacheServer a shard uses: the Shard's spec.cache.ref, else its
// RootShard's, else "" (the root shard serves as the cache). sh is nil for the root shard's
// own components.
func CacheServerOf(sh *v1alpha1.Shard, rs *v1alpha1.RootShard) string {
	if sh != nil {
		if cr := sh.Spec.Cache; cr != nil && cr.Ref != nil {
			return cr.Ref.Name
		}
	}
	if r := rs.Spec.Cache.Ref; r != nil {
		return r.Name
	}
	return ""
}
