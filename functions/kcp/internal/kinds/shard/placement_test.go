package shard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// inClusterB places the shard in cluster B, reached at its own public URL.
func inClusterB(sh *v1alpha1.Shard) {
	sh.Spec.Placement = &v1alpha1.Placement{ProviderConfigRef: v1alpha1.PlacementProviderConfigRef{Name: "cluster-b"}}
	sh.Spec.ShardBaseURL = "https://alpha.cluster-b.example.com:6443"
}

// reachable gives the RootShard a URL the other cluster resolves.
func reachable(rs *v1alpha1.RootShard) {
	rs.Spec.ShardBaseURL = "https://root.cluster-a.example.com:6443"
}

func TestPlacedShard(t *testing.T) {
	here := converge(shard(func(sh *v1alpha1.Shard) { sh.Spec.ShardBaseURL = "https://alpha.cluster-b.example.com:6443" }), testworld.RootShard(reachable), nil)
	there := converge(shard(inClusterB), testworld.RootShard(reachable), nil)

	var placed []string
	for _, name := range there.Desired.Names() {
		if o, _ := there.Desired.Get(name); objectKind(o) == "Object" {
			placed = append(placed, string(name))
		}
	}
	// A shard mounts no ConfigMap of its own: every copy is of a Secret.
	want := []string{
		"deployment-shard-kcp",
		"placed-namespace",
		"placed-secret-alpha-client", "placed-secret-alpha-client-kubeconfig",
		"placed-secret-alpha-external-logical-cluster-admin", "placed-secret-alpha-external-logical-cluster-admin-kubeconfig",
		"placed-secret-alpha-logical-cluster-admin", "placed-secret-alpha-logical-cluster-admin-kubeconfig",
		"placed-secret-alpha-mounts-proxy", "placed-secret-alpha-server", "placed-secret-alpha-service-account",
		"placed-secret-root-ca", "placed-secret-root-client-ca", "placed-secret-root-requestheader-client-ca",
		"placed-secret-root-server-ca", "placed-secret-root-service-account-ca",
		"poddisruptionbudget-shard-kcp", "service-shard-kcp",
	}
	if diff := cmp.Diff(want, placed); diff != "" {
		t.Errorf("A placed shard composes its Deployment, Service and PodDisruptionBudget as Objects, the namespace there, and a copy of each Secret it mounts.\n-want, +got:\n%s", diff)
	}

	// The Deployment there is the Deployment here: placement changes where, not what.
	o, _ := there.Desired.Get("deployment-shard-kcp")
	manifest := o.Resource.(*resource.Unstructured).Object["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"]
	local, err := desired.ToComposed(deployment(t, here))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(local.Object, manifest); diff != "" {
		t.Errorf("The placed Deployment's manifest must be the Deployment the shard runs here.\n-here, +there:\n%s", diff)
	}
	for _, name := range there.Desired.Names() {
		if o, _ := there.Desired.Get(name); objectKind(o) == "Deployment" || objectKind(o) == "Service" {
			t.Errorf("A placed shard composes no %s in this cluster: %s", objectKind(o), name)
		}
	}
}

// objectKind is the kind of a desired object.
func objectKind(o desired.Object) string {
	if o.Kept != nil {
		return o.Kept.GetKind()
	}
	if u, ok := o.Resource.(*resource.Unstructured); ok {
		return u.GetKind()
	}
	switch o.Resource.(type) {
	case *appsv1.Deployment:
		return "Deployment"
	case *corev1.Service:
		return "Service"
	}
	return ""
}

func TestPlacedShardRefused(t *testing.T) {
	cases := map[string]struct {
		reason string
		sh     *v1alpha1.Shard
		rs     *v1alpha1.RootShard
		world  func(*testworld.World)
		want   string
	}{
		"RootShardUnreachable": {
			reason: "The shard reaches its RootShard by the RootShard's Service name, which resolves only in the RootShard's cluster.",
			sh:     shard(inClusterB),
			rs:     testworld.RootShard(),
			want:   `spec.placement: Invalid value: "cluster-b": RootShard root has no spec.shardBaseURL, and its Service name resolves only in its own cluster; set the RootShard's spec.shardBaseURL to a URL the other cluster reaches`,
		},
		"CacheServer": {
			reason: "A CacheServer is reached by its Service name too.",
			sh: shard(inClusterB, func(sh *v1alpha1.Shard) {
				sh.Spec.Cache = &v1alpha1.ShardCacheConfig{Ref: &corev1.LocalObjectReference{Name: "cache"}}
			}),
			rs:   testworld.RootShard(reachable),
			want: `spec.placement: Invalid value: "cluster-b": the shard would reach CacheServer cache by its Service name, which resolves only in its own cluster; a placed shard uses the root shard's cache (remove spec.cache, and the RootShard's)`,
		},
		"MoveRunningShard": {
			reason: "A shard running here cannot be moved: its Deployment would be deleted here first.",
			sh:     shard(inClusterB),
			rs:     testworld.RootShard(reachable),
			world: func(w *testworld.World) {
				w.Put("deployment-shard-kcp", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "alpha-shard-kcp", "namespace": "kcp"}})
			},
			want: "spec.placement: Forbidden: the workload runs in this cluster and cannot move to namespace kcp of the cluster ProviderConfig cluster-b reaches: Crossplane would delete it where it runs first. Restore the placement, or create a new Shard placed where you want it and delete this one",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := testworld.New().Object(tc.rs).RootCAs()
			if tc.world != nil {
				tc.world(w)
			}
			_, errs := Compose(tc.sh, w.State())
			if diff := cmp.Diff(tc.want, errs.ToAggregate().Error()); diff != "" {
				t.Errorf("%s\nCompose(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPlacedShardUnreachable(t *testing.T) {
	sh, rs := shard(inClusterB), testworld.RootShard(reachable)
	r := converge(sh, rs, nil)
	w := testworld.New().Object(rs).RootCAs().Settle(r.Desired)
	// provider-kubernetes last saw the Deployment rolled out, then lost cluster B.
	dep := w.Composed("deployment-shard-kcp").Object
	manifest := dep["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any)
	manifest["metadata"].(map[string]any)["generation"] = 1
	manifest["status"] = map[string]any{"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "availableReplicas": 2,
		"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}
	dep["status"] = map[string]any{
		"atProvider": map[string]any{"manifest": manifest},
		"conditions": []any{map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "cannot get object: connection refused"}},
	}
	w.Put("deployment-shard-kcp", dep)
	got := composeOK(sh, w.State())

	if diff := cmp.Diff(r.Desired.Names(), got.Desired.Names()); diff != "" {
		t.Errorf("An unreachable cluster must not shrink the desired set.\n-before, +after:\n%s", diff)
	}
	found := false
	for _, c := range got.Conditions {
		if c.Type != condition.TypeAvailable {
			continue
		}
		found = true
		if c.Status || c.Reason != condition.ReasonClusterUnreachable || !strings.Contains(c.Message, "connection refused") {
			t.Errorf("Available must say the cluster is unreachable, with provider-kubernetes' reason: %+v", c)
		}
	}
	if !found || !got.NotReady && got.Status.Phase == v1alpha1.PhaseRunning {
		t.Errorf("An unreachable placed shard reports Available=False and is not Running: found %v, phase %s", found, got.Status.Phase)
	}
}
