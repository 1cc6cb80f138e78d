package kcpversion

import "testing"

func TestSupportsMountsProxyAndRequestHeader(t *testing.T) {
	cases := map[string]struct {
		reason string
		tag    string
		want   bool
	}{
		"Default":        {reason: "The default kcp version supports the flags.", tag: "v0.32.3", want: true},
		"NewerMinor":     {reason: "Newer minors support the flags.", tag: "v0.33.0", want: true},
		"PatchTooOld":    {reason: "0.32.2 predates the flags.", tag: "v0.32.2", want: false},
		"Backport":       {reason: "0.31.6 got the flags as a backport.", tag: "v0.31.6", want: true},
		"BackportLater":  {reason: "Later 0.31 patches keep the backport.", tag: "v0.31.9", want: true},
		"BeforeBackport": {reason: "0.31.5 predates the backport.", tag: "v0.31.5", want: false},
		"OldMinor":       {reason: "0.30 never got the flags.", tag: "v0.30.9", want: false},
		"NoVPrefix":      {reason: "Tags without v parse too.", tag: "0.32.2", want: false},
		"PreRelease":     {reason: "Pre-release suffixes are ignored.", tag: "v0.32.3-rc.1", want: true},
		"NotSemver":      {reason: "Non-semver tags count as the newest kcp.", tag: "main", want: true},
		"LeadingZero":    {reason: "A leading zero is not semver, so the tag counts as newest.", tag: "v0.032.1", want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := SupportsMountsProxyAndRequestHeader(tc.tag); got != tc.want {
				t.Errorf("%s\nSupportsMountsProxyAndRequestHeader(%q) = %v, want %v", tc.reason, tc.tag, got, tc.want)
			}
		})
	}
}

func TestSupportsCacheServerClientCA(t *testing.T) {
	cases := map[string]struct {
		reason string
		tag    string
		want   bool
	}{
		"Old":          {reason: "0.29.1 predates the flag.", tag: "v0.29.1", want: false},
		"Backport029":  {reason: "0.29.2 has the backport.", tag: "v0.29.2", want: true},
		"Old030":       {reason: "0.30.1 predates the backport.", tag: "v0.30.1", want: false},
		"Backport030":  {reason: "0.30.2 has the backport.", tag: "v0.30.2", want: true},
		"Release031":   {reason: "0.31.0 has the flag.", tag: "v0.31.0", want: true},
		"Unparseable":  {reason: "A digest-like tag counts as newest.", tag: "sha-abc", want: true},
		"MajorRelease": {reason: "1.0.0 is newer than 0.31.", tag: "v1.0.0", want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := SupportsCacheServerClientCA(tc.tag); got != tc.want {
				t.Errorf("%s\nSupportsCacheServerClientCA(%q) = %v, want %v", tc.reason, tc.tag, got, tc.want)
			}
		})
	}
}

func TestCacheServerStoragePrefix(t *testing.T) {
	cases := map[string]struct {
		reason string
		tag    string
		prefix string
		want   string
	}{
		"Default":         {reason: "kcp v0.32.3 keeps its cache under /cache whatever --etcd-prefix says.", tag: "v0.32.3", prefix: "/kcp-cache", want: "/cache"},
		"OlderIgnoresToo": {reason: "So does every earlier kcp.", tag: "v0.30.2", prefix: "/a-cache", want: "/cache"},
		"NoPrefix":        {reason: "Without --etcd-prefix the cache server uses /cache on every version.", tag: "v0.33.0", prefix: "", want: "/cache"},
		"DefaultFlag":     {reason: "kcp#4292 keeps /cache for the flag's default, /registry.", tag: "v0.33.0", prefix: "/registry", want: "/cache"},
		"Honoured":        {reason: "kcp v0.33.0 (kcp#4292) stores under the prefix asked for.", tag: "v0.33.0", prefix: "/kcp-cache", want: "/kcp-cache"},
		"PreRelease":      {reason: "A pre-release of 0.33.0 counts as 0.33.0.", tag: "v0.33.0-rc.1", prefix: "/kcp-cache", want: "/kcp-cache"},
		"NotSemver":       {reason: "A tag that is not a version counts as the newest kcp.", tag: "main", prefix: "/kcp-cache", want: "/kcp-cache"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CacheServerStoragePrefix(tc.tag, tc.prefix); got != tc.want {
				t.Errorf("%s\nCacheServerStoragePrefix(%q, %q) = %q, want %q", tc.reason, tc.tag, tc.prefix, got, tc.want)
			}
		})
	}
}

