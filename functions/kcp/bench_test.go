package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
	"github.com/configuration-kcp/configuration-kcp/test/render"
)

// convergedRequest is the request for xr once everything it composes is issued, up and Ready
// (fnrequest.Converged against this function).
func convergedRequest(tb testing.TB, xr string, world ...map[string]any) *fnv1.RunFunctionRequest {
	tb.Helper()
	f := newFunction(logging.NewNopLogger(), breaker{})
	req, err := fnrequest.Converged(func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
		return f.RunFunction(context.Background(), req)
	}, xr, world...)
	if err != nil {
		tb.Fatal(err)
	}
	return req
}

const shardXR = `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "Shard",
	"metadata": {"name": "shard-1", "namespace": "kcp"},
	"spec": {"rootShard": {"ref": {"name": "root"}}, "etcd": {"endpoints": ["http://etcd.kcp.svc.cluster.local:2379"], "prefix": "/shard-1"}}
}`

// placedShardXR runs in cluster B, with the URL the root shard reaches it by.
const placedShardXR = `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "Shard",
	"metadata": {"name": "shard-b", "namespace": "kcp"},
	"spec": {"rootShard": {"ref": {"name": "root"}}, "placement": {"providerConfigRef": {"name": "cluster-b"}},
		"shardBaseURL": "https://shard-b.cluster-b.example.com:6443",
		"etcd": {"endpoints": ["http://etcd.kcp.svc.cluster.local:2379"], "prefix": "/shard-b"}}
}`

const benchCacheServerXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"CacheServer","metadata":{"name":"cache","namespace":"kcp"},"spec":{"certificates":{"issuerRef":{"group":"cert-manager.io","kind":"ClusterIssuer","name":"kcp-selfsigned"}},"etcd":{"endpoints":["http://etcd.kcp.svc.cluster.local:2379"],"prefix":"/cache"}}}`

const benchVirtualWorkspaceXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"VirtualWorkspace","metadata":{"name":"root-vw","namespace":"kcp"},"spec":{"target":{"rootShardRef":{"name":"root"}},"external":{"hostname":"vw.example.com","port":6443}}}`

const benchFrontProxyXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"FrontProxy","metadata":{"name":"fp","namespace":"kcp"},"spec":{"rootShard":{"ref":{"name":"root"}},"external":{"hostname":"kcp.example.com","port":443}}}`

const benchKubeconfigXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"Kubeconfig","metadata":{"name":"admin","namespace":"kcp","uid":"kc-uid"},"spec":{"target":{"rootShardRef":{"name":"root"}},"username":"kcp-admin","groups":["system:kcp:admin"],"validity":"8760h","secretRef":{"name":"admin-kubeconfig"}}}`

const benchTenantXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"Tenant","metadata":{"name":"team-a","namespace":"kcp","uid":"tenant-uid"},"spec":{"frontProxy":{"ref":{"name":"fp"}},"clusterRoleBindings":[{"clusterRole":"admin","groups":["tenant:team-a:admins"]}]}}`

const benchSharedKubeconfigXR = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"Kubeconfig","metadata":{"name":"dev","namespace":"team-a","uid":"team-kc-uid"},"spec":{"target":{"frontProxyRef":{"name":"fp","namespace":"kcp"}},"username":"tenant:team-a:dev","groups":["tenant:team-a:admins"],"validity":"720h","secretRef":{"name":"dev-kubeconfig"}}}`

// tenantWorld is what a Tenant reads: its FrontProxy, that one's RootShard (home workspaces
// off, as a shared installation has them), and what the team's XRs, three Kubeconfigs and a
// Workspace in namespace team-a, ask for.
func tenantWorld(tb testing.TB) []map[string]any {
	out := []map[string]any{fnrequest.StructJSON(benchFrontProxyXR).AsMap(),
		{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard", "metadata": map[string]any{"name": "root", "namespace": "kcp"},
			"spec": map[string]any{"homeWorkspaces": map[string]any{"enabled": false}}}}
	var team []map[string]any
	for _, n := range []string{"dev", "ci", "ops"} {
		kc := fnrequest.StructJSON(benchSharedKubeconfigXR).AsMap()
		kc["metadata"] = map[string]any{"name": n, "namespace": "team-a"}
		team = append(team, kc)
	}
	team = append(team, map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Workspace",
		"metadata": map[string]any{"name": "app", "namespace": "team-a"},
		"spec":     map[string]any{"rootShard": map[string]any{"ref": map[string]any{"name": "root", "namespace": "kcp"}}}})
	// The Tenant reads what they ask for, their TenantRequests.
	return append(out, teamRequests(tb, team)...)
}

