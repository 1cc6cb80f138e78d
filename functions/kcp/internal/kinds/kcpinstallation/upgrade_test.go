package kcpinstallation

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

const (
	v0323 = "ghcr.io/kcp-dev/kcp:v0.32.3" // the package's default
	v0330 = "ghcr.io/kcp-dev/kcp:v0.33.0"
)

// component is an observed child XR: the tag its spec names ("" for none) and its
// status.image ("" before its first rollout).
type component struct {
	kind, spec, running string
	// failed is the message of an Available condition a failed rollout set.
	failed string
}

// upgradeState observes an installation's children.
func upgradeState(children map[resource.Name]component) *observed.State {
	oc := map[resource.Name]*resource.Unstructured{}
	for key, c := range children {
		u := resource.NewUnstructured()
		u.SetKind(c.kind)
		spec := map[string]any{}
		if c.spec != "" {
			spec["image"] = map[string]any{"tag": c.spec}
		}
		status := map[string]any{}
		if c.running != "" {
			status["image"] = c.running
		}
		if c.failed != "" {
			status["conditions"] = []any{map[string]any{"type": "Available", "status": "False", "message": c.failed}}
		}
		u.Object["spec"], u.Object["status"] = spec, status
		oc[key] = u
	}
	return observed.New(oc)
}

