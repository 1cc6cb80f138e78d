package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// The fuzz targets feed RunFunction arbitrary XRs of one kind with arbitrary observed and
// required state. Whatever they hold, the function must answer: no panic, no hang, no Go
// error, and every Fatal or Warning result says what is wrong. `make test` runs each target
// briefly (FUZZ_TIME), `make fuzz` for longer; the seeds, from the examples and the
// benchmarks' converged requests, run with every `go test`.

// fuzzWorld is the observed state a fuzz input carries besides the XR: the composed
// resources by name and the required resources by requirement key.
type fuzzWorld struct {
	Composed map[string]map[string]any   `json:"composed,omitempty"`
	Required map[string][]map[string]any `json:"required,omitempty"`
}

// fuzzRunTimeout is how long one input may take: the slowest realistic input, an installation
// with 100 shards, takes 5 ms.
const fuzzRunTimeout = 10 * time.Second

func FuzzRootShard(f *testing.F)              { fuzzKind(f, "RootShard") }
func FuzzShard(f *testing.F)                  { fuzzKind(f, "Shard") }
func FuzzCacheServer(f *testing.F)            { fuzzKind(f, "CacheServer") }
func FuzzVirtualWorkspace(f *testing.F)       { fuzzKind(f, "VirtualWorkspace") }
func FuzzFrontProxy(f *testing.F)             { fuzzKind(f, "FrontProxy") }
func FuzzKubeconfig(f *testing.F)             { fuzzKind(f, "Kubeconfig") }
func FuzzKcpInstallation(f *testing.F)        { fuzzKind(f, "KcpInstallation") }
func FuzzClaimedKcpInstallation(f *testing.F) { fuzzKind(f, "ClaimedKcpInstallation") }
func FuzzPublishedAPI(f *testing.F)           { fuzzKind(f, "PublishedAPI") }

// fuzzKind seeds a target with every realistic request of the kind (fresh and converged) and
// checks what RunFunction answers to each input. The input's apiVersion and kind are forced
// to the kind's so every input reaches its composer.
func fuzzKind(f *testing.F, kind string) {
	for _, req := range fuzzSeeds(f, kind) {
		xr, world := fuzzInput(f, req)
		f.Add(xr, world)
	}
	f.Fuzz(func(t *testing.T, xrJSON, worldJSON []byte) {
		req, ok := fuzzRequest(kind, xrJSON, worldJSON)
		if !ok {
			t.Skip("not a JSON object")
		}
		rsp := runWithin(t, req, fuzzRunTimeout)
		for _, r := range rsp.GetResults() {
			switch r.GetSeverity() {
			case fnv1.Severity_SEVERITY_FATAL, fnv1.Severity_SEVERITY_WARNING:
				if strings.TrimSpace(r.GetMessage()) == "" {
					t.Errorf("a %s result without a message", r.GetSeverity())
				}
			}
			leaks(t, "result", r.GetMessage())
		}
		for _, c := range rsp.GetConditions() {
			leaks(t, "condition "+c.GetType(), c.GetMessage())
		}
	})
}

// runWithin calls RunFunction and fails the input if it returns a Go error or takes longer
// than d.
func runWithin(t *testing.T, req *fnv1.RunFunctionRequest, d time.Duration) *fnv1.RunFunctionResponse {
	t.Helper()
	type answer struct {
		rsp *fnv1.RunFunctionResponse
		err error
	}
	done := make(chan answer, 1)
	go func() {
		rsp, err := (newFunction(logging.NewNopLogger(), breaker{})).RunFunction(context.Background(), req)
		done <- answer{rsp, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatalf("RunFunction returned a Go error; errors must be Fatal results: %v", a.err)
		}
		return a.rsp
	case <-time.After(d):
		t.Fatalf("RunFunction did not answer within %s", d)
		return nil
	}
}

