package kcpinstallation

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// TestCacheKeyspace: on a kcp whose cache server ignores --etcd-prefix (v0.32.3 and before)
// a new installation's cache server never lands in /cache of an etcd it may share; one that
// already runs there is kept and warned about.
//
// The fields it reads are a tenant's to set (spec.etcd.external, spec.cacheServer.etcd,
// spec.cacheServer.embedded, spec.image.tag); this change adds no field, only a refusal. The
// schema bounds each prefix at 256 characters of a key path (check.EtcdPrefix); no shared
// object reads them, and none widens a certificate or an identity: the platform's policy does
// not decide them. The hostile cases are a tenant reaching /cache of a shared etcd directly
// (ExternalPrefixRefused, OwnEtcdWithPrefix) or in two edits (MovedIntoSharedEtcd,
// RunningOnKcpThatHonours).
func TestCacheKeyspace(t *testing.T) {
	externalAt := func(prefix, tag string) func(*v1alpha1.KcpInstallation) {
		return func(i *v1alpha1.KcpInstallation) {
			i.Spec.Etcd = &v1alpha1.InstallationEtcd{External: &v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}, Prefix: prefix}}
			if tag != "" {
				i.Spec.Image = &v1alpha1.ImageSpec{Tag: tag}
			}
		}
	}
	ownEtcd := func(prefix string) func(*v1alpha1.KcpInstallation) {
		return func(i *v1alpha1.KcpInstallation) {
			i.Spec.CacheServer.Etcd = &v1alpha1.EtcdConfig{Endpoints: []string{"http://cache-etcd:2379"}, Prefix: prefix}
		}
	}
	const refused = "kcp v0.32.3's cache server ignores --etcd-prefix=/team-a-cache and keeps its data under /cache, which every other cache server on this etcd shares (kcp#4292 fixes this in the release after v0.32.3)"
	cases := map[string]struct {
		reason   string
		mods     []func(*v1alpha1.KcpInstallation)
		running  map[string]any // the spec of the installation's CacheServer, when it exists
		wantErrs []string
		wantWarn []string
	}{
		"ManagedEtcd": {
			reason: "The installation's own etcd holds no other cache server.",
		},
		"ExternalWithoutPrefix": {
			reason: "Without a prefix the cache server asks for /cache, where kcp puts it anyway.",
			mods:   []func(*v1alpha1.KcpInstallation){externalAt("", "")},
		},
		"ExternalPrefixRefused": {
			reason:   "A prefix says the etcd is shared; kcp v0.32.3 would put the cache in /cache, with every other cache server there.",
			mods:     []func(*v1alpha1.KcpInstallation){externalAt("/team-a", "")},
			wantErrs: []string{"spec.etcd.external.prefix: Forbidden: " + refused + "; give the cache server an etcd of its own in spec.cacheServer.etcd (without a prefix), set spec.cacheServer.embedded, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)"},
		},
		"ExternalPrefixRunning": {
			reason:   "A cache server already running there is not moved (its keys are where kcp put them): kept, with a warning.",
			mods:     []func(*v1alpha1.KcpInstallation){externalAt("/team-a", "")},
			running:  map[string]any{"etcd": map[string]any{"endpoints": []any{"http://etcd:2379"}, "prefix": "/team-a-cache"}},
			wantWarn: []string{"spec.etcd.external.prefix: " + refused + "; this installation's cache server already runs there and is kept as it is: let no other cache server use this etcd"},
		},
		"MovedIntoSharedEtcd": {
			reason:   "A cache server that ran embedded and is moved into the shared etcd is refused as a new one is: two steps must not get a tenant into /cache.",
			mods:     []func(*v1alpha1.KcpInstallation){externalAt("/team-a", "")},
			running:  map[string]any{},
			wantErrs: []string{"spec.etcd.external.prefix: Forbidden: " + refused + "; give the cache server an etcd of its own in spec.cacheServer.etcd (without a prefix), set spec.cacheServer.embedded, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)"},
		},
		"RunningOnKcpThatHonours": {
			reason:   "A cache server that ran on a kcp honouring the prefix keeps its data under /team-a-cache: going back to v0.32.3 would move it into /cache.",
			mods:     []func(*v1alpha1.KcpInstallation){externalAt("/team-a", "")},
			running:  map[string]any{"image": map[string]any{"tag": "v0.33.0"}, "etcd": map[string]any{"endpoints": []any{"http://etcd:2379"}, "prefix": "/team-a-cache"}},
			wantErrs: []string{"spec.etcd.external.prefix: Forbidden: " + refused + "; give the cache server an etcd of its own in spec.cacheServer.etcd (without a prefix), set spec.cacheServer.embedded, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)"},
		},
		"ExternalPrefixHonoured": {
			reason: "kcp v0.33.0 stores under /team-a-cache, apart from every other installation's cache.",
			mods:   []func(*v1alpha1.KcpInstallation){externalAt("/team-a", "v0.33.0")},
		},
		"NotAVersion": {
			reason: "A tag that is not a version counts as the newest kcp, which honours the prefix.",
			mods:   []func(*v1alpha1.KcpInstallation){externalAt("/team-a", "main")},
		},
		"Embedded": {
			reason: "An embedded cache keeps its data in its own pod.",
			mods:   []func(*v1alpha1.KcpInstallation){externalAt("/team-a", ""), func(i *v1alpha1.KcpInstallation) { i.Spec.CacheServer.Embedded = true }},
		},
		"OwnEtcdWithoutPrefix": {
			reason: "An etcd named for the cache alone, without a prefix: /cache there is this cache's.",
			mods:   []func(*v1alpha1.KcpInstallation){externalAt("/team-a", ""), ownEtcd("")},
		},
		"OwnEtcdWithPrefix": {
			reason:   "A prefix on the cache's own etcd says it is shared too.",
			mods:     []func(*v1alpha1.KcpInstallation){ownEtcd("/caches/a")},
			wantErrs: []string{"spec.cacheServer.etcd.prefix: Forbidden: kcp v0.32.3's cache server ignores --etcd-prefix=/caches/a and keeps its data under /cache, which every other cache server on this etcd shares (kcp#4292 fixes this in the release after v0.32.3); give the cache server an etcd of its own in spec.cacheServer.etcd (without a prefix), set spec.cacheServer.embedded, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := smallest()
			inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
			for _, m := range tc.mods {
				m(inst)
			}
			r, errs := Compose(inst, composedBefore(cacheServerKey, v1alpha1.KindCacheServer, inst.GetName()+"-cache", inst.GetNamespace(), tc.running), frontProxyNameLength)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.wantErrs, got); diff != "" {
				t.Errorf("%s\nCompose(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantWarn, r.Warnings); diff != "" {
				t.Errorf("%s\nCompose(...) warnings: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEmbeddedCacheKeyspace: without spec.cacheServer the root shard runs an embedded cache,
// which from kcp v0.33 stores under the root shard's own prefix, and up to v0.32.3 under
// /cache whatever the prefix, where every other kcp on a shared etcd keeps its cache. An
// installation whose root shard has a prefix (spec.etcd.external.prefix: a shared etcd) is
// refused in both cases, naming the ways out; one already running with its cache under /cache
// is kept, and warned.
//
// The fields it reads are a tenant's (spec.etcd.external.prefix, spec.cacheServer,
// spec.image.tag); this adds no field, only a refusal, so the platform's policy has nothing
// new to decide. The hostile cases: a root shard that corrupts itself on upgrade
// (ExternalPrefixOnNextKCP, ExternalPrefixOnMain), and one whose cache reads and overwrites
// another team's kcp's cache on an etcd both teams' prefixes share (ExternalPrefixOnV032,
// MovedIntoSharedEtcd), both refused while what runs is kept.
func TestEmbeddedCacheKeyspace(t *testing.T) {
	external := func(prefix, tag string) func(*v1alpha1.KcpInstallation) {
		return func(i *v1alpha1.KcpInstallation) {
			i.Spec.Etcd = &v1alpha1.InstallationEtcd{External: &v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}, Prefix: prefix}}
			i.Spec.Image = &v1alpha1.ImageSpec{Tag: tag}
		}
	}
	cacheServer := func(i *v1alpha1.KcpInstallation) {
		i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Embedded: true}
	}
	// running is the installation's RootShard as composed before: on etcd endpoint, under
	// prefix, with kcp tag and no cache server.
	running := func(endpoint, prefix, tag string) map[string]any {
		return map[string]any{"image": map[string]any{"tag": tag}, "etcd": map[string]any{"endpoints": []any{endpoint}, "prefix": prefix}}
	}
	const shared = "spec.etcd.external.prefix: Forbidden: kcp v0.32.3's embedded cache ignores the root shard's --etcd-prefix=/team-a and keeps its data under /cache, which every other kcp's cache on this etcd shares (kcp#4292 fixes this in the release after v0.32.3); add spec.cacheServer with an etcd of its own (spec.cacheServer.etcd, without a prefix) or spec.cacheServer.embedded: true, or give the installation an etcd of its own without a prefix"
	refused := func(tag string) []string {
		return []string{"spec.etcd.external.prefix: Forbidden: kcp " + tag + "'s embedded cache stores under the root shard's own --etcd-prefix=/team-a, among the shard's keys, which kcp then reads as logical clusters of the shard (kcp#4292 made the cache honour the prefix; the embedded cache inherits the shard's); add spec.cacheServer (the installation's own cache server, beside the root shard's keys), remove the prefix, or stay on kcp v0.32 (spec.image.tag)"}
	}
	cases := map[string]struct {
		reason   string
		mods     []func(*v1alpha1.KcpInstallation)
		running  map[string]any // the RootShard's spec as composed before
		wantErrs []string
		wantWarn []string
	}{
		"ExternalPrefixOnV032": {
			reason:   "kcp v0.32.3's embedded cache stores under /cache, apart from the root shard's /team-a but where every other kcp's cache on the shared etcd is.",
			mods:     []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.32.3")},
			wantErrs: []string{shared},
		},
		"ExternalPrefixRunningOnV032": {
			reason:   "A root shard already keeping its cache under /cache is kept as it is: moving a cache's keys is not the function's to do.",
			mods:     []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.32.3")},
			running:  running("http://etcd:2379", "/team-a", "v0.32.3"),
			wantWarn: []string{"spec.etcd.external.prefix: kcp v0.32.3's embedded cache ignores the root shard's --etcd-prefix=/team-a and keeps its data under /cache, which every other kcp's cache on this etcd shares (kcp#4292 fixes this in the release after v0.32.3); this installation's root shard already keeps its cache there and is kept as it is: let no other kcp use this etcd, or add spec.cacheServer with an etcd of its own"},
		},
		"MovedIntoSharedEtcd": {
			reason:   "A root shard moved onto the shared etcd (from another, or another prefix) is refused like a new one, or a tenant could enter /cache in two steps.",
			mods:     []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.32.3")},
			running:  running("http://etcd-of-its-own:2379", "/team-a", "v0.32.3"),
			wantErrs: []string{shared},
		},
		"RunningWithACacheServer": {
			reason:   "A root shard that replicated through a cache server of its own keeps nothing under /cache: dropping spec.cacheServer is refused like a new installation.",
			mods:     []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.32.3")},
			running:  map[string]any{"image": map[string]any{"tag": "v0.32.3"}, "etcd": map[string]any{"endpoints": []any{"http://etcd:2379"}, "prefix": "/team-a"}, "cache": map[string]any{"ref": map[string]any{"name": "dev-cache"}}},
			wantErrs: []string{shared},
		},
		"ExternalPrefixOnV032WithCacheServer": {
			reason: "With a cache server on an embedded etcd of its own, nothing of the installation's is under /cache of the shared etcd.",
			mods:   []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.32.3"), cacheServer},
		},
		"ExternalPrefixOnNextKCP": {
			reason:   "kcp v0.33.0's embedded cache would store among the root shard's keys under /team-a.",
			mods:     []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.33.0")},
			wantErrs: refused("v0.33.0"),
		},
		"ExternalPrefixOnMain": {
			reason:   "A tag that is not a version counts as the newest kcp.",
			mods:     []func(*v1alpha1.KcpInstallation){external("/team-a", "main")},
			wantErrs: refused("main"),
		},
		"ExternalWithoutPrefix": {
			reason: "Without a prefix the root shard stores under /registry and its cache under /cache.",
			mods:   []func(*v1alpha1.KcpInstallation){external("", "v0.33.0")},
		},
		"OwnCacheServer": {
			reason: "With spec.cacheServer the root shard runs no embedded cache.",
			mods:   []func(*v1alpha1.KcpInstallation){external("/team-a", "v0.33.0"), cacheServer},
		},
		"ManagedEtcd": {
			reason: "The managed etcd's root shard has no prefix.",
			mods:   []func(*v1alpha1.KcpInstallation){func(i *v1alpha1.KcpInstallation) { i.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"} }},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := smallest()
			for _, m := range tc.mods {
				m(inst)
			}
			r, errs := Compose(inst, composedBefore(rootShardKey, v1alpha1.KindRootShard, inst.GetName(), inst.GetNamespace(), tc.running), frontProxyNameLength)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.wantErrs, got); diff != "" {
				t.Errorf("%s\nCompose(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantWarn, r.Warnings); diff != "" {
				t.Errorf("%s\nCompose(...) warnings: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// composedBefore is the observed state of an installation that composed one XR before, at key,
// with spec; none when spec is nil.
func composedBefore(key resource.Name, kind, name, namespace string, spec map[string]any) *observed.State {
	composed := map[resource.Name]*resource.Unstructured{}
	if spec != nil {
		u := &resource.Unstructured{Object: map[string]any{"spec": spec}}
		u.SetAPIVersion(v1alpha1.Group + "/v1alpha1")
		u.SetKind(kind)
		u.SetNamespace(namespace)
		u.SetName(name)
		composed[key] = u
	}
	return observed.New(composed)
}
