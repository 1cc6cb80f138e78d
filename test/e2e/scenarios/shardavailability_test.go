package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// unschedulableAnnotation is kcp's annotation that keeps its scheduler from choosing a shard.
const unschedulableAnnotation = "experimental.core.kcp.io/unschedulable"

// shardDown takes a Shard's pods away the way a failure would leave it, through its XR
// (spec.replicas: 0, which kube-controller-manager rolls out), and returns what brings them
// back: the replicas it had, then spec.replicas unset again once its Deployment has them (an
// unset spec.replicas keeps the live Deployment's, so unsetting it alone would keep 0).
// Scaling the Deployment itself would be undone by Crossplane.
func shardDown(ctx context.Context, t *testing.T, e *env, ns, shard string) (back func()) {
	t.Helper()
	deployment := shard + "-shard-kcp"
	out, err := e.Kubectl(ctx, nil, "get", "deployment", "-n", ns, deployment, "-o", "jsonpath={.spec.replicas}")
	had := strings.TrimSpace(string(out))
	if err != nil || had == "" {
		t.Fatalf("replicas of Deployment %s: %v %q", deployment, err, out)
	}
	patch := func(replicas string) {
		if _, err := e.Kubectl(ctx, nil, "patch", "shards.kcp.crossplane.io", "-n", ns, shard, "--type=merge", "-p", `{"spec":{"replicas":`+replicas+`}}`); err != nil {
			t.Fatal(err)
		}
	}
	patch("0")
	return func() {
		patch(had)
		if err := e.Eventually(ctx, timeout, "Deployment "+deployment+" asks for "+had+" replicas again", func(ctx context.Context) (bool, string, error) {
			nudge(ctx, t, e, "shard", ns, shard)
			out, err := e.Kubectl(ctx, nil, "get", "deployment", "-n", ns, deployment, "-o", "jsonpath={.spec.replicas}")
			return err == nil && strings.TrimSpace(string(out)) == had, string(out), nil
		}); err != nil {
			t.Fatal(err)
		}
		patch("null")
	}
}