// fuzzSeeds are the realistic requests of a kind: the benchmarks' inputs, each also as it is
// before anything is composed (the XR and what it reads), and for the claimed installation,
// which the benchmarks lack, one built from examples/installation.
func fuzzSeeds(f *testing.F, kind string) []*fnv1.RunFunctionRequest {
	var out []*fnv1.RunFunctionRequest
	for _, c := range benchCases(f) {
		if !strings.HasPrefix(c.name, kind+"/") {
			continue
		}
		fresh := &fnv1.RunFunctionRequest{
			Observed:          &fnv1.State{Composite: c.req.GetObserved().GetComposite()},
			RequiredResources: c.req.GetRequiredResources(),
		}
		out = append(out, c.req, fresh)
	}
	switch kind {
	case "ClaimedKcpInstallation":
		installation, _ := exampleXR(f, "installation", "KcpInstallation")
		xr := map[string]any{}
		if err := json.Unmarshal([]byte(installation), &xr); err != nil {
			f.Fatal(err)
		}
		xr["kind"] = kind
		xr["metadata"] = map[string]any{"name": "team-a-kcp-x7k2p", "labels": map[string]any{
			"crossplane.io/claim-name": "kcp", "crossplane.io/claim-namespace": "team-a",
		}}
		out = append(out, newRequest(string(mustJSON(f, xr))))
	}
	if len(out) == 0 {
		f.Fatalf("no seed for %s", kind)
	}
	return out
}

// fuzzInput splits a request into the XR and the world, as JSON.
func fuzzInput(f *testing.F, req *fnv1.RunFunctionRequest) (xr, world []byte) {
	w := fuzzWorld{Composed: map[string]map[string]any{}, Required: map[string][]map[string]any{}}
	for name, r := range req.GetObserved().GetResources() {
		w.Composed[name] = r.GetResource().AsMap()
	}
	for key, rs := range req.GetRequiredResources() {
		for _, r := range rs.GetItems() {
			w.Required[key] = append(w.Required[key], r.GetResource().AsMap())
		}
	}
	return mustJSON(f, req.GetObserved().GetComposite().GetResource().AsMap()), mustJSON(f, w)
}

// fuzzRequest builds a request from a fuzz input; false if the XR is not a JSON object. A
// world that does not parse is an empty one.
func fuzzRequest(kind string, xrJSON, worldJSON []byte) (*fnv1.RunFunctionRequest, bool) {
	xr := map[string]any{}
	if err := json.Unmarshal(xrJSON, &xr); err != nil || xr == nil {
		return nil, false
	}
	xr["apiVersion"] = v1alpha1.Group + "/" + v1alpha1.Version
	xr["kind"] = kind
	s, err := structpb.NewStruct(xr)
	if err != nil {
		return nil, false
	}
	req := &fnv1.RunFunctionRequest{
		Meta:     &fnv1.RequestMeta{Tag: "fuzz"},
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: s}, Resources: map[string]*fnv1.Resource{}},
	}
	var w fuzzWorld
	if json.Unmarshal(worldJSON, &w) != nil {
		return req, true
	}
	for name, o := range w.Composed {
		if s, err := structpb.NewStruct(o); err == nil {
			req.Observed.Resources[name] = &fnv1.Resource{Resource: s}
		}
	}
	req.RequiredResources = map[string]*fnv1.Resources{}
	for key, items := range w.Required {
		rs := &fnv1.Resources{}
		for _, o := range items {
			if s, err := structpb.NewStruct(o); err == nil {
				rs.Items = append(rs.Items, &fnv1.Resource{Resource: s})
			}
		}
		req.RequiredResources[key] = rs
	}
	return req, true
}

// leaks fails if a message Crossplane publishes (as an Event or a condition) carries a private
// key: the seeds' observed Secrets hold real ones.
func leaks(t *testing.T, what, msg string) {
	t.Helper()
	if strings.Contains(msg, "PRIVATE KEY") {
		t.Errorf("a %s message carries a private key: %.200s", what, msg)
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
