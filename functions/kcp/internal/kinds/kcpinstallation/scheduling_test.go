package kcpinstallation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestScheduling: spec.scheduling reaches every component, and a component's own scheduling
// overrides it field by field: on the per-kind XRs through their deploymentTemplate, on the
// managed etcd through its StatefulSet.
func TestScheduling(t *testing.T) {
	system := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "kcp", Effect: corev1.TaintEffectNoSchedule}}
	pool := map[string]string{"pool": "kcp"}
	edge := map[string]string{"pool": "edge"}
	pod := func(nodeSelector map[string]string, tolerations []corev1.Toleration, priority string) *v1alpha1.DeploymentTemplate {
		return &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{Spec: &v1alpha1.PodSpecTemplate{
			NodeSelector: nodeSelector, Tolerations: tolerations, PriorityClassName: priority,
		}}}}
	}
	cases := map[string]struct {
		reason   string
		mod      func(*v1alpha1.KcpInstallation)
		want     map[string]*v1alpha1.DeploymentTemplate // by child name
		wantEtcd *v1alpha1.Scheduling
	}{
		"None": {
			reason: "Without scheduling no child has a deployment template: each keeps its default spread.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{} },
			want:   map[string]*v1alpha1.DeploymentTemplate{"team-a": nil, "team-a-alpha": nil, "team-a-public": nil, "team-a-cache": nil},
		},
		"InstallationWide": {
			reason: "spec.scheduling reaches the root shard, every shard, every front-proxy, the cache server and the etcd members.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
				i.Spec.Scheduling = &v1alpha1.Scheduling{NodeSelector: pool, Tolerations: system}
			},
			want: map[string]*v1alpha1.DeploymentTemplate{
				"team-a": pod(pool, system, ""), "team-a-alpha": pod(pool, system, ""), "team-a-public": pod(pool, system, ""), "team-a-cache": pod(pool, system, ""),
			},
			wantEtcd: &v1alpha1.Scheduling{NodeSelector: pool, Tolerations: system},
		},
		"ComponentOverridesFieldByField": {
			reason: "A component's fields win, an empty list included; those it leaves unset come from spec.scheduling.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Scheduling: &v1alpha1.Scheduling{PriorityClassName: "kcp-cache"}}
				i.Spec.Scheduling = &v1alpha1.Scheduling{NodeSelector: pool, Tolerations: system}
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Scheduling: &v1alpha1.Scheduling{PriorityClassName: "kcp-critical"}}
				i.Spec.Shards[0].Scheduling = &v1alpha1.Scheduling{Tolerations: []corev1.Toleration{}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Scheduling: &v1alpha1.Scheduling{NodeSelector: edge}}}
				i.Spec.Etcd.Managed = &v1alpha1.ManagedEtcd{Scheduling: &v1alpha1.Scheduling{PriorityClassName: "kcp-storage"}}
			},
			want: map[string]*v1alpha1.DeploymentTemplate{
				"team-a":        pod(pool, system, "kcp-critical"),
				"team-a-alpha":  pod(pool, nil, ""), // [] replaced the installation's tolerations: none.
				"team-a-public": pod(edge, system, ""),
				"team-a-cache":  pod(pool, system, "kcp-cache"),
			},
			wantEtcd: &v1alpha1.Scheduling{NodeSelector: pool, Tolerations: system, PriorityClassName: "kcp-storage"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := smallest()
			inst.Spec.Etcd = &v1alpha1.InstallationEtcd{}
			inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
			tc.mod(inst)
			r := composeOK(t, inst)
			got := map[string]*v1alpha1.DeploymentTemplate{}
			for n := range tc.want {
				got[n] = childSpec[struct {
					DeploymentTemplate *v1alpha1.DeploymentTemplate `json:"deploymentTemplate"`
				}](t, r, n).DeploymentTemplate
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ndeploymentTemplate per child: -want, +got:\n%s", tc.reason, diff)
			}
			_, etcd := etcdStore(inst)
			if diff := cmp.Diff(tc.wantEtcd, etcd.Scheduling); diff != "" {
				t.Errorf("%s\nmanaged etcd's scheduling: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRootShardProxy: the root shard's internal proxy runs with the installation's image and
// the root shard's scheduling; without either its spec stays empty, as before.
func TestRootShardProxy(t *testing.T) {
	image := &v1alpha1.ImageSpec{Repository: "registry.example.com/kcp", Tag: "v0.32.3"}
	tolerations := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.KcpInstallation)
		want   *v1alpha1.RootShardProxySpec
	}{
		"Neither": {
			reason: "Without an image or scheduling the proxy keeps kcp-operator's defaults.",
			mod:    func(*v1alpha1.KcpInstallation) {},
		},
		"Image": {
			reason: "spec.image is the image of every component, the proxy's included.",
			mod:    func(i *v1alpha1.KcpInstallation) { i.Spec.Image = image },
			want:   &v1alpha1.RootShardProxySpec{Image: image},
		},
		"Scheduling": {
			reason: "The proxy lands where the root shard does.",
			mod: func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Scheduling: &v1alpha1.Scheduling{Tolerations: tolerations}}
			},
			want: &v1alpha1.RootShardProxySpec{DeploymentTemplate: (&v1alpha1.Scheduling{Tolerations: tolerations}).DeploymentTemplate()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			tc.mod(inst)
			got := childSpec[v1alpha1.RootShardSpec](t, composeOK(t, inst), "team-a").Proxy
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nthe RootShard's spec.proxy: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