// waitRegistrationAnnotated waits until the RootShard's Object for shard's kcp Shard asks for
// kcp's unschedulable annotation (want) or asks for none (!want), nudging the Shard and the
// RootShard (Crossplane v2.3 does not watch what an XR reads).
func waitRegistrationAnnotated(ctx context.Context, t *testing.T, e *env, ns, root, shard string, want bool) time.Duration {
	t.Helper()
	start := time.Now()
	object := root + "-registration-" + shard
	what := fmt.Sprintf("Object %s asks for kcp's unschedulable annotation: %t", object, want)
	err := e.Eventually(ctx, timeout, what, func(ctx context.Context) (bool, string, error) {
		nudge(ctx, t, e, "shard", ns, shard)
		nudge(ctx, t, e, "rootshard", ns, root)
		var o struct {
			Spec struct {
				ForProvider struct {
					Manifest struct {
						Metadata struct {
							Annotations map[string]string `json:"annotations"`
						} `json:"metadata"`
					} `json:"manifest"`
				} `json:"forProvider"`
				ManagementPolicies []string `json:"managementPolicies"`
			} `json:"spec"`
		}
		if err := e.GetJSON(ctx, &o, "objects.kubernetes.m.crossplane.io", "-n", ns, object); err != nil {
			return false, err.Error(), nil
		}
		why, annotated := o.Spec.ForProvider.Manifest.Metadata.Annotations[unschedulableAnnotation]
		return annotated == want, fmt.Sprintf("policies %v, annotation %q", o.Spec.ManagementPolicies, why), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// testShardAvailability takes a shard's pods away and brings them back, and checks the chain
// that keeps kcp from scheduling onto it meanwhile, as far as it goes without kcp: the Shard
// reports status.availableReplicas 0, the RootShard's Object for kcp's Shard asks for kcp's
// unschedulable annotation (provider-kubernetes applies it where kcp runs: RealKCP), and
// once a pod is back the annotation is asked for no more.
func testShardAvailability(ctx context.Context, t *testing.T, e *env, ns, root, shard string) {
	back := shardDown(ctx, t, e, ns, shard)
	start := time.Now()
	err := e.Eventually(ctx, timeout, "Shard "+shard+" reports no available pod", func(ctx context.Context) (bool, string, error) {
		x, err := getXR(ctx, e, "Shard", ns, shard)
		if err != nil {
			return false, "", err
		}
		n, ok := x.Status["availableReplicas"]
		return ok && n == float64(0), fmt.Sprintf("status.availableReplicas %v", n), nil
	})
	if err != nil {
		back()
		t.Fatal(err)
	}
	took := waitRegistrationAnnotated(ctx, t, e, ns, root, shard, true)
	e.Step("shard availability: Shard %s scaled to 0: status.availableReplicas 0 %.1fs later, the RootShard's Object asks for kcp's unschedulable annotation %.1fs after that", shard, time.Since(start).Seconds()-took.Seconds(), took.Seconds())

	back()
	took = waitRegistrationAnnotated(ctx, t, e, ns, root, shard, false)
	if _, err := waitXR(ctx, e, "Shard", ns, shard, "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	e.Step("shard availability: Shard %s back: the annotation asked for no more %.1fs later", shard, took.Seconds())
}

// testShardAvailabilityOnRealKCP stops a real shard and starts it again, and checks that kcp
// schedules no new workspace onto it meanwhile and takes them again once it is back: the
// RootShard's Object, which provider-kubernetes applies through root-proxy with the RootShard's
// credentials, annotates kcp's Shard unschedulable while the Shard reports no available pod
// (the label the scenario put on it kept), a workspace asking for that shard waits
// Unschedulable, and once the shard runs again the annotation goes and the workspace becomes
// Ready there. restart runs the shard's pod again and returns its exited check.
func testShardAvailabilityOnRealKCP(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, ns, root, shard string, stop func(), restart func() func() error) {
	t.Helper()
	stop()
	back := shardDown(ctx, t, e, ns, shard)
	start := time.Now()
	var why string
	err := e.Eventually(ctx, timeout, "kcp's Shard "+shard+" annotated unschedulable", func(ctx context.Context) (bool, string, error) {
		nudge(ctx, t, e, "shard", ns, shard)
		nudge(ctx, t, e, "rootshard", ns, root)
		out, err := admin(ctx, "", "get", "shard", shard, "-o", `jsonpath={.metadata.annotations.experimental\.core\.kcp\.io/unschedulable}`)
		why = out
		return err == nil && out != "", out, nil
	})
	if err != nil {
		back()
		t.Fatal(err)
	}
	e.Step("RealKCP shard availability: %s stopped and scaled to 0; kcp's Shard annotated unschedulable %.1fs later (%s)", shard, time.Since(start).Seconds(), why)
	if out, err := admin(ctx, "", "get", "shard", shard, "-o", `jsonpath={.metadata.labels.e2e\.kcp\.crossplane\.io/shard}`); err != nil || out != shard {
		t.Errorf("kcp's Shard %s lost the label the user put on it (e2e.kcp.crossplane.io/shard=%s): %q %v", shard, shard, out, err)
	}

	name := "while-" + shard + "-down"
	ws := fmt.Sprintf("apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata: {name: %s}\nspec:\n  location: {selector: {matchLabels: {e2e.kcp.crossplane.io/shard: %s}}}\n", name, shard)
	if out, err := admin(ctx, ws, "create", "-f", "-"); err != nil {
		back()
		t.Fatalf("create workspace %s: %v\n%s", name, err, out)
	}
	if err := e.Eventually(ctx, time.Minute, "workspace "+name+" Unschedulable", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspace", name, "-o", `jsonpath={.status.conditions[?(@.type=="WorkspaceScheduled")].reason} {.spec.cluster}`)
		return err == nil && out == "Unschedulable ", out, nil
	}); err != nil {
		back()
		t.Fatal(err)
	}
	e.Step("RealKCP shard availability: workspace %s, which only %s may take, waits Unschedulable", name, shard)

	back()
	exited := restart()
	start = time.Now()
	if err := e.Eventually(ctx, timeout, "kcp's Shard "+shard+" schedulable again", func(ctx context.Context) (bool, string, error) {
		nudge(ctx, t, e, "shard", ns, shard)
		nudge(ctx, t, e, "rootshard", ns, root)
		out, err := admin(ctx, "", "get", "shard", shard, "-o", `jsonpath={.metadata.annotations}`)
		return err == nil && !strings.Contains(out, unschedulableAnnotation), out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	unannotated := time.Since(start)
	if err := e.Eventually(ctx, timeout, "workspace "+name+" Ready", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspace", name, "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Ready", out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP shard availability: %s back: kcp's Shard schedulable again %.1fs after it was started, and workspace %s Ready on it %.1fs after that", shard, unannotated.Seconds(), name, (time.Since(start) - unannotated).Seconds())
}