// TestUpgradeOrder: a change of spec.image reaches the root shard first, then the shards,
// and the front-proxies last, each step once the one before has rolled out.
func TestUpgradeOrder(t *testing.T) {
	type want struct {
		upgrade *v1alpha1.InstallationUpgrade
		image   string
		// tags each child XR is composed with ("" for no image in its spec).
		tags map[string]string
		err  string
	}
	cases := map[string]struct {
		reason   string
		tag      string
		policy   *v1alpha1.UpgradePolicy
		children map[resource.Name]component
		want     want
	}{
		"Steady": {
			reason: "Without a change of image nothing is held, and status names the image every child runs.",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", running: v0323},
				"shard-alpha":       {kind: "Shard", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{image: v0323, tags: map[string]string{"team-a": "", "team-a-alpha": "", "team-a-public": ""}},
		},
		"Install": {
			reason: "A new installation starts every component at once: nothing runs that could break.",
			tag:    "v0.33.0",
			want:   want{tags: map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.33.0", "team-a-public": "v0.33.0"}},
		},
		"RootShardFirst": {
			reason: "The root shard rolls out the new kcp; the shards and front-proxies keep the image they run, spelled out.",
			tag:    "v0.33.0",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", running: v0323},
				"shard-alpha":       {kind: "Shard", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: v0330, Step: v1alpha1.UpgradeStepRootShard, WaitingFor: []string{"RootShard team-a: rolling out " + v0330}},
				tags:    map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.32.3", "team-a-public": "v0.32.3"},
			},
		},
		"ShardsNext": {
			reason: "Once the root shard runs the new kcp, the shards follow; the front-proxies still wait.",
			tag:    "v0.33.0",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0330},
				"shard-alpha":       {kind: "Shard", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: v0330, Step: v1alpha1.UpgradeStepShards, WaitingFor: []string{"Shard team-a-alpha: rolling out " + v0330}},
				tags:    map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.33.0", "team-a-public": "v0.32.3"},
			},
		},
		"FrontProxiesLast": {
			reason: "Once every shard runs the new kcp, the front-proxies roll out.",
			tag:    "v0.33.0",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0330},
				"shard-alpha":       {kind: "Shard", spec: "v0.33.0", running: v0330},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: v0330, Step: v1alpha1.UpgradeStepFrontProxies, WaitingFor: []string{"FrontProxy team-a-public: rolling out " + v0330}},
				tags:    map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.33.0", "team-a-public": "v0.33.0"},
			},
		},
		"Done": {
			reason: "When every component runs the new kcp the upgrade is over.",
			tag:    "v0.33.0",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0330},
				"shard-alpha":       {kind: "Shard", spec: "v0.33.0", running: v0330},
				"frontproxy-public": {kind: "FrontProxy", spec: "v0.33.0", running: v0330},
			},
			want: want{image: v0330, tags: map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.33.0", "team-a-public": "v0.33.0"}},
		},
		"RootShardRolloutFailed": {
			reason: "A root shard whose rollout Kubernetes gave up on stops the upgrade: the shards keep what runs, and status says why.",
			tag:    "v0.33.0",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0323, failed: "Deployment tenant/team-a-kcp stopped rolling out: ProgressDeadlineExceeded: ReplicaSet has timed out progressing."},
				"shard-alpha":       {kind: "Shard", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: v0330, Step: v1alpha1.UpgradeStepRootShard, WaitingFor: []string{"RootShard team-a: Available: Deployment tenant/team-a-kcp stopped rolling out: ProgressDeadlineExceeded: ReplicaSet has timed out progressing."}},
				tags:    map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.32.3", "team-a-public": "v0.32.3"},
			},
		},
		"DefaultMovedOn": {
			reason: "A package upgrade that moves the default kcp is an upgrade too: the shards are held on the image they run, which their specs never named.",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", running: "ghcr.io/kcp-dev/kcp:v0.31.6"},
				"shard-alpha":       {kind: "Shard", running: "ghcr.io/kcp-dev/kcp:v0.31.6"},
				"frontproxy-public": {kind: "FrontProxy", running: "ghcr.io/kcp-dev/kcp:v0.31.6"},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: "ghcr.io/kcp-dev/kcp:v0.31.6", To: v0323, Step: v1alpha1.UpgradeStepRootShard, WaitingFor: []string{"RootShard team-a: rolling out " + v0323}},
				tags:    map[string]string{"team-a": "", "team-a-alpha": "v0.31.6", "team-a-public": "v0.31.6"},
			},
		},
		"NewShardDuringUpgrade": {
			reason: "A shard added while the root shard upgrades starts on the new kcp: it runs nothing yet.",
			tag:    "v0.33.0",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: v0330, Step: v1alpha1.UpgradeStepRootShard, WaitingFor: []string{"RootShard team-a: rolling out " + v0330}},
				tags:    map[string]string{"team-a": "v0.33.0", "team-a-alpha": "v0.33.0", "team-a-public": "v0.32.3"},
			},
		},
		"Downgrade": {
			reason: "An older kcp than the one that runs is refused, naming the field that allows it.",
			tag:    "v0.31.0",
			children: map[resource.Name]component{
				"rootshard": {kind: "RootShard", running: v0323},
			},
			want: want{err: "spec.image.tag: Forbidden: v0.31.0 is older than v0.32.3, which runs: kcp migrates its stored data forward only, so a downgrade can break it; set spec.upgrade.allowDowngrade: true to downgrade anyway"},
		},
		"BackFromAStalledRollout": {
			reason: "Going back from a rollout that stalled is a downgrade too: the newer kcp may have started and migrated data before it failed.",
			tag:    "v0.32.3",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0323},
				"shard-alpha":       {kind: "Shard", spec: "v0.32.3", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", spec: "v0.32.3", running: v0323},
			},
			want: want{err: "spec.image.tag: Forbidden: v0.32.3 is older than v0.33.0, which runs: kcp migrates its stored data forward only, so a downgrade can break it; set spec.upgrade.allowDowngrade: true to downgrade anyway"},
		},
		"ForwardFromAStalledRollout": {
			reason: "A fixed build of the version that stalled carries the upgrade on.",
			tag:    "v0.33.1",
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", spec: "v0.33.0", running: v0323},
				"shard-alpha":       {kind: "Shard", spec: "v0.32.3", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", spec: "v0.32.3", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: "ghcr.io/kcp-dev/kcp:v0.33.1", Step: v1alpha1.UpgradeStepRootShard, WaitingFor: []string{"RootShard team-a: rolling out ghcr.io/kcp-dev/kcp:v0.33.1"}},
				tags:    map[string]string{"team-a": "v0.33.1", "team-a-alpha": "v0.32.3", "team-a-public": "v0.32.3"},
			},
		},
		"DowngradeAllowed": {
			reason: "A downgrade the user allows rolls out in the same order.",
			tag:    "v0.31.0",
			policy: &v1alpha1.UpgradePolicy{AllowDowngrade: true},
			children: map[resource.Name]component{
				"rootshard":         {kind: "RootShard", running: v0323},
				"shard-alpha":       {kind: "Shard", running: v0323},
				"frontproxy-public": {kind: "FrontProxy", running: v0323},
			},
			want: want{
				upgrade: &v1alpha1.InstallationUpgrade{From: v0323, To: "ghcr.io/kcp-dev/kcp:v0.31.0", Step: v1alpha1.UpgradeStepRootShard, WaitingFor: []string{"RootShard team-a: rolling out " + "ghcr.io/kcp-dev/kcp:v0.31.0"}},
				tags:    map[string]string{"team-a": "v0.31.0", "team-a-alpha": "v0.32.3", "team-a-public": "v0.32.3"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha"}}
			inst.Spec.Upgrade = tc.policy
			if tc.tag != "" {
				inst.Spec.Image = &v1alpha1.ImageSpec{Tag: tc.tag}
			}
			r, errs := Compose(inst, upgradeState(tc.children), frontProxyNameLength)
			if tc.want.err != "" || len(errs) > 0 {
				got := ""
				if len(errs) > 0 {
					got = errs.ToAggregate().Error()
				}
				if diff := cmp.Diff(tc.want.err, got); diff != "" {
					t.Errorf("%s\nCompose(...) error: -want, +got:\n%s", tc.reason, diff)
				}
				return
			}
			if diff := cmp.Diff(tc.want.upgrade, r.Status.Upgrade); diff != "" {
				t.Errorf("%s\nstatus.upgrade: -want, +got:\n%s", tc.reason, diff)
			}
			if r.Status.Image != tc.want.image {
				t.Errorf("%s\nstatus.image = %q, want %q", tc.reason, r.Status.Image, tc.want.image)
			}
			got := map[string]string{}
			got["team-a"] = tagOf(childSpec[v1alpha1.RootShardSpec](t, r, "team-a").Image)
			got["team-a-alpha"] = tagOf(childSpec[v1alpha1.ShardSpec](t, r, "team-a-alpha").Image)
			got["team-a-public"] = tagOf(childSpec[v1alpha1.FrontProxySpec](t, r, "team-a-public").Image)
			if diff := cmp.Diff(tc.want.tags, got); diff != "" {
				t.Errorf("%s\nimage tags of the children: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func tagOf(img *v1alpha1.ImageSpec) string {
	if img == nil {
		return ""
	}
	return img.Tag
}

// TestEveryKcpServerHeld: every child that runs kcp (the cache server, virtual workspace
// servers and the root shard's proxy too, not only the kinds TestUpgradeOrder follows) has
// an upgrade step, is composed with spec.image, and is held on the image it runs while an
// earlier step rolls out.
func TestEveryKcpServerHeld(t *testing.T) {
	vw := func(host string) *v1alpha1.InstallationVirtualWorkspace {
		return &v1alpha1.InstallationVirtualWorkspace{External: v1alpha1.InstallationExternal{Hostname: host}}
	}
	inst := external()
	inst.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"}
	inst.Spec.CacheServer = &v1alpha1.InstallationCacheServer{}
	inst.Spec.RootShard = &v1alpha1.InstallationRootShard{VirtualWorkspace: vw("vw.example.com")}
	inst.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", VirtualWorkspace: vw("vw-alpha.example.com")}}
	cases := map[string]struct {
		reason  string
		running string
		// want is the image tag of each child XR's spec (and of the root shard's proxy).
		want map[string]string
	}{
		"Install": {
			reason: "Nothing runs yet: every kcp server starts spec.image.",
			want: map[string]string{
				"CacheServer/team-a-cache": "v0.33.0", "VirtualWorkspace/team-a-vw": "v0.33.0", "RootShard/team-a": "v0.33.0", "RootShard/team-a proxy": "v0.33.0",
				"VirtualWorkspace/team-a-alpha-vw": "v0.33.0", "Shard/team-a-alpha": "v0.33.0", "FrontProxy/team-a-public": "v0.33.0",
			},
		},
		"RootShardFirst": {
			reason:  "The root shard and its proxy roll out first; every other kcp server keeps what it runs.",
			running: v0323,
			want: map[string]string{
				"CacheServer/team-a-cache": "v0.32.3", "VirtualWorkspace/team-a-vw": "v0.32.3", "RootShard/team-a": "v0.33.0", "RootShard/team-a proxy": "v0.33.0",
				"VirtualWorkspace/team-a-alpha-vw": "v0.32.3", "Shard/team-a-alpha": "v0.32.3", "FrontProxy/team-a-public": "v0.32.3",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := newPlan(inst, frontProxyNameLength)
			if len(p.errs) > 0 {
				t.Fatal(p.errs.ToAggregate())
			}
			children := p.children
			observed := map[resource.Name]component{}
			for _, c := range children {
				if _, ok := c.xr.(v1alpha1.KcpServer); !ok {
					continue
				}
				if !slices.ContainsFunc(upgradeSteps, func(s upgradeStep) bool { return slices.Contains(s.kinds, c.kind) }) {
					t.Errorf("%s runs kcp and has no upgrade step: add it to upgradeSteps", c.kind)
				}
				if tc.running != "" {
					observed[c.key] = component{kind: c.kind, running: tc.running}
				}
			}
			r, errs := Compose(inst, upgradeState(observed), frontProxyNameLength)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			got := map[string]string{}
			for _, o := range r.Desired.Objects() {
				u, ok := o.Resource.(*resource.Unstructured)
				if !ok || u.GroupVersionKind().Group != v1alpha1.Group || u.GetKind() == v1alpha1.KindKubeconfig {
					continue
				}
				key := u.GetKind() + "/" + u.GetName()
				got[key], _, _ = unstructured.NestedString(u.Object, "spec", "image", "tag")
				if tag, found, _ := unstructured.NestedString(u.Object, "spec", "proxy", "image", "tag"); found {
					got[key+" proxy"] = tag
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nimage tags of the children: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
