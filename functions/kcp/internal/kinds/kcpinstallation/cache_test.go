package kcpinstallation

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestCacheServerEtcd: a cache server stores in the installation's etcd under a prefix of
// its own, unless it names an etcd or asks for the embedded one.
func TestCacheServerEtcd(t *testing.T) {
	own := &v1alpha1.EtcdConfig{Endpoints: []string{"https://own:2379"}}
	cases := map[string]struct {
		reason string
		inst   func() *v1alpha1.KcpInstallation
		cache  v1alpha1.InstallationCacheServer
		want   *v1alpha1.EtcdConfig
	}{
		"ManagedEtcd": {
			reason: "Beside the shards in the managed etcd, under /cache, with kcp's client certificate.",
			inst:   smallest,
			want:   &v1alpha1.EtcdConfig{Endpoints: []string{"https://team-a-etcd.tenant.svc.cluster.local:2379"}, TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: secretRef("team-a-etcd-client")}, Prefix: "/cache"},
		},
		"ExternalEtcd": {
			reason: "Beside the root shard's keys in the external etcd, on a kcp whose cache server honours --etcd-prefix.",
			inst: func() *v1alpha1.KcpInstallation {
				i := external()
				i.Spec.Etcd.External.Prefix = "/kcp/"
				i.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"}
				return i
			},
			want: &v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd:2379"}, Prefix: "/kcp-cache"},
		},
		"OwnEtcd": {
			reason: "An etcd the user names is used as it is.",
			inst:   smallest,
			cache:  v1alpha1.InstallationCacheServer{Etcd: own},
			want:   own,
		},
		"Embedded": {
			reason: "The embedded etcd only when asked.",
			inst:   smallest,
			cache:  v1alpha1.InstallationCacheServer{Embedded: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := tc.inst()
			inst.Spec.CacheServer = &tc.cache
			got := childSpec[v1alpha1.CacheServerSpec](t, composeOK(t, inst), "team-a-cache").Etcd
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nthe CacheServer's spec.etcd: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCachePrefix(t *testing.T) {
	cases := map[string]struct{ root, want string }{
		"Default":       {"", "/cache"},
		"Prefix":        {"/kcp", "/kcp-cache"},
		"TrailingSlash": {"/kcp/", "/kcp-cache"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CachePrefix(tc.root); got != tc.want {
				t.Errorf("CachePrefix(%q) = %q, want %q", tc.root, got, tc.want)
			}
		})
	}
}

// TestCacheServerReplicas: spec.cacheServer.replicas reaches the CacheServer; Validate refuses
// more than one for an embedded cache, one pod's own, naming the installation's field.
func TestCacheServerReplicas(t *testing.T) {
	two := int32(2)
	r := composeOK(t, func() *v1alpha1.KcpInstallation {
		i := smallest()
		i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Replicas: &two}
		return i
	}())
	if got := childSpec[v1alpha1.CacheServerSpec](t, r, "team-a-cache").Replicas; got == nil || *got != 2 {
		t.Errorf("the CacheServer's spec.replicas = %v, want 2", got)
	}
	inst := smallest()
	inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Embedded: true, Replicas: &two}
	errs := Validate(inst)
	if len(errs) != 1 || errs[0].Field != "spec.cacheServer.replicas" {
		t.Errorf("an embedded cache with 2 replicas: got errors %v, want one at spec.cacheServer.replicas", errs.ToAggregate())
	}
}
