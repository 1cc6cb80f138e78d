package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// devInstallation is smallest as a throwaway kcp: kcp's embedded etcd, no etcd to run.
func devInstallation() *v1alpha1.KcpInstallation {
	i := smallest()
	i.Spec.Etcd = &v1alpha1.InstallationEtcd{Embedded: true}
	return i
}

// TestDevelopment: a development installation composes its root shard on kcp's embedded
// etcd and no etcd cluster; what it cannot run is refused naming the installation's field,
// before anything is composed, and never over the managed etcd an installation already runs.
//
// etcd.embedded, as a tenant sees it: anyone who may write the KcpInstallation sets it; it is
// a boolean. It widens no certificate or identity (the same PKI is composed, less the etcd's).
// Its one cost on something shared is the node's disk, bounded at 4Gi per installation by the
// emptyDir's sizeLimit (parts/workload TestEtcd/Embedded); so the platform's policy does not
// gate it (TenantWithoutAFeature).
func TestDevelopment(t *testing.T) {
	cases := map[string]struct {
		reason   string
		inst     func() *v1alpha1.KcpInstallation
		world    *testworld.World
		children []string
		errs     []string
	}{
		"RootShardAlone": {
			reason:   "No etcd objects: the root shard stores in kcp's embedded etcd.",
			inst:     devInstallation,
			children: []string{"RootShard/team-a", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"},
		},
		"EmbeddedCacheServer": {
			reason: "A cache server with storage of its own works beside it.",
			inst: func() *v1alpha1.KcpInstallation {
				i := devInstallation()
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Embedded: true}
				return i
			},
			children: []string{"CacheServer/team-a-cache", "RootShard/team-a", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"},
		},
		"OneReplicaAsked": {
			reason: "rootShard.replicas 1 is what runs anyway.",
			inst: func() *v1alpha1.KcpInstallation {
				i := devInstallation()
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Replicas: ptr.To[int32](1)}
				return i
			},
			children: []string{"RootShard/team-a", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"},
		},
		"TenantWithoutAFeature": {
			reason: "A tenant under the platform's policy needs no feature for a development kcp: it costs less than a managed etcd, and its disk is bounded.",
			inst: func() *v1alpha1.KcpInstallation {
				i := tenant()
				i.Spec.Etcd = &v1alpha1.InstallationEtcd{Embedded: true}
				return i
			},
			world:    testworld.New().Answer(policyAnswered).Object(policyObject(map[string]any{"kind": "ClusterIssuer", "name": "selfsigned", "namespaces": []any{"*"}})),
			children: []string{"RootShard/team-a", "FrontProxy/team-a-public", "Kubeconfig/team-a-admin"},
		},
		"Shards": {
			reason: "A shard shares the root shard's data through an etcd; there is none.",
			inst: func() *v1alpha1.KcpInstallation {
				i := devInstallation()
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
				return i
			},
			errs: []string{"spec.shards: Forbidden: a development installation (spec.etcd.embedded) runs one root shard alone: remove the shards; or store kcp's data in an etcd cluster"},
		},
		"SecondRootShardReplica": {
			reason: "A second pod would be a second kcp with an empty etcd behind the same Service.",
			inst: func() *v1alpha1.KcpInstallation {
				i := devInstallation()
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Replicas: ptr.To[int32](2)}
				return i
			},
			errs: []string{"spec.rootShard.replicas: Invalid value: 2: kcp's embedded etcd lives in the root shard's pod"},
		},
		"CacheServerWithoutStorage": {
			reason: "By default a cache server stores in the installation's etcd; there is none.",
			inst: func() *v1alpha1.KcpInstallation {
				i := devInstallation()
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
				return i
			},
			errs: []string{"spec.cacheServer.embedded: Required value: a development installation has no etcd for the cache server to store in"},
		},
		"ManagedEtcdRunning": {
			reason: "An installation running its managed etcd turned into a development one would delete the etcd and kcp's data: refused, nothing composed, so nothing is deleted.",
			inst:   devInstallation,
			world:  testworld.New().Put(keyEtcd, map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "team-a-etcd", "namespace": "tenant"}}),
			errs:   []string{"spec.etcd.embedded: Forbidden: this installation stores kcp's data in its managed etcd (StatefulSet team-a-etcd): a development installation would delete it"},
		},
		"EveryLimitAtOnce": {
			reason: "Each field that cannot work is named, in one answer.",
			inst: func() *v1alpha1.KcpInstallation {
				i := devInstallation()
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Replicas: ptr.To[int32](3)}
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
				return i
			},
			errs: []string{"spec.shards: Forbidden", "spec.rootShard.replicas: Invalid value: 3", "spec.cacheServer.embedded: Required value"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := tc.world
			if w == nil {
				w = testworld.New()
			}
			r, errs := Compose(tc.inst(), w.State(), frontProxyNameLength)
			if len(errs) != len(tc.errs) {
				t.Fatalf("%s\nCompose(...): got errors %v, want %d", tc.reason, errs, len(tc.errs))
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.errs[i]) {
					t.Errorf("%s\nCompose(...): error %d\n got: %s\nwant: %s...", tc.reason, i, e, tc.errs[i])
				}
			}
			if len(tc.errs) > 0 {
				if n := len(r.Desired.Objects()); n > 0 {
					t.Errorf("%s\nCompose(...): refused but desired %d objects", tc.reason, n)
				}
				return
			}
			if diff := cmp.Diff(tc.children, desiredKinds(r)); diff != "" {
				t.Errorf("%s\ndesired objects: -want, +got:\n%s", tc.reason, diff)
			}
			rs := childSpec[v1alpha1.RootShardSpec](t, r, "team-a")
			if !rs.Etcd.Embedded() || rs.Etcd.TLSConfig != nil {
				t.Errorf("%s\nthe RootShard's spec.etcd = %+v, want kcp's embedded etcd", tc.reason, rs.Etcd)
			}
		})
	}
}

// desiredKinds lists what r desires as kind/name, in order.
func desiredKinds(r result.Result[v1alpha1.KcpInstallationStatus]) []string {
	var out []string
	for _, o := range r.Desired.Objects() {
		if u, err := desired.ToComposed(o.Resource); err == nil {
			out = append(out, u.GetKind()+"/"+u.GetName())
		}
	}
	return out
}
