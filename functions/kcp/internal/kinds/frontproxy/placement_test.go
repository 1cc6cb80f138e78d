package frontproxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// inClusterB places the front-proxy in cluster B.
func inClusterB(fp *v1alpha1.FrontProxy) {
	fp.Spec.Placement = &v1alpha1.Placement{ProviderConfigRef: v1alpha1.PlacementProviderConfigRef{Kind: "ClusterProviderConfig", Name: "cluster-b"}, Namespace: "kcp-b"}
}

func TestPlacedFrontProxy(t *testing.T) {
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.cluster-a.example.com:6443" })
	r := converge(frontProxy(inClusterB), rs, nil)

	// "<key> <Object name> <kind there> <namespace there> <config>" for every Object.
	var got []string
	for _, o := range r.Desired.Objects() {
		u, ok := o.Resource.(*resource.Unstructured)
		if !ok || u.GetKind() != "Object" {
			continue
		}
		spec := u.Object["spec"].(map[string]any)
		m := spec["forProvider"].(map[string]any)["manifest"].(map[string]any)
		ns, _ := m["metadata"].(map[string]any)["namespace"].(string)
		cfg := spec["providerConfigRef"].(map[string]any)
		got = append(got, string(o.Name)+" "+u.GetName()+" "+m["kind"].(string)+" "+ns+" "+cfg["kind"].(string)+"/"+cfg["name"].(string))
	}
	want := []string{
		"deployment-front-proxy fp-front-proxy.deployment Deployment kcp-b ClusterProviderConfig/cluster-b",
		"service-front-proxy fp-front-proxy.service Service kcp-b ClusterProviderConfig/cluster-b",
		"poddisruptionbudget-front-proxy fp-front-proxy.poddisruptionbudget PodDisruptionBudget kcp-b ClusterProviderConfig/cluster-b",
		"placed-namespace fp-front-proxy.namespace Namespace  ClusterProviderConfig/cluster-b",
		"placed-secret-root-fp-dynamic-kubeconfig fp-front-proxy.root-fp-dynamic-kubeconfig.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-secret-root-fp-kubeconfig fp-front-proxy.root-fp-kubeconfig.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-secret-root-fp-server fp-front-proxy.root-fp-server.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-secret-root-fp-requestheader fp-front-proxy.root-fp-requestheader.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-secret-root-ca fp-front-proxy.root-ca.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-secret-root-requestheader-client-ca fp-front-proxy.root-requestheader-client-ca.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-secret-fp-merged-client-ca fp-front-proxy.fp-merged-client-ca.secret Secret kcp-b ClusterProviderConfig/cluster-b",
		"placed-configmap-fp-config fp-front-proxy.fp-config.configmap ConfigMap kcp-b ClusterProviderConfig/cluster-b",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("A placed front-proxy runs in namespace kcp-b of the cluster its ClusterProviderConfig reaches, with a copy of everything it mounts.\n-want, +got:\n%s", diff)
	}
}

func TestPlacedFrontProxyNeedsReachableRootShard(t *testing.T) {
	_, errs := Compose(frontProxy(inClusterB), testworld.New().Object(testworld.RootShard()).RootCAs().State())
	want := `spec.placement: Invalid value: "cluster-b": RootShard root has no spec.shardBaseURL, and its Service name resolves only in its own cluster; set the RootShard's spec.shardBaseURL to a URL the other cluster reaches`
	if diff := cmp.Diff(want, errs.ToAggregate().Error()); diff != "" {
		t.Errorf("The front-proxy reaches the root shard by its Service name unless it has a shardBaseURL.\n-want, +got:\n%s", diff)
	}
}
