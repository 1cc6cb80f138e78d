package main

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

func TestTTL(t *testing.T) {
	set := func(ready ...resource.Ready) desired.Set {
		var s desired.Set
		for i, r := range ready {
			s.Add(resource.Name(string(rune('a'+i))), &corev1.ConfigMap{}, r)
		}
		return s
	}
	ok := condition.Condition{Type: condition.TypeAvailable, Status: true}
	notOK := condition.Condition{Type: condition.TypeAvailable, Status: false}
	cases := map[string]struct {
		reason string
		out    result.Result[any]
		// dropping is whether Crossplane's circuit breaker may drop the XR's watch events.
		dropping bool
		// watched is what Crossplane watches of the XR's inputs (inputsWatched).
		watched bool
		want    time.Duration
	}{
		"SettledWatched": {
			reason:  "Settled, and Crossplane watches everything the XR read: a change reconciles it at once, so it is quiet for an hour.",
			out:     result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok}},
			watched: true,
			want:    watchedTTL,
		},
		"SettlingWatched": {
			reason:  "Still settling: called again soon, watched or not (a watch event may be dropped).",
			out:     result.Result[any]{Desired: set(resource.ReadyFalse), Conditions: []condition.Condition{ok}},
			watched: true,
			want:    settlingTTL,
		},
		"CircuitOpenWatched": {
			reason:   "Crossplane drops the XR's watch events: watching does not help.",
			out:      result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok}},
			dropping: true,
			watched:  true,
			want:     settlingTTL,
		},
		"Settled": {
			reason: "Every condition True and every resource ready, and Crossplane does not watch what the XR read: the SDK's default minute.",
			out:    result.Result[any]{Desired: set(resource.ReadyTrue, resource.ReadyTrue), Conditions: []condition.Condition{ok}},
			want:   responseTTL,
		},
		"ForcedNotReady": {
			reason: "A workload not composed yet: called again soon, whatever Crossplane's watches let through.",
			out:    result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok}, NotReady: true},
			want:   settlingTTL,
		},
		"ConditionFalse": {
			reason: "A False condition (a certificate being issued, an input missing) means the XR is still settling.",
			out:    result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok, notOK}},
			want:   settlingTTL,
		},
		"ResourceNotReady": {
			reason: "A composed resource not ready yet, e.g. a Deployment rolling out.",
			out:    result.Result[any]{Desired: set(resource.ReadyTrue, resource.ReadyFalse), Conditions: []condition.Condition{ok}},
			want:   settlingTTL,
		},
		"NothingComposed": {
			reason: "An XR that composes nothing and reports no condition is settled.",
			out:    result.Result[any]{},
			want:   responseTTL,
		},
		"CircuitOpen": {
			reason:   "Settled, but Crossplane drops the XR's watch events: a renewal must not wait for the next minute.",
			out:      result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok}},
			dropping: true,
			want:     settlingTTL,
		},
		"SettlingCircuitOpen": {
			reason:   "Settling while Crossplane drops the XR's watch events: the Deployment becoming available must not wait for settlingTTL.",
			out:      result.Result[any]{Desired: set(resource.ReadyFalse), Conditions: []condition.Condition{ok}},
			dropping: true,
			want:     blindSettlingTTL,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			asked := false
			got := ttl(tc.out, tc.dropping, func() bool { asked = true; return tc.watched })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nttl(...): -want, +got:\n%s", tc.reason, diff)
			}
			// Hashing the request costs a marshal: only a settled XR asks.
			if asked && got != watchedTTL && got != responseTTL {
				t.Errorf("%s\nttl(...) asked whether the inputs are watched for a TTL of %s", tc.reason, got)
			}
		})
	}
}

