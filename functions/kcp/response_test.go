package main

import (
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	sdkresource "github.com/crossplane/function-sdk-go/resource"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
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
	xr := func(conditions ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conditions}}}
	}
	responsive := func(status string) any { return map[string]any{"type": "Responsive", "status": status} }
	cases := map[string]struct {
		reason string
		out    result.Result[any]
		xr     *unstructured.Unstructured
		want   time.Duration
	}{
		"Settled": {
			reason: "Every condition True and every resource ready: the SDK's default minute.",
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
			reason: "Settled, but Crossplane drops the XR's watch events: a renewal must not wait for the next minute.",
			out:    result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok}},
			xr:     xr(map[string]any{"type": "Ready", "status": "True"}, responsive("False")),
			want:   settlingTTL,
		},
		"SettlingCircuitOpen": {
			reason: "Settling while Crossplane drops the XR's watch events: the Deployment becoming available must not wait for settlingTTL.",
			out:    result.Result[any]{Desired: set(resource.ReadyFalse), Conditions: []condition.Condition{ok}},
			xr:     xr(responsive("False")),
			want:   blindSettlingTTL,
		},
		"CircuitClosed": {
			reason: "Settled and every watch event gets through.",
			out:    result.Result[any]{Desired: set(resource.ReadyTrue), Conditions: []condition.Condition{ok}},
			xr:     xr(responsive("True")),
			want:   responseTTL,
		},
		"MalformedConditions": {
			reason: "Conditions that are not objects say nothing about the circuit breaker.",
			out:    result.Result[any]{},
			xr:     xr("Responsive"),
			want:   responseTTL,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.xr == nil {
				tc.xr = xr()
			}
			if diff := cmp.Diff(tc.want, ttl(tc.out, tc.xr)); diff != "" {
				t.Errorf("%s\nttl(...): -want, +got:\n%s", tc.reason, diff)
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

func TestObservedNamespace(t *testing.T) {
	cases := map[string]string{
		"Namespaced":    `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"name":"root","namespace":"kcp"}}`,
		"ClusterScoped": `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"name":"root"}}`,
		"NoMetadata":    `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard"}`,
		"NotAString":    `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"namespace":3}}`,
	}
	for name, xr := range cases {
		t.Run(name, func(t *testing.T) {
			req := &fnv1.RunFunctionRequest{Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: sdkresource.MustStructJSON(xr)}}}
			if got, want := observedNamespace(req), observedXR(req).GetNamespace(); got != want {
				t.Errorf("observedNamespace(...) = %q, want the converted XR's %q", got, want)
			}
		})
	}
	if got := observedNamespace(&fnv1.RunFunctionRequest{}); got != "" {
		t.Errorf("observedNamespace of a request without an XR = %q, want \"\"", got)
	}
}
