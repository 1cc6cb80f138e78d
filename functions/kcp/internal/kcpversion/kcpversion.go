// Package kcpversion decides which of kcp's version-gated features to use, from the image
// tag: the flags and behaviour a kcp release introduced or changed.
//
// kcp-operator enables a few flags only for kcp versions that understand them. A tag that is
// not a semantic version (a digest, "main", "latest") is treated as the newest kcp, as
// kcp-operator does. Pre-release suffixes are ignored: v0.33.0-rc.1 counts as 0.33.0.
package kcpversion

import (
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
func (v Version) atLeast(major, minor, patch int) bool {
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
