package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// kindFlags stands in for fn.go's kinds: each kind's renderer writes --etcd-servers and a
// flag of its own, so a case shows that each component is judged by its own kind.
var kindFlags = Kinds{
	RootShard:        Kind[*v1alpha1.RootShard]{Flags: writes[*v1alpha1.RootShard]("root-directory")},
	Shard:            Kind[*v1alpha1.Shard]{Flags: writes[*v1alpha1.Shard]("shard-name")},
	FrontProxy:       Kind[*v1alpha1.FrontProxy]{Flags: writes[*v1alpha1.FrontProxy]("mapping-file")},
	CacheServer:      Kind[*v1alpha1.CacheServer]{Flags: writes[*v1alpha1.CacheServer]("embedded-etcd-directory")},
	VirtualWorkspace: Kind[*v1alpha1.VirtualWorkspace]{Flags: writes[*v1alpha1.VirtualWorkspace]("bind-address")},
}

// writes is a kind's flag list: --etcd-servers and its own flag, for a child that was built.
func writes[PX comparable](own string) func(PX) []string {
	return func(xr PX) []string {
		var none PX
		if xr == none {
			return nil // the child was not typed: the test sees no flags, and fails
		}
		return []string{"etcd-servers", own}
	}
}

func extra(x v1alpha1.ComponentExtra) *v1alpha1.ComponentExtra { return &x }

// typeDropped is what is left of a volume of a type an installation's schema does not offer
// (hostPath) once the API server, or decoding, dropped the type: its name.
func typeDropped(name string) v1alpha1.InstallationVolume {
	return v1alpha1.InstallationVolume{Name: name}
}

func TestExtras(t *testing.T) {
	cases := map[string]struct {
		reason string
		inst   *v1alpha1.KcpInstallation
		want   []string // substrings, one per error, in order
	}{
		"NewFlagsAndAdmittedVolumes": {
			reason: "Flags the package does not generate, and the volume types restricted admits, are the tenant's.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: extra(v1alpha1.ComponentExtra{
					Args:    []string{"--feature-gates=WorkspaceMounts=true"},
					Volumes: []v1alpha1.InstallationVolume{{Name: "corp-ca", InstallationVolumeSource: v1alpha1.InstallationVolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "corp-ca"}}}}},
				})}
			}),
		},
		"RootShardOntoThePlatformsEtcd": {
			reason: "A second --etcd-servers would move the root shard onto an etcd the platform did not give it.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: extra(v1alpha1.ComponentExtra{Args: []string{"-v=2", "--etcd-servers=https://etcd.kube-system:2379"}})}
			}),
			want: []string{"spec.rootShard.extra.args[1]: Forbidden: --etcd-servers is generated for this component, and given again it would replace the generated value (a flag given twice takes the last value); remove it: what it sets comes from this installation's own fields"},
		},
		"EachComponentByItsOwnKind": {
			reason: "Each component's arguments are judged by the flags of its own kind, at its own field.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{
					Extra:            extra(v1alpha1.ComponentExtra{Args: []string{"--root-directory=/tmp", "--shard-name=x"}}),
					VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{External: v1alpha1.InstallationExternal{Hostname: "vw.example.com"}, Extra: extra(v1alpha1.ComponentExtra{Args: []string{"--bind-address=0.0.0.0"}})},
				}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", Extra: extra(v1alpha1.ComponentExtra{Args: []string{"--shard_name=root"}})}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Extra: extra(v1alpha1.ComponentExtra{Args: []string{"--mapping-file", "/tmp/m"}})}}
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Extra: extra(v1alpha1.ComponentExtra{Args: []string{"--embedded-etcd-directory=/tmp"}})}
			}),
			want: []string{
				"spec.cacheServer.extra.args[0]: Forbidden: --embedded-etcd-directory",
				"spec.rootShard.virtualWorkspace.extra.args[0]: Forbidden: --bind-address",
				"spec.rootShard.extra.args[0]: Forbidden: --root-directory",
				"spec.shards[0].extra.args[0]: Forbidden: --shard-name",
				"spec.frontProxies[0].extra.args[0]: Forbidden: --mapping-file",
			},
		},
		"TypeDroppedOnEveryComponent": {
			reason: "A volume of a type the schema does not offer (hostPath) reaches the function without a type: refused wherever a tenant adds it, naming the component's volume, not turned into an emptyDir.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				vols := extra(v1alpha1.ComponentExtra{Volumes: []v1alpha1.InstallationVolume{typeDropped("node")}})
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: vols}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", Extra: vols, VirtualWorkspace: &v1alpha1.InstallationVirtualWorkspace{External: v1alpha1.InstallationExternal{Hostname: "vw.example.com"}, Extra: vols}}}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Extra: vols}}
				i.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Extra: vols}
			}),
			want: []string{
				`spec.cacheServer.extra.volumes[0]: Required value: volume "node" sets no type an installation may mount`,
				`spec.rootShard.extra.volumes[0]: Required value: volume "node" sets no type`,
				`spec.shards[0].virtualWorkspace.extra.volumes[0]: Required value: volume "node" sets no type`,
				`spec.shards[0].extra.volumes[0]: Required value: volume "node" sets no type`,
				`spec.frontProxies[0].extra.volumes[0]: Required value: volume "node" sets no type`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			world := testworld.New().Answer(policyAnswered)
			r, errs := Compose(tc.inst, world.State(), kindFlags)
			got := make([]string, 0, len(errs))
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nCompose(...): got errors %q, want %d matching %q", tc.reason, got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("%s\nCompose(...): error %d\n got: %s\nwant: ...%s...", tc.reason, i, got[i], tc.want[i])
				}
			}
			if len(errs) > 0 && (len(r.Desired.Objects()) > 0 || len(r.Requirements) > 0) {
				t.Errorf("%s\nCompose(...): refused, yet desired %d objects and %d requirements", tc.reason, len(r.Desired.Objects()), len(r.Requirements))
			}
		})
	}
}