// sharedKubeconfigWorld is what a team's Kubeconfig of a shared installation reads: the
// Tenant that grants it, the Kubeconfig the Tenant composed for it and that one's Secret.
func sharedKubeconfigWorld() []map[string]any {
	controlled := func(kind, name, uid string) []any {
		return []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": kind, "name": name, "uid": uid, "controller": true}}
	}
	return []map[string]any{
		{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant",
			"metadata": map[string]any{"name": "team-a", "namespace": "kcp", "uid": "tenant-uid"},
			"spec":     map[string]any{"frontProxy": map[string]any{"ref": map[string]any{"name": "fp"}}},
			"status":   map[string]any{"members": []any{map[string]any{"kind": "Kubeconfig", "name": "dev", "granted": true, "ready": true}}}},
		{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig",
			"metadata": map[string]any{"name": "team-a.dev", "namespace": "kcp", "uid": "issued-uid", "ownerReferences": controlled("Tenant", "team-a", "tenant-uid"),
				"labels": map[string]any{"kcp.crossplane.io/tenant": "team-a", "kcp.crossplane.io/team-namespace": "team-a", "kcp.crossplane.io/team-xr": "dev"}}},
		{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "team-a.dev-kubeconfig", "namespace": "kcp", "ownerReferences": controlled("Kubeconfig", "team-a.dev", "issued-uid")},
			"data":     map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString([]byte("kubeconfig of team-a:dev"))}},
	}
}

func secretWith(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": "kcp"},
		"data":     map[string]any{"tls.crt": base64.StdEncoding.EncodeToString([]byte(name)), "kubeconfig": base64.StdEncoding.EncodeToString([]byte(name))}}
}

// rootShardWorld is what a Shard reads from its installation: the RootShard and its CAs.
func rootShardWorld(tb testing.TB) []map[string]any {
	rs := fnrequest.StructJSON(basicXR).AsMap()
	out := []map[string]any{rs}
	for _, ca := range []string{"root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca", "root-service-account-ca"} {
		out = append(out, secretWith(ca))
	}
	return out
}

// referenceWorld is rootShardWorld with the RootShard's reference Secret root-reference,
// as it publishes it, in place of the RootShard XR: what a Shard or FrontProxy naming it by
// spec.rootShard.secretRef reads.
func referenceWorld(tb testing.TB) []map[string]any {
	w := rootShardWorld(tb)
	rs := &v1alpha1.RootShard{}
	b, _ := json.Marshal(w[0])
	if err := json.Unmarshal(b, rs); err != nil {
		tb.Fatal(err)
	}
	r := reference.OfRootShard(rs, "kcp", "")
	r.CA, r.ClientCA = testworld.CAPEM(), testworld.CAPEM()
	data := map[string]any{}
	for k, v := range r.Data() {
		data[k] = base64.StdEncoding.EncodeToString(v)
	}
	w[0] = map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "root-reference", "namespace": "kcp"}, "data": data}
	return w
}

// bySecretRef is xr (a Shard or FrontProxy) naming its RootShard by root-reference.
func bySecretRef(xr string) string {
	xr = strings.Replace(xr, `"rootShard": {"ref": {"name": "root"}}`, `"rootShard": {"secretRef": {"name": "root-reference"}}`, 1)
	return strings.Replace(xr, `"rootShard":{"ref":{"name":"root"}}`, `"rootShard":{"secretRef":{"name":"root-reference"}}`, 1)
}

// placedRootShardWorld is rootShardWorld with a RootShard that other clusters reach.
func placedRootShardWorld(tb testing.TB) []map[string]any {
	w := rootShardWorld(tb)
	w[0]["spec"].(map[string]any)["shardBaseURL"] = "https://root.cluster-a.example.com:6443"
	return w
}

func TestConvergedShardComposesWorkload(t *testing.T) {
	rsp := run(t, convergedRequest(t, shardXR, rootShardWorld(t)...))
	if _, ok := rsp.GetDesired().GetResources()["deployment-shard-kcp"]; !ok {
		t.Errorf("converged Shard must compose its Deployment; results: %v", rsp.GetResults())
	}
	// kcp-operator's objects with its PodDisruptionBudget, the 7 Certificates in one
	// CertificateSet.
	if got := len(rsp.GetDesired().GetResources()); got != 7 {
		t.Errorf("converged Shard composes %d resources, want 7 (its Certificates in one CertificateSet, with its PodDisruptionBudget)", got)
	}
}