func TestEmbeddedCacheCollides(t *testing.T) {
	cases := map[string]struct {
		reason  string
		tag     string
		prefix  string
		want    string // the storage prefix
		collide bool
		shared  bool
	}{
		"OldKCP":         {reason: "kcp v0.32.3's embedded cache keeps /cache, apart from a shard under /root, but where every other kcp on the etcd keeps its cache.", tag: "v0.32.3", prefix: "/root", want: "/cache", shared: true},
		"OldKCPNoPrefix": {reason: "Without a prefix the etcd is the root shard's alone.", tag: "v0.32.3", prefix: "", want: "/cache"},
		"OldKCPRegistry": {reason: "/registry is kcp's default: the etcd is the root shard's alone.", tag: "v0.32.3", prefix: "/registry/", want: "/cache"},
		"NoPrefix":       {reason: "A root shard without a prefix stores under /registry, its cache under /cache, on every version.", tag: "v0.33.0", prefix: "", want: "/cache"},
		"DefaultFlag":    {reason: "--etcd-prefix=/registry is the default, which still means /cache for the cache.", tag: "v0.33.0", prefix: "/registry", want: "/cache"},
		"Inherited":      {reason: "From v0.33.0 the embedded cache stores under the shard's prefix, among the shard's keys.", tag: "v0.33.0", prefix: "/root", want: "/root", collide: true},
		"TrailingSlash":  {reason: "A prefix with a trailing slash is the same keyspace.", tag: "v0.33.0", prefix: "/kcp/", want: "/kcp/", collide: true},
		"NotSemver":      {reason: "A tag that is not a version counts as the newest kcp: kcp main does this.", tag: "main", prefix: "/root", want: "/root", collide: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := EmbeddedCacheStoragePrefix(tc.tag, tc.prefix); got != tc.want {
				t.Errorf("%s\nEmbeddedCacheStoragePrefix(%q, %q) = %q, want %q", tc.reason, tc.tag, tc.prefix, got, tc.want)
			}
			if got := EmbeddedCacheCollides(tc.tag, tc.prefix); (got != "") != tc.collide {
				t.Errorf("%s\nEmbeddedCacheCollides(%q, %q) = %q, want a reason: %t", tc.reason, tc.tag, tc.prefix, got, tc.collide)
			}
			if got := EmbeddedCacheShared(tc.tag, tc.prefix); (got != "") != tc.shared {
				t.Errorf("%s\nEmbeddedCacheShared(%q, %q) = %q, want a reason: %t", tc.reason, tc.tag, tc.prefix, got, tc.shared)
			}
		})
	}
}

func TestReadsExternalHostname(t *testing.T) {
	cases := map[string]struct {
		reason string
		tag    string
		want   bool
	}{
		"Default":   {reason: "kcp v0.32.3 ignores both flags.", tag: "v0.32.3", want: false},
		"First":     {reason: "kcp v0.31.0 is the first to ignore them.", tag: "v0.31.0", want: false},
		"Before":    {reason: "kcp v0.30.x reads them.", tag: "v0.30.2", want: true},
		"NotSemver": {reason: "A tag that is not a version counts as the newest kcp.", tag: "main", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ReadsExternalHostname(tc.tag); got != tc.want {
				t.Errorf("%s\nReadsExternalHostname(%q) = %t, want %t", tc.reason, tc.tag, got, tc.want)
			}
		})
	}
}

func TestSupportsObjectLimit(t *testing.T) {
	cases := map[string]struct {
		reason string
		tag    string
		want   bool
	}{
		"Default":    {reason: "kcp v0.32.3 has no object limit flags and refuses to start with them.", tag: "v0.32.3", want: false},
		"Next":       {reason: "kcp's next release (7984665) adds them.", tag: "v0.33.0", want: true},
		"PreRelease": {reason: "A pre-release of 0.33.0 counts as 0.33.0.", tag: "v0.33.0-rc.1", want: true},
		"NotSemver":  {reason: "A tag that is not a version counts as the newest kcp.", tag: "main", want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := SupportsObjectLimit(tc.tag); got != tc.want {
				t.Errorf("%s\nSupportsObjectLimit(%q) = %t, want %t", tc.reason, tc.tag, got, tc.want)
			}
		})
	}
}
