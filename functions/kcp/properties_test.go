package main

import (
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// TestSameRequestSameResponse: Crossplane applies whatever the function returns, so a
// response that varied with map order or time would rewrite composed objects, and roll pods,
// on every reconcile. For every benchmark input, of every kind, fresh and converged, repeated
// calls give byte-identical responses.
func TestSameRequestSameResponse(t *testing.T) {
	for _, c := range benchCases(t) {
		t.Run(c.name, func(t *testing.T) {
			first := deterministicBytes(t, run(t, proto.Clone(c.req).(*fnv1.RunFunctionRequest)))
			for range 10 {
				if again := deterministicBytes(t, run(t, proto.Clone(c.req).(*fnv1.RunFunctionRequest))); string(again) != string(first) {
					t.Fatal("the same request gave a different response")
				}
			}
		})
	}
}

// TestConvergedIsAFixedPoint: once everything is issued, up and Ready, reconciling again
// changes nothing. The converged response fed back as observed state (c.next, as the
// controllers would leave it) gives the same desired objects, XR status and conditions: the
// function does not churn what it composed.
func TestConvergedIsAFixedPoint(t *testing.T) {
	for _, c := range benchCases(t) {
		if !c.converged() {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			before := run(t, proto.Clone(c.req).(*fnv1.RunFunctionRequest))
			next, err := c.next(c.xr, before, c.world...)
			if err != nil {
				t.Fatal(err)
			}
			after := run(t, next)
			if diff := cmp.Diff(before.GetDesired(), after.GetDesired(), protocmp.Transform()); diff != "" {
				t.Errorf("reconciling a converged XR changed what it desires: -before, +after:\n%s", diff)
			}
			if diff := cmp.Diff(before.GetConditions(), after.GetConditions(), protocmp.Transform()); diff != "" {
				t.Errorf("reconciling a converged XR changed its conditions: -before, +after:\n%s", diff)
			}
			if diff := cmp.Diff(before.GetRequirements(), after.GetRequirements(), protocmp.Transform()); diff != "" {
				t.Errorf("reconciling a converged XR changed its requirements: -before, +after:\n%s", diff)
			}
		})
	}
}

func deterministicBytes(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
