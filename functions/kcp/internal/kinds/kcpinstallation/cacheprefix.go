package kcpinstallation

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
)

// cacheServerKey is the composition resource name of the installation's CacheServer.
const cacheServerKey = "cacheserver"

// checkCacheKeyspace keeps the installation's durable cache server out of every other cache
// server's keys. kcp up to v0.32.3 ignores the cache server's --etcd-prefix and stores under
// /cache, so a cache server in an etcd the installation does not own alone (spec.etcd.external,
// or spec.cacheServer.etcd) under any other prefix would share /cache with every cache server
// there. A new installation is refused, naming the ways out; one whose cache server already
// runs there is kept as it is, since moving a cache's keys is not the function's to do, and
// warned. Only one already there: a cache server moved into that etcd (from an embedded one,
// another etcd, or a kcp that honours the prefix) is refused like a new one, or a tenant
// could enter /cache in two steps.
func checkCacheKeyspace(inst *v1alpha1.KcpInstallation, children []child, st *observed.State) (field.ErrorList, []string) {
	s := inst.Spec
	if s.CacheServer == nil || s.CacheServer.Embedded {
		return nil, nil
	}
	at := field.NewPath("spec", "cacheServer", "etcd", "prefix")
	if s.CacheServer.Etcd == nil {
		if s.Etcd.IsManaged() {
			return nil, nil // the installation's managed etcd: no other cache server is there
		}
		at = field.NewPath("spec", "etcd", "external", "prefix")
	}
	var cs *v1alpha1.CacheServer
	for _, c := range children {
		if x, ok := c.xr.(*v1alpha1.CacheServer); ok {
			cs = x
		}
	}
	if cs == nil || cs.Spec.Etcd == nil {
		return nil, nil
	}
	why := kcpversion.IgnoredCachePrefix(kcpimage.Resolve(s.Image).Tag, cs.Spec.Etcd.Prefix)
	if why == "" {
		return nil, nil
	}
	if alreadyThere(st, *cs.Spec.Etcd) {
		return nil, []string{fmt.Sprintf("%s: %s; this installation's cache server already runs there and is kept as it is: let no other cache server use this etcd", at, why)}
	}
	return field.ErrorList{field.Forbidden(at, why+"; give the cache server an etcd of its own in spec.cacheServer.etcd (without a prefix), set spec.cacheServer.embedded, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)")}, nil
}

// alreadyThere reports whether the installation's CacheServer already runs on etcd e, under
// its prefix, with a kcp that ignores that prefix: its data is in /cache already.
func alreadyThere(st *observed.State, e v1alpha1.EtcdConfig) bool {
	if !st.Exists(cacheServerKey) {
		return false
	}
	tag := kcpimage.Resolve(&v1alpha1.ImageSpec{Tag: st.String(cacheServerKey, "spec", "image", "tag")}).Tag
	return slices.Equal(st.Strings(cacheServerKey, "spec", "etcd", "endpoints"), e.Endpoints) &&
		st.String(cacheServerKey, "spec", "etcd", "prefix") == e.Prefix &&
		kcpversion.IgnoredCachePrefix(tag, e.Prefix) != ""
}

// rootShardKey is the composition resource name of the installation's RootShard.
const rootShardKey = "rootshard"

// checkEmbeddedCache keeps the root shard's embedded cache out of the root shard's own keys
// and out of every other kcp's cache. Without spec.cacheServer the root shard runs the cache
// inside itself, in its etcd: from kcp v0.33 under the shard's --etcd-prefix
// (kcpversion.EmbeddedCacheCollides), where the root shard would read the cache's keys as its
// own logical clusters; up to v0.32.3 under /cache whatever the prefix
// (kcpversion.EmbeddedCacheShared), which every other kcp's cache on a shared etcd (one the
// installation reaches under spec.etcd.external.prefix) also uses. Refused before anything
// is composed; a root shard already running with its embedded cache under /cache is kept as
// it is, and warned, since moving a cache's keys is not the function's to do.
func checkEmbeddedCache(inst *v1alpha1.KcpInstallation, st *observed.State) (field.ErrorList, []string) {
	s := inst.Spec
	if s.CacheServer != nil || s.Etcd == nil || s.Etcd.External == nil {
		return nil, nil // a cache server of its own, or the managed etcd, whose root shard has no prefix
	}
	at, e, tag := field.NewPath("spec", "etcd", "external", "prefix"), *s.Etcd.External, kcpimage.Resolve(s.Image).Tag
	if why := kcpversion.EmbeddedCacheCollides(tag, e.Prefix); why != "" {
		return field.ErrorList{field.Forbidden(at, why+"; add spec.cacheServer (the installation's own cache server, beside the root shard's keys), remove the prefix, or stay on kcp v0.32 (spec.image.tag)")}, nil
	}
	why := kcpversion.EmbeddedCacheShared(tag, e.Prefix)
	if why == "" {
		return nil, nil
	}
	if embeddedCacheThere(st, e) {
		return nil, []string{fmt.Sprintf("%s: %s; this installation's root shard already keeps its cache there and is kept as it is: let no other kcp use this etcd, or add spec.cacheServer with an etcd of its own", at, why)}
	}
	return field.ErrorList{field.Forbidden(at, why+"; add spec.cacheServer with an etcd of its own (spec.cacheServer.etcd, without a prefix) or spec.cacheServer.embedded: true, or give the installation an etcd of its own without a prefix")}, nil
}

// embeddedCacheThere reports whether the installation's RootShard already runs on etcd e,
// under its prefix, with an embedded cache that keeps its data under /cache.
func embeddedCacheThere(st *observed.State, e v1alpha1.EtcdConfig) bool {
	if !st.Exists(rootShardKey) || st.String(rootShardKey, "spec", "cache", "ref", "name") != "" {
		return false
	}
	tag := kcpimage.Resolve(&v1alpha1.ImageSpec{Tag: st.String(rootShardKey, "spec", "image", "tag")}).Tag
	return slices.Equal(st.Strings(rootShardKey, "spec", "etcd", "endpoints"), e.Endpoints) &&
		st.String(rootShardKey, "spec", "etcd", "prefix") == e.Prefix &&
		kcpversion.EmbeddedCacheShared(tag, e.Prefix) != ""
}