// TestExtrasReachTheirPods: a component's podLabels, podAnnotations, hostAliases and
// securityContext reach its own Deployment template, over the installation's scheduling, and
// no other component's: the root shard's stay off its internal proxy, which shares its
// scheduling.
func TestExtrasReachTheirPods(t *testing.T) {
	pod := extra(v1alpha1.ComponentExtra{
		PodLabels:       map[string]string{"team": "a"},
		PodAnnotations:  map[string]string{"example.com/scrape": "false"},
		HostAliases:     []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"ldap.corp.example.com"}}},
		SecurityContext: &v1alpha1.PodSecurity{RunAsUser: ptr.To[int64](1000), FSGroup: ptr.To[int64](2000)},
	})
	zoneA := map[string]string{"zone": "a"}
	type deployment struct {
		DeploymentTemplate *v1alpha1.DeploymentTemplate
		Proxy              *v1alpha1.RootShardProxySpec
	}
	withPod := &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
		Metadata: &v1alpha1.PodMetadataTemplate{Labels: pod.PodLabels, Annotations: pod.PodAnnotations},
		Spec:     &v1alpha1.PodSpecTemplate{NodeSelector: zoneA, HostAliases: pod.HostAliases, SecurityContext: pod.SecurityContext},
	}}}
	scheduledOnly := &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
		Spec: &v1alpha1.PodSpecTemplate{NodeSelector: zoneA},
	}}}
	inst := external()
	inst.Spec.Scheduling = &v1alpha1.Scheduling{NodeSelector: zoneA}
	inst.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: pod}
	inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", Extra: pod}, {Name: "beta"}}
	inst.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Extra: pod}}
	inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Extra: pod}
	r := composeOK(t, inst)
	want := map[string]deployment{
		"team-a":        {DeploymentTemplate: withPod, Proxy: &v1alpha1.RootShardProxySpec{DeploymentTemplate: scheduledOnly}},
		"team-a-alpha":  {DeploymentTemplate: withPod},
		"team-a-beta":   {DeploymentTemplate: scheduledOnly},
		"team-a-public": {DeploymentTemplate: withPod},
		"team-a-cache":  {DeploymentTemplate: withPod},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, childSpec[deployment](t, r, name)); diff != "" {
			t.Errorf("child %s: -want, +got:\n%s", name, diff)
		}
	}
}

// TestPodUserAndGroups: a tenant who asks for its pods to run as root's user or group hears
// which field to change before anything is composed; another non-root user passes (the
// policy side, that a tenant needs no feature for it: TestSafety/PodUserOfItsOwn).
//
// extra.securityContext, for a tenant: anyone who may write the KcpInstallation or its claim
// (edit in the namespace) sets it, with no feature; the schema admits IDs of 1 to 2^31-1 and
// 16 supplemental groups, under 1 KB in the XR, read by no shared object (the Tenant reads
// TenantRequests, never an installation). It widens no certificate or identity: it is not a
// name, issuer, subject or usage, and kcp never sees it. Its cost falls on nothing shared: the
// IDs reach only the team's own pods, whose volumes are the types Pod Security "restricted"
// admits from the team's namespace (no node path, no network share), and runAsNonRoot,
// seccomp and the containers' contexts stay fixed, so no ID reaches root's files or another
// team's. The platform's policy does not decide it, because nothing it could grant is at stake.
func TestPodUserAndGroups(t *testing.T) {
	cases := map[string]struct {
		reason string
		root   *v1alpha1.PodSecurity
		cache  *v1alpha1.PodSecurity
		want   []string
	}{
		"Root": {
			reason: "Root's user and group are refused at each field; the pods could not run as root anyway (runAsNonRoot stays).",
			root:   &v1alpha1.PodSecurity{RunAsUser: ptr.To[int64](0)},
			cache:  &v1alpha1.PodSecurity{RunAsGroup: ptr.To[int64](0), SupplementalGroups: []int64{0}},
			want: []string{
				"spec.cacheServer.extra.securityContext.runAsGroup: Invalid value: 0: must be between 1 and 2147483647",
				"spec.cacheServer.extra.securityContext.supplementalGroups[0]: Invalid value: 0: must be between 1 and 2147483647",
				"spec.rootShard.extra.securityContext.runAsUser: Invalid value: 0: must be between 1 and 2147483647",
			},
		},
		"NonRoot": {
			reason: "Any other user and groups pass.",
			root:   &v1alpha1.PodSecurity{RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](1000), SupplementalGroups: []int64{2000}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.RootShard = &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{SecurityContext: tc.root}}
			inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{Extra: &v1alpha1.ComponentExtra{SecurityContext: tc.cache}}
			errs := Validate(inst)
			if len(errs) != len(tc.want) {
				t.Fatalf("%s\nValidate(): got %v, want %d errors starting %q", tc.reason, errs, len(tc.want), tc.want)
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Errorf("%s\nValidate()[%d]:\n got: %s\nwant: %s...", tc.reason, i, e.Error(), tc.want[i])
				}
			}
		})
	}
}