func TestConvergedSecretRefComposesWorkloads(t *testing.T) {
	for xr, want := range map[string]string{bySecretRef(shardXR): "deployment-shard-kcp", bySecretRef(benchFrontProxyXR): "deployment-front-proxy"} {
		rsp := run(t, convergedRequest(t, xr, referenceWorld(t)...))
		if _, ok := rsp.GetDesired().GetResources()[want]; !ok || !strings.Contains(xr, "secretRef") {
			t.Errorf("converged XR naming its RootShard by its reference Secret must compose %s; results: %v", want, rsp.GetResults())
		}
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
	for _, k := range []string{"deployment-kcp", "deployment-proxy", "service-kcp", "service-proxy", "secret-proxy-merged-client-ca", "poddisruptionbudget-kcp", "poddisruptionbudget-proxy"} {
		if _, ok := rsp.GetDesired().GetResources()[k]; !ok {
			t.Errorf("converged basic RootShard must compose %s", k)
		}
	}
	// What kcp-operator composes (31), its 15 Certificates and 5 Issuers in three
	// CertificateSets, the ProviderConfig and credentials through which
	// provider-kubernetes acts in workspace root, and its reference: 31 - 20 + 3 + 2 + 1.
	if got := len(rsp.GetDesired().GetResources()); got != 17 {
		t.Errorf("converged basic RootShard composes %d resources, want 17", got)
	}
	if rsp.GetDesired().GetComposite().GetReady() == fnv1.Ready_READY_FALSE {
		t.Errorf("converged XR must not be forced not ready")
	}
}

// benchCase is one RunFunction input of the benchmarks.
type benchCase struct {
	name string
	req  *fnv1.RunFunctionRequest
	// xr and world are set for converged inputs: what convergedRequest built req from.
	xr    string
	world []map[string]any
	// refused inputs compose nothing: the function refuses them.
	refused bool
	// next is the request Crossplane sends after a response to req: fnrequest.Next, or
	// NextAnswered for XRs that read across namespaces.
	next func(xr string, rsp *fnv1.RunFunctionResponse, world ...map[string]any) (*fnv1.RunFunctionRequest, error)
}

// converged reports whether c is a converged input (TestAllocationBudgets holds each to its
// budget).
func (c benchCase) converged() bool { return c.xr != "" }

// benchCases are realistic inputs per kind and state: fresh (nothing composed yet) and
// converged (every certificate issued, every workload up, every composed XR Ready).
func benchCases(b testing.TB) []benchCase {
	allFeatures, allFeaturesWorld := exampleXR(b, "custom-ca", "RootShard")
	installation, _ := exampleXR(b, "installation", "KcpInstallation")
	hundred := installationWithShards(b, installation, 100)
	ten := installationWithShards(b, installation, 10)
	largest := hostileInstallation(maxShards, maxPullSecrets, "ghcr.io/kcp-dev/kcp")
	converged := func(name, xr string, world ...map[string]any) benchCase {
		return benchCase{name: name, req: convergedRequest(b, xr, world...), xr: xr, world: world, next: fnrequest.Next}
	}
	answered := func(name, xr string, world ...map[string]any) benchCase {
		f := newFunction(logging.NewNopLogger(), breaker{})
		req, err := fnrequest.ConvergedAnswered(func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
			return f.RunFunction(context.Background(), req)
		}, xr, world...)
		if err != nil {
			b.Fatal(err)
		}
		return benchCase{name: name, req: req, xr: xr, world: world, next: fnrequest.NextAnswered}
	}
	return []benchCase{
		{name: "RootShard/Fresh", req: newRequest(basicXR)},
		converged("RootShard/Converged", basicXR),
		{name: "RootShard/AllFeatures/Fresh", req: withWorld(b, newRequest(allFeatures), allFeaturesWorld)},
		converged("RootShard/AllFeatures/Converged", allFeatures, allFeaturesWorld...),
		converged("Shard/Converged", shardXR, rootShardWorld(b)...),
		converged("Shard/Placed/Converged", placedShardXR, placedRootShardWorld(b)...),
		converged("Shard/SecretRef/Converged", bySecretRef(shardXR), referenceWorld(b)...),
		converged("CacheServer/Converged", benchCacheServerXR),
		converged("VirtualWorkspace/Converged", benchVirtualWorkspaceXR,
			append(rootShardWorld(b), secretWith("root-logical-cluster-admin-kubeconfig"))...),
		converged("FrontProxy/Converged", benchFrontProxyXR, rootShardWorld(b)...),
		converged("FrontProxy/SecretRef/Converged", bySecretRef(benchFrontProxyXR), referenceWorld(b)...),
		converged("Kubeconfig/Converged", benchKubeconfigXR, kubeconfigWorld(b)...),
		answered("Kubeconfig/Shared/Converged", benchSharedKubeconfigXR, sharedKubeconfigWorld()...),
		answered("Tenant/Converged", benchTenantXR, tenantWorld(b)...),
		answered("PublishedAPI/Converged", publishedAPIXR("kcp", databasesResource), publishingWorld(b)...),
		{name: "KcpInstallation/Fresh", req: newRequest(installation)},
		converged("KcpInstallation/Converged", installation),
		converged("KcpInstallation/10Shards/Converged", ten),
		{name: "KcpInstallation/100Shards/Fresh", req: newRequest(hundred)},
		converged("KcpInstallation/100Shards/Converged", hundred),
		// The largest installation the XRD admits, and the finding of issue 19 that made
		// 136 MB responses: refused before anything is composed.
		{name: "KcpInstallation/LargestAdmitted/Fresh", req: newRequest(largest)},
		converged("KcpInstallation/LargestAdmitted/Converged", largest),
		{name: "KcpInstallation/Oversized/Refused", req: newRequest(hostileInstallation(100, 5000, "ghcr.io/kcp-dev/kcp")), refused: true},
	}
}

