package main

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// convergedRequest simulates the world of examples/basic after cert-manager issued every
// certificate and every Deployment rolled out, by feeding responses back as observed state.
func convergedRequest(tb testing.TB, xr string, world ...map[string]any) *fnv1.RunFunctionRequest {
	tb.Helper()
	f := &Function{log: logging.NewNopLogger()}
	req := newRequest(xr)
	for range 6 {
		rsp, err := f.RunFunction(context.Background(), req)
		if err != nil {
			tb.Fatal(err)
		}
		observed := map[string]*fnv1.Resource{}
		required := map[string]*fnv1.Resources{}
		for name, r := range rsp.GetDesired().GetResources() {
			obj := r.GetResource().AsMap()
			md := obj["metadata"].(map[string]any)
			switch obj["kind"] {
			case "Certificate":
				obj["status"] = map[string]any{"revision": 1, "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
				secret := obj["spec"].(map[string]any)["secretName"].(string)
				required["secret/"+secret] = &fnv1.Resources{Items: []*fnv1.Resource{{Resource: mustStruct(tb, map[string]any{
					"apiVersion": "v1", "kind": "Secret",
					"metadata": map[string]any{"name": secret, "namespace": md["namespace"]},
					"data":     map[string]any{"tls.crt": base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n" + secret + "\n-----END CERTIFICATE-----\n"))},
				})}}}
			case "Issuer":
				obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
			case "Deployment":
				replicas := obj["spec"].(map[string]any)["replicas"]
				md["generation"] = 1
				obj["status"] = map[string]any{"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas,
					"availableReplicas": replicas, "conditions": []any{map[string]any{"type": "Available", "status": "True"}}}
			}
			observed[name] = &fnv1.Resource{Resource: mustStruct(tb, obj)}
		}
		// Objects other XRs provide (a RootShard, its CA Secrets) are part of the world.
		for _, o := range world {
			md := o["metadata"].(map[string]any)
			required[strings.ToLower(o["kind"].(string))+"/"+md["name"].(string)] = &fnv1.Resources{Items: []*fnv1.Resource{{Resource: mustStruct(tb, o)}}}
		}
		req = newRequest(xr)
		req.Observed.Resources = observed
		req.RequiredResources = required
	}
	return req
}

const shardXR = `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "Shard",
	"metadata": {"name": "shard-1", "namespace": "kcp"},
	"spec": {"rootShard": {"ref": {"name": "root"}}, "etcd": {"endpoints": ["http://etcd.kcp.svc.cluster.local:2379"], "prefix": "/shard-1"}}
}`

const benchCacheServerXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"CacheServer","metadata":{"name":"cache","namespace":"kcp"},"spec":{"certificates":{"issuerRef":{"group":"cert-manager.io","kind":"ClusterIssuer","name":"kcp-selfsigned"}},"etcd":{"endpoints":["http://etcd.kcp.svc.cluster.local:2379"],"prefix":"/cache"}}}`

const benchVirtualWorkspaceXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"VirtualWorkspace","metadata":{"name":"root-vw","namespace":"kcp"},"spec":{"target":{"rootShardRef":{"name":"root"}},"external":{"hostname":"vw.example.com","port":6443}}}`

const benchFrontProxyXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"FrontProxy","metadata":{"name":"fp","namespace":"kcp"},"spec":{"rootShard":{"ref":{"name":"root"}},"external":{"hostname":"kcp.example.com","port":443}}}`

const benchKubeconfigXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"Kubeconfig","metadata":{"name":"admin","namespace":"kcp","uid":"kc-uid"},"spec":{"target":{"rootShardRef":{"name":"root"}},"username":"kcp-admin","groups":["system:kcp:admin"],"validity":"8760h","secretRef":{"name":"admin-kubeconfig"}}}`

func secretWith(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": "kcp"},
		"data":     map[string]any{"tls.crt": base64.StdEncoding.EncodeToString([]byte(name)), "kubeconfig": base64.StdEncoding.EncodeToString([]byte(name))}}
}

