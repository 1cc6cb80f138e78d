package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The Upgrade scenario's installation, in a namespace of its own.
const (
	upgradeNamespace    = "upgrade"
	upgradeInstallation = "up"
	// upgradeFrom is the package's default kcp; upgradeTo a newer tag (kwok runs no
	// container, so any tag rolls out); upgradeBroken one whose pods never become ready
	// (test/e2e/stack/manifests/kwok-stages.yaml: e2e-pod-crashloop), as a kcp that crash-loops.
	upgradeFrom   = "ghcr.io/kcp-dev/kcp:v0.32.3"
	upgradeTo     = "ghcr.io/kcp-dev/kcp:" + upgradeToTag
	upgradeToTag  = "v0.33.0"
	upgradeBroken = "v0.33.0-crashloop"
)

const upgradeManifest = `apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata:
  name: up
  namespace: upgrade
spec:
  external:
    hostname: kcp.upgrade.example.com
  certificates:
    issuerRef: {name: kcp-selfsigned, kind: ClusterIssuer, group: cert-manager.io}
  shards:
  - name: alpha
  cacheServer: {}
`

// upgradeOrder is the step of each component (app.kubernetes.io/component) in kcp's upgrade
// order: the root shard and its proxy, then what reads from it, then the front-proxies.
var upgradeOrder = map[string]int{
	"rootshard": 0, "rootshard-proxy": 0,
	"shard": 1, "cache-server": 1, "virtual-workspace": 1,
	"front-proxy": 2,
}

// rollout is what the scenario reads of one Deployment.
type rollout struct {
	Name, Component, Image string
	Generation, ObservedGeneration,
	Replicas, Updated, Available int64
}

// rolledOut reports whether every replica runs the Deployment's current template.
func (r rollout) rolledOut() bool {
	return r.ObservedGeneration >= r.Generation && r.Updated == r.Replicas && r.Available == r.Replicas
}

