package main

import (
	"sort"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
)

func frontProxyXR(spec string) string {
	return `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "FrontProxy",
	"metadata": {"name": "fp", "namespace": "kcp"},
	"spec": ` + spec + `
}`
}

func TestRunFunctionFrontProxyFatal(t *testing.T) {
	fatal := func(msg string) *fnv1.RunFunctionResponse {
		return &fnv1.RunFunctionResponse{
			Meta:    &fnv1.ResponseMeta{Tag: "t", Ttl: durationpb.New(60_000_000_000)},
			Results: []*fnv1.Result{{Severity: fnv1.Severity_SEVERITY_FATAL, Message: msg, Target: fnv1.Target_TARGET_COMPOSITE.Enum()}},
		}
	}
	cases := map[string]struct {
		reason string
		xr     string
		want   *fnv1.RunFunctionResponse
	}{
		"NoRootShard": {
			reason: "A FrontProxy serves a RootShard: Fatal naming the field, nothing composed.",
			xr:     frontProxyXR(`{"rootShard": {}}`),
			want:   fatal("invalid FrontProxy kcp/fp, nothing was changed: spec.rootShard.ref.name: Required value: name the RootShard (in the same namespace) this front-proxy serves, or set secretRef to its reference Secret"),
		},
		"BothHostnames": {
			reason: "The deprecated externalHostname and external.hostname exclude each other.",
			xr:     frontProxyXR(`{"rootShard": {"ref": {"name": "root"}}, "externalHostname": "old.example.com", "external": {"hostname": "kcp.example.com", "port": 443}}`),
			want:   fatal("invalid FrontProxy kcp/fp, nothing was changed: spec.externalHostname: Forbidden: cannot set both externalHostname (deprecated) and external.hostname; use external.hostname and external.port only"),
		},
		"OIDCWithoutServiceAccounts": {
			reason: "OIDC requires service account authentication.",
			xr:     frontProxyXR(`{"rootShard": {"ref": {"name": "root"}}, "auth": {"oidc": {"issuerURL": "https://idp.example.com", "clientID": "kcp"}}}`),
			want:   fatal("invalid FrontProxy kcp/fp, nothing was changed: spec.auth.serviceAccount.enabled: Required value: OIDC requires ServiceAccount auth to be enabled: set auth.serviceAccount.enabled to true"),
		},
		"WrongFieldType": {
			reason: "A field of the wrong type cannot be decoded.",
			xr:     frontProxyXR(`{"rootShard": {"ref": {"name": "root"}}, "replicas": "two"}`),
			want:   fatal("cannot decode FrontProxy: spec.replicas must be of type int32, not a JSON string"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, newRequest(tc.xr))
			if diff := cmp.Diff(tc.want, rsp, protocmp.Transform()); diff != "" {
				t.Errorf("%s\nf.RunFunction(...): -want rsp, +got rsp:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRunFunctionFrontProxy(t *testing.T) {
	t.Run("MissingRootShard", func(t *testing.T) {
		rsp := run(t, newRequest(benchFrontProxyXR))
		if n := len(rsp.GetDesired().GetResources()); n != 0 {
			t.Errorf("nothing is composed before the RootShard is known, got %d resources", n)
		}
		sel := rsp.GetRequirements().GetResources()["rootshard/root"]
		want := &fnv1.ResourceSelector{ApiVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard",
			Match: &fnv1.ResourceSelector_MatchName{MatchName: "root"}, Namespace: proto.String("kcp")}
		if diff := cmp.Diff(want, sel, protocmp.Transform()); diff != "" {
			t.Errorf("the RootShard is a required resource: -want, +got:\n%s", diff)
		}
		wantCond := []*fnv1.Condition{{
			Type: "InputsReady", Status: fnv1.Status_STATUS_CONDITION_FALSE, Reason: "Missing",
			Message: proto.String("RootShard root (spec.rootShard.ref.name) does not exist in namespace kcp; create it or fix the reference."),
			Target:  fnv1.Target_TARGET_COMPOSITE.Enum(),
		}}
		if diff := cmp.Diff(wantCond, rsp.GetConditions(), protocmp.Transform()); diff != "" {
			t.Errorf("-want, +got:\n%s", diff)
		}
		if rsp.GetDesired().GetComposite().GetReady() != fnv1.Ready_READY_FALSE {
			t.Errorf("a FrontProxy without its RootShard is not ready")
		}
	})

	t.Run("Converged", func(t *testing.T) {
		rsp := run(t, convergedRequest(t, benchFrontProxyXR, rootShardWorld(t)...))
		if len(rsp.GetResults()) != 0 {
			t.Errorf("a valid FrontProxy yields no results, got %v", rsp.GetResults())
		}
		var got []string
		for name := range rsp.GetDesired().GetResources() {
			got = append(got, name)
		}
		sort.Strings(got)
		want := []string{
			"certificate-root-fp-kubeconfig", "certificate-root-fp-requestheader", "certificate-root-fp-server",
			"configmap-config", "deployment-front-proxy", "poddisruptionbudget-front-proxy", "secret-merged-client-ca", "secret-reference", "secret-root-fp-dynamic-kubeconfig",
			"service-front-proxy",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("composed resources: -want, +got:\n%s", diff)
		}
		if r := rsp.GetDesired().GetComposite().GetReady(); r == fnv1.Ready_READY_FALSE {
			t.Errorf("a converged FrontProxy must not be forced not ready")
		}
		status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)
		if diff := cmp.Diff(map[string]any{"phase": "Running", "image": "ghcr.io/kcp-dev/kcp:v0.32.3", "url": "https://kcp.example.com:443", "availableReplicas": float64(2)}, status); diff != "" {
			t.Errorf("status: -want, +got:\n%s", diff)
		}
		for _, c := range rsp.GetConditions() {
			if c.GetStatus() != fnv1.Status_STATUS_CONDITION_TRUE {
				t.Errorf("condition %s is %v: %s", c.GetType(), c.GetStatus(), c.GetMessage())
			}
		}
		svc := rsp.GetDesired().GetResources()["service-front-proxy"].GetResource().AsMap()
		port := svc["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["port"]
		if port != float64(443) {
			t.Errorf("the Service listens on the external port 443, got %v", port)
		}
	})

	t.Run("ServiceAccountsReadEveryShard", func(t *testing.T) {
		xr := frontProxyXR(`{"rootShard": {"ref": {"name": "root"}}, "auth": {"serviceAccount": {"enabled": true}}}`)
		world := append(rootShardWorld(t), secretWith("root-service-account"))
		rsp := run(t, convergedRequest(t, xr, world...))
		sel := rsp.GetRequirements().GetResources()["shard/*"]
		want := &fnv1.ResourceSelector{ApiVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard",
			Match: &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{}}, Namespace: proto.String("kcp")}
		if diff := cmp.Diff(want, sel, protocmp.Transform()); diff != "" {
			t.Errorf("every Shard of the namespace is read: -want, +got:\n%s", diff)
		}
		if _, ok := rsp.GetDesired().GetResources()["deployment-front-proxy"]; !ok {
			t.Errorf("with the root shard's service account key the Deployment is composed; conditions: %v", rsp.GetConditions())
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		xr := frontProxyXR(`{"rootShard": {"ref": {"name": "root"}}, "auth": {"serviceAccount": {"enabled": true}},
			"additionalPathMappings": [{"path": "/x/", "backend": "https://x:6443", "backend_server_ca": "/ca", "proxy_client_cert": "/c", "proxy_client_key": "/k"}]}`)
		shard := func(name string) map[string]any {
			return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Shard",
				"metadata": map[string]any{"name": name, "namespace": "kcp"},
				"spec":     map[string]any{"rootShard": map[string]any{"ref": map[string]any{"name": "root"}}, "etcd": map[string]any{"endpoints": []any{"http://etcd:2379"}}}}
		}
		world := append(rootShardWorld(t), shard("beta"), shard("alpha"),
			secretWith("root-service-account"), secretWith("alpha-service-account"), secretWith("beta-service-account"))
		req := convergedRequest(t, xr, world...)
		first, err := proto.MarshalOptions{Deterministic: true}.Marshal(run(t, req))
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			again, err := proto.MarshalOptions{Deterministic: true}.Marshal(run(t, req))
			if err != nil {
				t.Fatal(err)
			}
			if string(first) != string(again) {
				t.Fatalf("the same request must give a byte-identical response")
			}
		}
	})
}