// rootShardWorld is what a Shard reads from its installation: the RootShard and its CAs.
func rootShardWorld(tb testing.TB) []map[string]any {
	rs := resource.MustStructJSON(basicXR).AsMap()
	out := []map[string]any{rs}
	for _, ca := range []string{"root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca", "root-service-account-ca"} {
		out = append(out, secretWith(ca))
	}
	return out
}

func mustStruct(tb testing.TB, m map[string]any) *structpb.Struct {
	tb.Helper()
	s, err := structpb.NewStruct(normalize(m).(map[string]any))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// normalize turns ints into float64, the only number type structpb accepts from Go maps.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

func TestConvergedShardComposesWorkload(t *testing.T) {
	rsp := run(t, convergedRequest(t, shardXR, rootShardWorld(t)...))
	if _, ok := rsp.GetDesired().GetResources()["deployment-shard-kcp"]; !ok {
		t.Errorf("converged Shard must compose its Deployment; results: %v", rsp.GetResults())
	}
	if got := len(rsp.GetDesired().GetResources()); got != 12 {
		t.Errorf("converged Shard composes %d resources, want 12", got)
	}
}

func TestConvergedVirtualWorkspaceComposesWorkload(t *testing.T) {
	rsp := run(t, convergedRequest(t, benchVirtualWorkspaceXR, append(rootShardWorld(t), secretWith("root-logical-cluster-admin-kubeconfig"))...))
	if _, ok := rsp.GetDesired().GetResources()["deployment-virtual-workspace"]; !ok {
		t.Errorf("converged VirtualWorkspace must compose its Deployment; results: %v, resources: %d", rsp.GetResults(), len(rsp.GetDesired().GetResources()))
	}
}

func TestConvergedRequestComposesWorkloads(t *testing.T) {
	rsp := run(t, convergedRequest(t, basicXR))
	for _, k := range []string{"deployment-kcp", "deployment-proxy", "service-kcp", "service-proxy", "secret-proxy-merged-client-ca"} {
		if _, ok := rsp.GetDesired().GetResources()[k]; !ok {
			t.Errorf("converged basic RootShard must compose %s", k)
		}
	}
	if got := len(rsp.GetDesired().GetResources()); got != 29 {
		t.Errorf("converged basic RootShard composes %d resources, want 29", got)
	}
	if rsp.GetDesired().GetComposite().GetReady() == fnv1.Ready_READY_FALSE {
		t.Errorf("converged XR must not be forced not ready")
	}
}

// BenchmarkRunFunction measures one RunFunction call on examples/basic. Run with
// `go test -run '^$' -bench RunFunction -benchmem ./functions/kcp/`.
func BenchmarkRunFunction(b *testing.B) {
	for name, req := range map[string]*fnv1.RunFunctionRequest{
		"RootShard/Fresh":       newRequest(basicXR),
		"RootShard/Converged":   convergedRequest(b, basicXR),
		"Shard/Converged":       convergedRequest(b, shardXR, rootShardWorld(b)...),
		"CacheServer/Converged": convergedRequest(b, benchCacheServerXR),
		"VirtualWorkspace/Converged": convergedRequest(b, benchVirtualWorkspaceXR,
			append(rootShardWorld(b), secretWith("root-logical-cluster-admin-kubeconfig"))...),
		"FrontProxy/Converged": convergedRequest(b, benchFrontProxyXR, rootShardWorld(b)...),
		"Kubeconfig/Converged": convergedRequest(b, benchKubeconfigXR, kubeconfigWorld(b)...),
	} {
		b.Run(name, func(b *testing.B) {
			f := &Function{log: logging.NewNopLogger()}
			rsp, err := f.RunFunction(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.RunFunction(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			// After the loop: resetting the timer would drop metrics reported earlier.
			b.ReportMetric(float64(proto.Size(rsp)), "response-bytes")
			b.ReportMetric(float64(proto.Size(req)), "request-bytes")
		})
	}
}
