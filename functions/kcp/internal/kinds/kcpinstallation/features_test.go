package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
)

// TestFeatures: home workspaces and batteries are the installation's and reach the root
// shard and every shard alike (a user's ~ must resolve on whichever shard it lands);
// profiling reaches every kcp component, and a component's own replaces it.
func TestFeatures(t *testing.T) {
	home := &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"developers"}}
	none := &[]v1alpha1.Battery{}
	on := &v1alpha1.Profiling{Enabled: true}
	off := &v1alpha1.Profiling{}
	own := &v1alpha1.Profiling{Enabled: true, Port: 7070}

	type got struct {
		HomeWorkspaces *v1alpha1.HomeWorkspaces `json:"homeWorkspaces"`
		Batteries      *[]v1alpha1.Battery      `json:"batteries"`
		Profiling      *v1alpha1.Profiling      `json:"profiling"`
	}
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   map[string]got // by child name
	}{
		"None": {
			reason: "Without the fields no child gets any: kcp's and kcp-operator's defaults.",
			mod:    func(*v1alpha1.KcpInstallation) {},
			want:   map[string]got{"team-a": {}, "team-a-alpha": {}, "team-a-public": {}, "team-a-vw": {}, "team-a-cache": {}},
		},
		"InstallationWide": {
			reason: "Home workspaces and batteries reach the shards; profiling every kcp component but the cache server, which has no profiler. An empty list of batteries survives the trip.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.HomeWorkspaces, i.Spec.Batteries, i.Spec.Profiling = home, none, on
			},
			want: map[string]got{
				"team-a":        {HomeWorkspaces: home, Batteries: none, Profiling: on},
				"team-a-alpha":  {HomeWorkspaces: home, Batteries: none, Profiling: on},
				"team-a-public": {Profiling: on},
				"team-a-vw":     {Profiling: on},
				"team-a-cache":  {},
			},
		},
		"PerComponent": {
			reason: "A component's own profiling replaces the installation's, off included; the others keep the installation's.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.Profiling = on
				i.Spec.RootShard.Profiling = off
				i.Spec.RootShard.VirtualWorkspace.Profiling = own
			},
			want: map[string]got{
				"team-a":        {Profiling: off},
				"team-a-alpha":  {Profiling: on},
				"team-a-public": {Profiling: on},
				"team-a-vw":     {Profiling: own},
				"team-a-cache":  {},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
			inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
			inst.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public"}}
			inst.Spec.RootShard = &v1alpha1.InstallationRootShard{VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{
				External: v1alpha1.InstallationExternal{Hostname: "vw.example.com"},
			}}
			tc.mod(inst)
			r := composeOK(t, inst)
			gots := map[string]got{}
			for n := range tc.want {
				gots[n] = childSpec[got](t, r, n)
			}
			if diff := cmp.Diff(tc.want, gots); diff != "" {
				t.Errorf("%s\nchild specs: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEtcdProfiling: managed etcd's profiling is the installation's unless its cluster sets
// its own, has no port of its own to choose, and counts as profiling for the platform's policy.
func TestEtcdProfiling(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   []string
	}{
		"Valid": {
			reason: "Profiling without a port on the installation's cluster and a shard's.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{Profiling: &v1alpha1.Profiling{Enabled: true}}}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "beta", ManagedEtcd: &v1alpha1.ManagedEtcd{Profiling: &v1alpha1.Profiling{}}}}
			},
		},
		"Port": {
			reason: "etcd serves profiles on its client port: a port of their own would say otherwise.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "beta", ManagedEtcd: &v1alpha1.ManagedEtcd{Profiling: &v1alpha1.Profiling{Enabled: true, Port: 7070}}}}
			},
			want: []string{"spec.shards[0].managedEtcd.profiling.port: Forbidden: etcd serves its profiles on its client port"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := smallest()
			tc.mod(inst)
			var got []string
			for _, e := range Validate(inst) {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nValidate(): got %q, want %d errors starting %q", tc.reason, got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("%s\nValidate()[%d]:\n got: %s\nwant: %s...", tc.reason, i, got[i], tc.want[i])
				}
			}
		})
	}

	t.Run("Policy", func(t *testing.T) {
		inst := tenant(func(i *v1alpha1.KcpInstallation) {
			i.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{Profiling: &v1alpha1.Profiling{Enabled: true}}}
		})
		errs := checkFeatures(inst, policy.Policy{})
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "spec.etcd.managed.profiling: Forbidden: profiling is not allowed") {
			t.Errorf("checkFeatures(): got %v, want spec.etcd.managed.profiling refused: a heap profile of etcd holds every key of kcp", errs)
		}
	})
}
