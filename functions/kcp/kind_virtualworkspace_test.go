package main

import (
	"encoding/base64"
	"sort"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
)

func virtualWorkspaceXR(spec string) string {
	return `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "VirtualWorkspace",
	"metadata": {"name": "vw", "namespace": "kcp"},
	"spec": ` + spec + `
}`
}

const basicVirtualWorkspaceSpec = `{"target": {"rootShardRef": {"name": "root"}}, "external": {"hostname": "vw.example.com", "port": 443}}`

func TestRunFunctionVirtualWorkspaceFatal(t *testing.T) {
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
		"BothTargets": {
			reason: "Exactly one target: Fatal naming the field, nothing composed.",
			xr:     virtualWorkspaceXR(`{"target": {"rootShardRef": {"name": "root"}, "shardRef": {"name": "alpha"}}, "external": {"hostname": "vw.example.com", "port": 443}}`),
			want:   fatal("invalid VirtualWorkspace kcp/vw, nothing was changed: spec.target: Forbidden: set exactly one of rootShardRef and shardRef, not both"),
		},
		"DuplicateInitContainer": {
			reason: "Init container names are unique.",
			xr: virtualWorkspaceXR(`{"target": {"rootShardRef": {"name": "root"}}, "external": {"hostname": "vw.example.com", "port": 443},
				"initContainers": [{"name": "init"}, {"name": "init"}]}`),
			want: fatal(`invalid VirtualWorkspace kcp/vw, nothing was changed: spec.initContainers[1].name: Duplicate value: "init"`),
		},
		"WrongFieldType": {
			reason: "A field of the wrong type cannot be decoded.",
			xr:     virtualWorkspaceXR(`{"target": {"rootShardRef": {"name": "root"}}, "external": {"hostname": "vw.example.com", "port": 443}, "replicas": "two"}`),
			want:   fatal("cannot decode VirtualWorkspace: spec.replicas must be of type int32, not a JSON string"),
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

func TestRunFunctionVirtualWorkspace(t *testing.T) {
	xr := virtualWorkspaceXR(basicVirtualWorkspaceSpec)

	t.Run("MissingRootShard", func(t *testing.T) {
		rsp := run(t, newRequest(xr))
		if n := len(rsp.GetDesired().GetResources()); n != 0 {
			t.Errorf("nothing is composed before the RootShard is known, got %d resources", n)
		}
		sel := rsp.GetRequirements().GetResources()["rootshard/root"]
		want := &fnv1.ResourceSelector{ApiVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard",
			Match: &fnv1.ResourceSelector_MatchName{MatchName: "root"}, Namespace: proto.String("kcp")}
		if diff := cmp.Diff(want, sel, protocmp.Transform()); diff != "" {
			t.Errorf("the target RootShard is a required resource: -want, +got:\n%s", diff)
		}
		wantCond := []*fnv1.Condition{{
			Type: "InputsReady", Status: fnv1.Status_STATUS_CONDITION_FALSE, Reason: "Missing",
			Message: proto.String("RootShard root (spec.target.rootShardRef.name) does not exist in namespace kcp; create it or fix the reference."),
			Target:  fnv1.Target_TARGET_COMPOSITE.Enum(),
		}}
		if diff := cmp.Diff(wantCond, rsp.GetConditions(), protocmp.Transform()); diff != "" {
			t.Errorf("-want, +got:\n%s", diff)
		}
	})

	t.Run("Converged", func(t *testing.T) {
		world := append(rootShardWorld(t), map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "root-logical-cluster-admin-kubeconfig", "namespace": "kcp"},
			"data":     map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString([]byte("kubeconfig"))}})
		rsp := run(t, convergedRequest(t, xr, world...))

		if len(rsp.GetResults()) != 0 {
			t.Errorf("a valid VirtualWorkspace yields no results, got %v", rsp.GetResults())
		}
		var got []string
		for name := range rsp.GetDesired().GetResources() {
			got = append(got, name)
		}
		sort.Strings(got)
		want := []string{"certificate-client", "certificate-server", "deployment-virtual-workspace", "poddisruptionbudget-virtual-workspace", "service-virtual-workspace"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("composed resources: -want, +got:\n%s", diff)
		}
		if r := rsp.GetDesired().GetComposite().GetReady(); r == fnv1.Ready_READY_FALSE {
			t.Errorf("a converged VirtualWorkspace must not be forced not ready")
		}
		status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)
		if diff := cmp.Diff(map[string]any{"phase": "Running", "image": "ghcr.io/kcp-dev/kcp:v0.32.3", "url": "https://vw.example.com:443"}, status); diff != "" {
			t.Errorf("status: -want, +got:\n%s", diff)
		}
		for _, c := range rsp.GetConditions() {
			if c.GetStatus() != fnv1.Status_STATUS_CONDITION_TRUE {
				t.Errorf("condition %s is %v: %s", c.GetType(), c.GetStatus(), c.GetMessage())
			}
		}
		dep := rsp.GetDesired().GetResources()["deployment-virtual-workspace"].GetResource().AsMap()
		container := dep["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		if diff := cmp.Diff([]any{"/virtual-workspaces"}, container["command"]); diff != "" {
			t.Errorf("command: -want, +got:\n%s", diff)
		}
	})
}
