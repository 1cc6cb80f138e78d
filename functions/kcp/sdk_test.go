//go:build !fuzz

package main

import (
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	sdkresource "github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/crossplane/function-sdk-go/response"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// The one test that links function-sdk-go's resource and response packages, and through them
// client-go: the fuzz binary (make fuzz, built with -tags fuzz) leaves it out, since fuzzing
// instruments every package the binary links and client-go doubles what a first run compiles.

// TestResponseMatchesComposed holds the response's desired resources, written straight to
// protobuf (desired.Set.Resources), to what function-sdk-go's response package writes from the
// unstructured objects (desired.Set.Composed), for every object every benchmark input composes.
func TestResponseMatchesComposed(t *testing.T) {
	table := newTable()
	for _, c := range benchCases(t) {
		if c.refused {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			xr := observedXR(c.req)
			st := observe(c.req, xr.Object)
			out, err := table[xr.GetKind()].compose(xr.GetKind(), xr.Object, st)
			if err != nil {
				t.Fatal(err)
			}
			out.Desired.WithholdNewKinds(st.ComposedKinds(), st.Exists) // as RunFunction does
			dcds, err := out.Desired.Composed()
			if err != nil {
				t.Fatal(err)
			}
			sdkReady := map[resource.Ready]sdkresource.Ready{
				resource.ReadyUnspecified: sdkresource.ReadyUnspecified, resource.ReadyTrue: sdkresource.ReadyTrue, resource.ReadyFalse: sdkresource.ReadyFalse,
			}
			sdk := map[sdkresource.Name]*sdkresource.DesiredComposed{}
			for name, dc := range dcds {
				sdk[sdkresource.Name(name)] = &sdkresource.DesiredComposed{Resource: &composed.Unstructured{Unstructured: *dc.Resource}, Ready: sdkReady[dc.Ready]}
			}
			want := &fnv1.RunFunctionResponse{}
			if err := response.SetDesiredComposedResources(want, sdk); err != nil {
				t.Fatal(err)
			}
			got := run(t, c.req)
			if len(dcds) == 0 {
				t.Fatal("the input composes nothing: nothing to compare")
			}
			if diff := cmp.Diff(want.GetDesired().GetResources(), got.GetDesired().GetResources(), protocmp.Transform()); diff != "" {
				t.Errorf("desired resources: -SDK from Composed(), +response:\n%s", diff)
			}
		})
	}
}
