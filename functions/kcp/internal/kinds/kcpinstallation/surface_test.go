package kcpinstallation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestServerSettings: authentication, audit, authorization and the object limit are the
// installation's and reach the root shard and every shard alike (kcp needs them to agree); a component's extra
// arguments, volumes and logging, and a front-proxy's resources, reach that component only.
func TestServerSettings(t *testing.T) {
	auth := &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}, OIDC: &v1alpha1.OIDCConfiguration{IssuerURL: "https://sso.example.com", ClientID: "kcp"}}
	audit := &v1alpha1.AuditSpec{Webhook: &v1alpha1.AuditWebhookSpec{ConfigSecretName: "audit-webhook"}}
	authz := &v1alpha1.AuthorizationSpec{Webhook: &v1alpha1.AuthorizationWebhookSpec{ConfigSecretName: "authz-webhook"}}
	// With Kubernetes v1.37's fields (the files' owner, the mount narrowed): the tenant's
	// choices for its own component, carried as written to that component only.
	owner := int64(65532)
	vol := corev1.Volume{Name: "policies", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "policies"}, DefaultUser: &owner}}}
	mount := corev1.VolumeMount{Name: "policies", MountPath: "/etc/policies", BindMountOptions: []string{string(corev1.BindMountOptionNoExec)}}
	small := &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	limit := &v1alpha1.ObjectLimit{Total: 10000}

	type got struct {
		Auth              *v1alpha1.AuthSpec           `json:"auth"`
		Audit             *v1alpha1.AuditSpec          `json:"audit"`
		Authorization     *v1alpha1.AuthorizationSpec  `json:"authorization"`
		ObjectLimit       *v1alpha1.ObjectLimit        `json:"objectLimit"`
		ExtraArgs         []string                     `json:"extraArgs"`
		ExtraVolumes      []corev1.Volume              `json:"extraVolumes"`
		ExtraVolumeMounts []corev1.VolumeMount         `json:"extraVolumeMounts"`
		Logging           *v1alpha1.LoggingSpec        `json:"logging"`
		Resources         *corev1.ResourceRequirements `json:"resources"`
	}
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   map[string]got // by child name
	}{
		"None": {
			reason: "Without settings no child gets any.",
			mod:    func(*v1alpha1.KcpInstallation) {},
			want:   map[string]got{"team-a": {}, "team-a-alpha": {}, "team-a-public": {}, "team-a-cache": {}},
		},
		"InstallationWide": {
			reason: "auth, audit, authorization and the object limit reach the root shard and every shard, not the front-proxy or the cache server.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.Auth, i.Spec.Audit, i.Spec.Authorization, i.Spec.ObjectLimit = auth, audit, authz, limit
			},
			want: map[string]got{
				"team-a":        {Auth: auth, Audit: audit, Authorization: authz, ObjectLimit: limit},
				"team-a-alpha":  {Auth: auth, Audit: audit, Authorization: authz, ObjectLimit: limit},
				"team-a-public": {},
				"team-a-cache":  {},
			},
		},
		"PerComponent": {
			reason: "Each component's extra and a front-proxy's resources reach that component alone.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{Args: []string{"--v=4"}}}
				i.Spec.Shards[0].Extra = &v1alpha1.ComponentExtra{Volumes: []v1alpha1.InstallationVolume{{Name: vol.Name, InstallationVolumeSource: v1alpha1.InstallationVolumeSource{ConfigMap: vol.ConfigMap}}}, VolumeMounts: []corev1.VolumeMount{mount}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Resources: small, Extra: &v1alpha1.ComponentExtra{Logging: &v1alpha1.LoggingSpec{Level: 4}}}}
				i.Spec.CacheServer.Extra = &v1alpha1.ComponentExtra{Args: []string{"--v=2"}}
			},
			want: map[string]got{
				"team-a":        {ExtraArgs: []string{"--v=4"}},
				"team-a-alpha":  {ExtraVolumes: []corev1.Volume{vol}, ExtraVolumeMounts: []corev1.VolumeMount{mount}},
				"team-a-public": {Resources: small, Logging: &v1alpha1.LoggingSpec{Level: 4}},
				"team-a-cache":  {ExtraArgs: []string{"--v=2"}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
			inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
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

// TestVirtualWorkspaces: a component's virtualWorkspace composes a VirtualWorkspace that
// targets it, and the component names that VirtualWorkspace, so it runs no virtual
// workspaces itself and advertises the VirtualWorkspace's address.
func TestVirtualWorkspaces(t *testing.T) {
	vwExternal := v1alpha1.InstallationExternal{Hostname: "vw.example.com"}
	three := int32(3)
	inst := external()
	inst.Spec.RootShard = &v1alpha1.InstallationRootShard{VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{External: vwExternal, Replicas: &three}}
	inst.Spec.Shards = []v1alpha1.InstallationShard{
		{Name: "alpha", VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{External: v1alpha1.InstallationExternal{Hostname: "vw-alpha.example.com", Port: 443}}},
		{Name: "beta"},
	}
	r := composeOK(t, inst)

	type vwGot struct {
		Target   v1alpha1.VirtualWorkspaceTarget `json:"target"`
		External v1alpha1.ExternalConfig         `json:"external"`
		Replicas *int32                          `json:"replicas"`
	}
	wantVW := map[string]vwGot{
		"team-a-vw":       {Target: v1alpha1.VirtualWorkspaceTarget{RootShardRef: &corev1.LocalObjectReference{Name: "team-a"}}, External: v1alpha1.ExternalConfig{Hostname: "vw.example.com", Port: 6443}, Replicas: &three},
		"team-a-alpha-vw": {Target: v1alpha1.VirtualWorkspaceTarget{ShardRef: &corev1.LocalObjectReference{Name: "team-a-alpha"}}, External: v1alpha1.ExternalConfig{Hostname: "vw-alpha.example.com", Port: 443}},
	}
	gotVW := map[string]vwGot{}
	for n := range wantVW {
		gotVW[n] = childSpec[vwGot](t, r, n)
	}
	if diff := cmp.Diff(wantVW, gotVW); diff != "" {
		t.Errorf("VirtualWorkspaces target their component at the address given: -want, +got:\n%s", diff)
	}

	type shardGot struct {
		KcpVirtualWorkspace *corev1.LocalObjectReference `json:"kcpVirtualWorkspace"`
	}
	wantRef := map[string]shardGot{
		"team-a":       {KcpVirtualWorkspace: &corev1.LocalObjectReference{Name: "team-a-vw"}},
		"team-a-alpha": {KcpVirtualWorkspace: &corev1.LocalObjectReference{Name: "team-a-alpha-vw"}},
		"team-a-beta":  {},
	}
	gotRef := map[string]shardGot{}
	for n := range wantRef {
		gotRef[n] = childSpec[shardGot](t, r, n)
	}
	if diff := cmp.Diff(wantRef, gotRef); diff != "" {
		t.Errorf("each component names its own VirtualWorkspace, a shard without one none: -want, +got:\n%s", diff)
	}
}