// BenchmarkRunFunction measures one RunFunction call per input: `make bench` prints the
// table. Besides ns/op, B/op and allocs/op it reports the request and response sizes, and
// floor-ns: the time to unmarshal the request and marshal the response protobufs, what any
// function handling these messages must spend; x-floor is ns/op divided by it.
func BenchmarkRunFunction(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			f := newFunction(logging.NewNopLogger(), breaker{})
			rsp, err := f.RunFunction(context.Background(), c.req)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.RunFunction(context.Background(), c.req); err != nil {
					b.Fatal(err)
				}
			}
			nsPerOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			floor := protobufFloor(b, c.req, rsp)
			// After the loop: resetting the timer would drop metrics reported earlier.
			b.ReportMetric(float64(proto.Size(rsp)), "response-bytes")
			b.ReportMetric(float64(proto.Size(c.req)), "request-bytes")
			b.ReportMetric(floor, "floor-ns")
			b.ReportMetric(nsPerOp/floor, "x-floor")
		})
	}
}

// protobufFloor is the mean time, in ns, to unmarshal req's wire form and marshal rsp.
func protobufFloor(b *testing.B, req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse) float64 {
	b.Helper()
	wire, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	round := func() {
		var in fnv1.RunFunctionRequest
		if err := proto.Unmarshal(wire, &in); err != nil {
			b.Fatal(err)
		}
		if _, err := proto.Marshal(rsp); err != nil {
			b.Fatal(err)
		}
	}
	for range 10 { // warm up
		round()
	}
	// At least 200 rounds and 200 ms, so that the floor is as steady as the benchmark.
	start := time.Now()
	rounds := 0
	for rounds < 200 || time.Since(start) < 200*time.Millisecond {
		round()
		rounds++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(rounds)
}

// exampleXR reads examples/<example> as the render harness does: the first XR of kind, as
// JSON, and the example's Secrets and ConfigMaps (its testdata fixtures included) as the
// world it is offered, stringData folded into data as the API server does.
func exampleXR(b testing.TB, example, kind string) (string, []map[string]any) {
	b.Helper()
	ex, err := render.LoadExample(filepath.Join("..", "..", "examples", example))
	if err != nil {
		b.Fatal(err)
	}
	var xr string
	for _, o := range ex.XRs {
		if o.GetKind() == kind && xr == "" {
			j, err := json.Marshal(o.Object)
			if err != nil {
				b.Fatal(err)
			}
			xr = string(j)
		}
	}
	if xr == "" {
		b.Fatalf("examples/%s has no %s", example, kind)
	}
	var world []map[string]any
	for _, o := range ex.Environment {
		if o.GetKind() != "Secret" && o.GetKind() != "ConfigMap" {
			continue
		}
		obj := o.DeepCopy().Object
		if sd, ok := obj["stringData"].(map[string]any); ok {
			data := map[string]any{}
			for k, v := range sd {
				data[k] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
			}
			delete(obj, "stringData")
			obj["data"] = data
		}
		world = append(world, obj)
	}
	return xr, world
}

// installationWithShards adds n shards to a KcpInstallation.
func installationWithShards(b testing.TB, xr string, n int) string {
	b.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(xr), &obj); err != nil {
		b.Fatal(err)
	}
	shards := make([]any, 0, n)
	for i := range n {
		shards = append(shards, map[string]any{"name": fmt.Sprintf("s%03d", i)})
	}
	obj["spec"].(map[string]any)["shards"] = shards
	out, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	return string(out)
}

// withWorld offers the objects as required resources, as convergedRequest does.
func withWorld(b testing.TB, req *fnv1.RunFunctionRequest, world []map[string]any) *fnv1.RunFunctionRequest {
	b.Helper()
	req, err := fnrequest.WithWorld(req, world)
	if err != nil {
		b.Fatal(err)
	}
	return req
}