func TestCompositeReady(t *testing.T) {
	rsp := func(ready ...fnv1.Ready) *fnv1.RunFunctionResponse {
		r := &fnv1.RunFunctionResponse{Desired: &fnv1.State{Resources: map[string]*fnv1.Resource{}}}
		for i, x := range ready {
			r.Desired.Resources[string(rune('a'+i))] = &fnv1.Resource{Ready: x}
		}
		return r
	}
	cases := map[string]struct {
		reason   string
		rsp      *fnv1.RunFunctionResponse
		notReady bool
		want     fnv1.Ready
	}{
		"AllReady": {
			reason: "Every resource ready: the XR is said ready, so Crossplane need not work it out.",
			rsp:    rsp(fnv1.Ready_READY_TRUE, fnv1.Ready_READY_TRUE),
			want:   fnv1.Ready_READY_TRUE,
		},
		"OneNotReady": {
			reason: "One resource not ready: the XR is not ready, with no list of names to churn in its condition.",
			rsp:    rsp(fnv1.Ready_READY_TRUE, fnv1.Ready_READY_FALSE),
			want:   fnv1.Ready_READY_FALSE,
		},
		"Forced": {
			reason: "The composition forces the XR not ready although every resource it returned is ready.",
			rsp:    rsp(fnv1.Ready_READY_TRUE),
			want:   fnv1.Ready_READY_FALSE, notReady: true,
		},
		"EarlierStepUnspecified": {
			reason: "An earlier pipeline step left a resource's readiness to Crossplane: so is the XR's.",
			rsp:    rsp(fnv1.Ready_READY_TRUE, fnv1.Ready_READY_UNSPECIFIED),
			want:   fnv1.Ready_READY_UNSPECIFIED,
		},
		"UnspecifiedAndNotReady": {
			reason: "A resource known not ready decides, whatever another leaves to Crossplane.",
			rsp:    rsp(fnv1.Ready_READY_UNSPECIFIED, fnv1.Ready_READY_FALSE),
			want:   fnv1.Ready_READY_FALSE,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, compositeReady(tc.rsp, tc.notReady)); diff != "" {
				t.Errorf("%s\ncompositeReady(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestInputsWatched(t *testing.T) {
	// tagged is a request as Crossplane sends it: tagged with the SHA-256 of its deterministic
	// protobuf without meta, then mod applied, then encoded for the wire and decoded.
	tagged := func(mod func(*fnv1.RunFunctionRequest)) *fnv1.RunFunctionRequest {
		xr, _ := structpb.NewStruct(map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard", "metadata": map[string]any{"name": "root", "namespace": "kcp"}})
		secret, _ := structpb.NewStruct(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "ca"}, "data": map[string]any{"tls.crt": "Y2E=", "a": "b", "z": "y"}})
		req := &fnv1.RunFunctionRequest{
			Observed:          &fnv1.State{Composite: &fnv1.Resource{Resource: xr}},
			RequiredResources: map[string]*fnv1.Resources{"secret/ca": {Items: []*fnv1.Resource{{Resource: secret}}}, "secret/other": {}},
		}
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
		sum := sha256.Sum256(b)
		req.Meta = &fnv1.RequestMeta{Tag: hex.EncodeToString(sum[:]), Capabilities: []fnv1.Capability{fnv1.Capability_CAPABILITY_REQUIRED_RESOURCES}}
		if mod != nil {
			mod(req)
		}
		wire, _ := proto.Marshal(req)
		out := &fnv1.RunFunctionRequest{}
		_ = proto.Unmarshal(wire, out)
		return out
	}
	cases := map[string]struct {
		reason string
		req    *fnv1.RunFunctionRequest
		want   bool
	}{
		"SeededAndTagged": {
			reason: "Crossplane v2.4 seeds what the XR required last time, then tags: the tag covers every resource the request carries, all of them watched.",
			req:    tagged(nil),
			want:   true,
		},
		"FetchedAfterTagging": {
			reason: "Crossplane v2.3 (or v2.4 when the requirements changed) fetches required resources after tagging the first call: they may not be watched.",
			req: tagged(func(r *fnv1.RunFunctionRequest) {
				r.RequiredResources["rootshard/kcp/root"] = &fnv1.Resources{}
			}),
		},
		"ChangedAfterTagging": {
			reason: "A resource fetched again after tagging, with other content, is not what the tag covers.",
			req: tagged(func(r *fnv1.RunFunctionRequest) {
				r.RequiredResources["secret/ca"] = &fnv1.Resources{}
			}),
		},
		"NoTag": {
			reason: "A request without a tag (crossplane composition render, an older Crossplane) says nothing of watches.",
			req:    tagged(func(r *fnv1.RunFunctionRequest) { r.Meta.Tag = "" }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			meta := tc.req.GetMeta()
			if got := inputsWatched(tc.req); got != tc.want {
				t.Errorf("%s\ninputsWatched(...) = %v, want %v", tc.reason, got, tc.want)
			}
			if tc.req.GetMeta() != meta {
				t.Errorf("%s\ninputsWatched(...) did not put the request's meta back", tc.reason)
			}
		})
	}
}

func TestObservedNamespace(t *testing.T) {
	cases := map[string]string{
		"Namespaced":    `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"name":"root","namespace":"kcp"}}`,
		"ClusterScoped": `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"name":"root"}}`,
		"NoMetadata":    `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard"}`,
		"NotAString":    `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"namespace":3}}`,
	}
	for name, xr := range cases {
		t.Run(name, func(t *testing.T) {
			req := &fnv1.RunFunctionRequest{Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: fnrequest.StructJSON(xr)}}}
			if got, want := observedNamespace(req), observedXR(req).GetNamespace(); got != want {
				t.Errorf("observedNamespace(...) = %q, want the converted XR's %q", got, want)
			}
		})
	}
	if got := observedNamespace(&fnv1.RunFunctionRequest{}); got != "" {
		t.Errorf("observedNamespace of a request without an XR = %q, want \"\"", got)
	}
}