// testUpgrade changes the kcp image of a KcpInstallation with a shard and a cache server,
// as a platform engineer upgrading kcp would, and watches Kubernetes roll the Deployments
// out (kube-controller-manager's Deployment controller, pods on kwok fake nodes):
//
//   - to an image whose pods never become ready: the root shard's rollout stalls, and the
//     shard, cache server and front-proxy keep the image they run while status.upgrade says
//     what it waits for;
//   - then to a good one: every Deployment's new template appears only once every Deployment
//     of the steps before it has rolled out (read from their generations and replica counts
//     each half second), status.upgrade passes through RootShard, Shards and FrontProxies in
//     that order, and the ReplicaSets' creation times agree;
//   - then back to the old image: refused, and nothing changes.
func testUpgrade(t *testing.T, e *env) {
	ctx := t.Context()
	ns := upgradeNamespace
	offerSelfService(ctx, t, e, ns, "carol")
	start := time.Now()
	if _, err := e.Kubectl(ctx, []byte(upgradeManifest), "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	inst, err := waitInstallationReady(ctx, e, ns, upgradeInstallation)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("upgrade: installation with a shard and a cache server Ready %.1fs after apply", time.Since(start).Seconds())
	if inst.Status["image"] != upgradeFrom {
		t.Fatalf("status.image = %v, want %s: every component runs the default kcp", inst.Status["image"], upgradeFrom)
	}

	t.Run("FailedStepKeepsWhatRuns", func(t *testing.T) {
		setImageTag(ctx, t, e, upgradeBroken)
		// The root shard's Deployment rolls out the broken image and stalls; everything else
		// keeps running the old one, however long we look.
		err := e.Eventually(ctx, timeout, "the root shard rolling out the broken image", func(ctx context.Context) (bool, string, error) {
			ds, err := rollouts(ctx, e, ns)
			if err != nil {
				return false, "", err
			}
			root := ds["rootshard"]
			return strings.HasSuffix(root.Image, ":"+upgradeBroken) && root.ObservedGeneration >= root.Generation, fmt.Sprintf("%+v", root), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		var last xr
		for time.Now().Before(deadline) {
			ds, err := rollouts(ctx, e, ns)
			if err != nil {
				t.Fatal(err)
			}
			for c, d := range ds {
				if upgradeOrder[c] > 0 && d.Image != upgradeFrom {
					t.Fatalf("%s %s runs %s while the root shard's rollout is stalled: it must keep %s", c, d.Name, d.Image, upgradeFrom)
				}
			}
			if last, err = getXR(ctx, e, "KcpInstallation", ns, upgradeInstallation); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
		}
		up := upgradeStatus(last)
		if up.Step != "RootShard" || len(up.WaitingFor) == 0 || !strings.HasPrefix(up.WaitingFor[0], "RootShard up:") || up.From != upgradeFrom {
			t.Errorf("status.upgrade = %+v, want step RootShard from %s, waiting for RootShard up", up, upgradeFrom)
		}
		e.Step("upgrade: root shard stalled on %s; shard, cache server and front-proxy kept %s; status.upgrade %+v", upgradeBroken, upgradeFrom, up)
	})

	t.Run("InOrder", func(t *testing.T) {
		begin := time.Now()
		setImageTag(ctx, t, e, upgradeToTag)
		var steps []string
		firstNew := map[string]time.Duration{}
		rolledOutAt := map[string]time.Duration{}
		err := e.Eventually(ctx, 3*timeout, "every component on "+upgradeTo, func(ctx context.Context) (bool, string, error) {
			ds, err := rollouts(ctx, e, ns)
			if err != nil {
				return false, "", err
			}
			now := time.Since(begin)
			for c, d := range ds {
				if d.Image != upgradeTo {
					continue
				}
				if _, seen := firstNew[c]; !seen {
					firstNew[c] = now
					// The order: no earlier step may still be rolling out.
					for other, o := range ds {
						if upgradeOrder[other] < upgradeOrder[c] && (o.Image != upgradeTo || !o.rolledOut()) {
							t.Errorf("%s got %s at %.1fs while %s (an earlier step) had not rolled out: %+v", c, upgradeTo, now.Seconds(), other, o)
						}
					}
				}
				if _, seen := rolledOutAt[c]; !seen && d.rolledOut() {
					rolledOutAt[c] = now
				}
			}
			x, err := getXR(ctx, e, "KcpInstallation", ns, upgradeInstallation)
			if err != nil {
				return false, "", err
			}
			if up := upgradeStatus(x); up.Step != "" && (len(steps) == 0 || steps[len(steps)-1] != up.Step) {
				steps = append(steps, up.Step)
			}
			return x.Status["image"] == upgradeTo && x.Status["upgrade"] == nil, fmt.Sprintf("status.upgrade %v, deployments %v", x.Status["upgrade"], ds), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Polling may miss a short step, never reorder them.
		if !isSubsequence(steps, []string{"RootShard", "Shards", "FrontProxies"}) || len(steps) == 0 {
			t.Errorf("status.upgrade went through steps %v, want them in the order RootShard, Shards, FrontProxies", steps)
		}
		for _, c := range []string{"rootshard", "rootshard-proxy", "shard", "cache-server", "front-proxy"} {
			e.Step("upgrade: %-15s new template at %5.1fs, rolled out at %5.1fs", c, firstNew[c].Seconds(), rolledOutAt[c].Seconds())
		}
		e.Step("upgrade: status.upgrade steps seen %v; every component on %s %.1fs after the change", steps, upgradeTo, time.Since(begin).Seconds())
		checkReplicaSetOrder(ctx, t, e, ns)
	})

	t.Run("DowngradeRefused", func(t *testing.T) {
		setImageTag(ctx, t, e, "v0.32.3")
		err := e.Eventually(ctx, timeout, "the downgrade refused", func(ctx context.Context) (bool, string, error) {
			x, err := getXR(ctx, e, "KcpInstallation", ns, upgradeInstallation)
			if err != nil {
				return false, "", err
			}
			c := x.conditions()["Synced"]
			return c.Status == "False" && strings.Contains(c.Message, "spec.upgrade.allowDowngrade"), c.Message, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ds, err := rollouts(ctx, e, ns)
		if err != nil {
			t.Fatal(err)
		}
		for c, d := range ds {
			if d.Image != upgradeTo {
				t.Errorf("%s runs %s after a refused downgrade, want %s", c, d.Image, upgradeTo)
			}
		}
		// Leave it settled: a refused XR is retried with backoff, calls the Scale scenario
		// would count.
		setImageTag(ctx, t, e, upgradeToTag)
		if _, err := waitInstallationReady(ctx, e, ns, upgradeInstallation); err != nil {
			t.Fatal(err)
		}
	})
}

// setImageTag sets the installation's spec.image.tag.
func setImageTag(ctx context.Context, t *testing.T, e *env, tag string) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"image":{"tag":%q}}}`, tag)
	if _, err := e.Kubectl(ctx, nil, "patch", "kcpinstallation", upgradeInstallation, "-n", upgradeNamespace, "--type=merge", "-p", patch); err != nil {
		t.Fatal(err)
	}
}

// installationUpgrade is status.upgrade.
type installationUpgrade struct {
	From, To, Step string
	WaitingFor     []string
}

func upgradeStatus(x xr) installationUpgrade {
	var up installationUpgrade
	if raw, ok := x.Status["upgrade"]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &up)
	}
	return up
}

// rollouts reads the namespace's kcp Deployments by component.
func rollouts(ctx context.Context, e *env, ns string) (map[string]rollout, error) {
	var list struct {
		Items []struct {
			Metadata struct {
				Name       string
				Generation int64
				Labels     map[string]string
			}
			Spec struct {
				Replicas int64
				Template struct {
					Spec struct{ Containers []struct{ Image string } }
				}
			}
			Status struct {
				ObservedGeneration int64
				UpdatedReplicas    int64
				AvailableReplicas  int64
			}
		}
	}
	if err := e.GetJSON(ctx, &list, "deployments", "-n", ns); err != nil {
		return nil, err
	}
	out := map[string]rollout{}
	for _, d := range list.Items {
		c := d.Metadata.Labels["app.kubernetes.io/component"]
		if _, ok := upgradeOrder[c]; !ok || len(d.Spec.Template.Spec.Containers) == 0 {
			continue
		}
		out[c] = rollout{
			Name: d.Metadata.Name, Component: c, Image: d.Spec.Template.Spec.Containers[0].Image,
			Generation: d.Metadata.Generation, ObservedGeneration: d.Status.ObservedGeneration,
			Replicas: d.Spec.Replicas, Updated: d.Status.UpdatedReplicas, Available: d.Status.AvailableReplicas,
		}
	}
	return out, nil
}

// checkReplicaSetOrder checks the ReplicaSets of the new image were created in the upgrade's
// order (creation times have a resolution of a second: equal is allowed).
func checkReplicaSetOrder(ctx context.Context, t *testing.T, e *env, ns string) {
	var list struct {
		Items []struct {
			Metadata struct {
				CreationTimestamp time.Time
				Labels            map[string]string
			}
			Spec struct {
				Template struct {
					Spec struct{ Containers []struct{ Image string } }
				}
			}
		}
	}
	if err := e.GetJSON(ctx, &list, "replicasets", "-n", ns); err != nil {
		t.Fatal(err)
	}
	created := map[string]time.Time{}
	for _, rs := range list.Items {
		c := rs.Metadata.Labels["app.kubernetes.io/component"]
		if _, ok := upgradeOrder[c]; ok && len(rs.Spec.Template.Spec.Containers) > 0 && rs.Spec.Template.Spec.Containers[0].Image == upgradeTo {
			created[c] = rs.Metadata.CreationTimestamp
		}
	}
	for c, at := range created {
		for other, otherAt := range created {
			if upgradeOrder[other] < upgradeOrder[c] && at.Before(otherAt) {
				t.Errorf("the ReplicaSet of %s for %s was created at %s, before that of %s (an earlier step) at %s", c, upgradeTo, at, other, otherAt)
			}
		}
	}
	if len(created) < 5 {
		t.Errorf("ReplicaSets of %s found for %v, want the root shard, its proxy, the shard, the cache server and the front-proxy", upgradeTo, created)
	}
}

// isSubsequence reports whether got lists elements of want in want's order, each once.
func isSubsequence(got, want []string) bool {
	i := 0
	for _, g := range got {
		j := slices.Index(want[i:], g)
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return true
}
