package kcpinstallation

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
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
