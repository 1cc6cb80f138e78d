// Package kcpversion decides which of kcp's version-gated features to use, from the image
// tag: the flags and behaviour a kcp release introduced or changed.
//
// kcp-operator enables a few flags only for kcp versions that understand them. A tag that is
// not a semantic version (a digest, "main", "latest") is treated as the newest kcp, as
// kcp-operator does. Pre-release suffixes are ignored: v0.33.0-rc.1 counts as 0.33.0.
package kcpversion

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a parsed major.minor.patch.
type Version struct{ Major, Minor, Patch int }

// Parse reads tags like v0.32.3, 0.32.3 or v0.33.0-rc.1+build. ok is false for anything else.
func Parse(tag string) (v Version, ok bool) {
	s := strings.TrimPrefix(tag, "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, false
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return Version{}, false
		}
		nums[i] = n
	}
	return Version{nums[0], nums[1], nums[2]}, true
}

// Less reports whether v sorts before o.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// atLeast is the constraint ">=major.minor.patch".
func (v Version) atLeast(major, minor, patch int) bool { //nolint:unparam // Every kcp is 0.x today; a gate on 1.0 will read the same.
	return !v.Less(Version{major, minor, patch})
}

// tilde is the constraint "~major.minor.patch": at least that patch within the same minor.
func (v Version) tilde(major, minor, patch int) bool {
	return v.Major == major && v.Minor == minor && v.Patch >= patch
}

// SupportsMountsProxyAndRequestHeader gates the shards' --mount-proxy-client-* flags and the
// proxies' --requestheader-* flags: ~0.31.6 || >=0.32.3.
func SupportsMountsProxyAndRequestHeader(tag string) bool {
	v, ok := Parse(tag)
	return !ok || v.tilde(0, 31, 6) || v.atLeast(0, 32, 3)
}

// SupportsCacheServerClientCA gates the cache server's --client-ca-file flag:
// ~0.29.2 || ~0.30.2 || >=0.31.0.
func SupportsCacheServerClientCA(tag string) bool {
	v, ok := Parse(tag)
	return !ok || v.tilde(0, 29, 2) || v.tilde(0, 30, 2) || v.atLeast(0, 31, 0)
}

// ReadsExternalHostname says whether kcp reads a shard's --external-hostname and a virtual
// workspace server's --shard-external-url: before 0.31.0. From 0.31.0 (kcp b1af226 and
// 3549131) both are hidden, deprecated and ignored: a shard's external host comes from
// --shard-base-url, and the virtual workspace server has no use for the shard's external URL.
func ReadsExternalHostname(tag string) bool {
	v, ok := Parse(tag)
	return ok && !v.atLeast(0, 31, 0)
}

// SupportsObjectLimit gates the shards' --logical-cluster-total-object-limit and
// --logical-cluster-object-count-scan-interval flags: >=0.33.0 (kcp 7984665, on main after
// v0.32.3, in no release yet). An older kcp refuses to start with them.
func SupportsObjectLimit(tag string) bool {
	v, ok := Parse(tag)
	return !ok || v.atLeast(0, 33, 0)
}

// CacheServerHonoursEtcdPrefix says whether the cache server stores its data under
// --etcd-prefix: >=0.33.0. Up to v0.32.3 it sets its storage prefix to /cache whatever the
// flag says (pkg/cache/server/config.go), so two cache servers of those versions sharing one
// etcd share /cache. kcp#4292 (commit 84c1f2f, on main after v0.32.3, in no release yet)
// honours the flag.
func CacheServerHonoursEtcdPrefix(tag string) bool {
	v, ok := Parse(tag)
	return !ok || v.atLeast(0, 33, 0)
}

// CacheServerStoragePrefix is where kcp's cache server keeps its data in etcd: /cache on
// kcp that ignores --etcd-prefix; on kcp that honours it, the prefix asked for, except that
// none and the API server's default /registry still mean /cache.
func CacheServerStoragePrefix(tag, prefix string) string {
	if prefix == "" || prefix == "/registry" || !CacheServerHonoursEtcdPrefix(tag) {
		return "/cache"
	}
	return prefix
}

// IgnoredCachePrefix says why a cache server of kcp tag, asked to store under prefix, keeps
// its data elsewhere, where every other cache server on its etcd does too; "" when it stores
// where asked.
func IgnoredCachePrefix(tag, prefix string) string {
	stored := CacheServerStoragePrefix(tag, prefix)
	if prefix == "" || strings.TrimSuffix(prefix, "/") == stored {
		return ""
	}
	return fmt.Sprintf("kcp %s's cache server ignores --etcd-prefix=%s and keeps its data under %s, which every other cache server on this etcd shares (kcp#4292 fixes this in the release after v0.32.3)", tag, prefix, stored)
}

// EmbeddedCacheStoragePrefix is where a root shard's embedded cache keeps its data in etcd,
// for a root shard stored under shardPrefix. `kcp start` gives the embedded cache a copy of
// the shard's etcd options, so once the cache server honours --etcd-prefix (kcp#4292) the
// embedded cache honours the shard's: its keys land among the shard's own, where kcp reads
// them as logical clusters of the shard (seen on kcp main, 2026-08-07: a logical cluster
// "customresources" and "multiple apiexports" errors). Before that, and for no prefix or
// /registry on every version, it is /cache.
func EmbeddedCacheStoragePrefix(tag, shardPrefix string) string {
	return CacheServerStoragePrefix(tag, shardPrefix)
}

// EmbeddedCacheCollides says why a root shard of kcp tag, stored under shardPrefix with an
// embedded cache, would mix its cache's keys into its own; "" when they stay apart.
func EmbeddedCacheCollides(tag, shardPrefix string) string {
	stored := EmbeddedCacheStoragePrefix(tag, shardPrefix)
	if stored == "/cache" {
		return ""
	}
	return fmt.Sprintf("kcp %s's embedded cache stores under the root shard's own --etcd-prefix=%s, among the shard's keys, which kcp then reads as logical clusters of the shard (kcp#4292 made the cache honour the prefix; the embedded cache inherits the shard's)", tag, strings.TrimSuffix(shardPrefix, "/"))
}

// EmbeddedCacheShared says why a root shard of kcp tag, stored under shardPrefix with an
// embedded cache, keeps that cache's data where every other kcp on its etcd keeps theirs; ""
// when it does not. A prefix says the etcd is shared; kcp up to v0.32.3 ignores it for the
// cache and stores under /cache (measured on kcp v0.32.3 started with --etcd-prefix=/kcp/root:
// 254 keys under the prefix, 65 of its embedded cache under /cache), so two root shards there
// read and overwrite each other's replicated objects, both named after shard root and
// workspace root. Without a prefix, or with /registry, the etcd is taken to be the root
// shard's alone.
func EmbeddedCacheShared(tag, shardPrefix string) string {
	p := strings.TrimSuffix(shardPrefix, "/")
	if p == "" || p == "/registry" || EmbeddedCacheStoragePrefix(tag, shardPrefix) != "/cache" {
		return ""
	}
	return fmt.Sprintf("kcp %s's embedded cache ignores the root shard's --etcd-prefix=%s and keeps its data under /cache, which every other kcp's cache on this etcd shares (kcp#4292 fixes this in the release after v0.32.3)", tag, p)
}
