package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// protoWire is what Crossplane hashes for its tag: req without meta, deterministic.
func protoWire(req *fnv1.RunFunctionRequest) ([]byte, error) {
	r := proto.Clone(req).(*fnv1.RunFunctionRequest)
	r.Meta = nil
	return proto.MarshalOptions{Deterministic: true}.Marshal(r)
}

// checkRequestWire holds wireEncoder's bytes, and requestHash, to proto.Marshal's.
func checkRequestWire(t *testing.T, name string, req *fnv1.RunFunctionRequest) {
	t.Helper()
	want, err := protoWire(req)
	e := &wireEncoder{}
	e.request(req)
	if (err != nil) != e.bad {
		t.Fatalf("%s: proto.Marshal's error is %v, the encoder's bad is %v", name, err, e.bad)
	}
	sum, ok := requestHash(req)
	if ok != (err == nil) {
		t.Fatalf("%s: requestHash ok is %v, proto.Marshal's error %v", name, ok, err)
	}
	if err != nil {
		return
	}
	if got := e.b[e.off:]; !bytes.Equal(got, want) {
		t.Fatalf("%s: encoder wrote %d bytes, proto.Marshal %d; first difference at byte %d", name, len(got), len(want), firstDifference(got, want))
	}
	if sum != sha256.Sum256(want) {
		t.Fatalf("%s: requestHash differs from SHA-256 of proto.Marshal's bytes", name)
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRequestHashMatchesProto: inputsWatched compares Crossplane's tag with requestHash,
// which must hash exactly the bytes of proto.MarshalOptions{Deterministic: true}, for every
// benchmark input, a request with every field and odd value set, and random ones.
func TestRequestHashMatchesProto(t *testing.T) {
	if !wireShapesKnown {
		t.Fatal("the messages of function-sdk-go or protobuf have fields wireEncoder does not write: requestHash falls back to proto.Marshal; teach wireEncoder them")
	}
	for _, c := range benchCases(t) {
		checkRequestWire(t, c.name, c.req)
	}
	checkRequestWire(t, "Empty", &fnv1.RunFunctionRequest{})
	checkRequestWire(t, "EveryField", everyFieldRequest())
	for name, bad := range map[string]func(*fnv1.RunFunctionRequest){
		"BadKey": func(r *fnv1.RunFunctionRequest) {
			r.Observed.Composite.Resource.Fields["\xff"] = structpb.NewNullValue()
		},
		"BadString":   func(r *fnv1.RunFunctionRequest) { r.Context.Fields["s"] = structpb.NewStringValue("a\xc0") },
		"BadMapKey":   func(r *fnv1.RunFunctionRequest) { r.RequiredResources["\xfe"] = nil },
		"BadDetail":   func(r *fnv1.RunFunctionRequest) { r.Observed.Composite.ConnectionDetails["\x80"] = []byte("x") },
		"BadResource": func(r *fnv1.RunFunctionRequest) { r.Desired.Resources["\xc3"] = &fnv1.Resource{} },
	} {
		r := everyFieldRequest()
		bad(r)
		checkRequestWire(t, name, r)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		r := &fnv1.RunFunctionRequest{
			Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: randomStruct(rnd, 4)}, Resources: map[string]*fnv1.Resource{}},
			Desired:  &fnv1.State{Resources: map[string]*fnv1.Resource{}},
		}
		for j := range rnd.IntN(6) {
			r.Observed.Resources[randomKey(rnd)] = &fnv1.Resource{Resource: randomStruct(rnd, 4), Ready: fnv1.Ready(j % 3)}
		}
		checkRequestWire(t, fmt.Sprintf("Random%d", i), r)
	}
}

// everyFieldRequest sets every field of a request, nil entries, zero oneofs, unknown fields
// and values proto.Marshal writes in a way of its own (NaN, negative enums).
func everyFieldRequest() *fnv1.RunFunctionRequest {
	unknown := protowire.AppendTag(nil, 99, protowire.BytesType)
	unknown = protowire.AppendString(unknown, "unknown")
	obj := func() *structpb.Struct {
		s, _ := structpb.NewStruct(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "n", "labels": map[string]any{"é": "ü", "": ""}},
			"list": []any{1.5, math.Copysign(0, -1), "", true, false, nil, map[string]any{}, []any{}}})
		s.Fields["nan"] = structpb.NewNumberValue(math.NaN())
		s.Fields["inf"] = structpb.NewNumberValue(math.Inf(-1))
		s.Fields["nil"] = nil
		s.Fields["kindless"] = &structpb.Value{}
		s.Fields["nilStruct"] = &structpb.Value{Kind: &structpb.Value_StructValue{}}
		s.Fields["nilList"] = &structpb.Value{Kind: &structpb.Value_ListValue{}}
		s.Fields["nilWrapper"] = &structpb.Value{Kind: (*structpb.Value_StringValue)(nil)}
		s.Fields["negNull"] = &structpb.Value{Kind: &structpb.Value_NullValue{NullValue: -1}}
		s.Fields["list"].GetListValue().Values = append(s.Fields["list"].GetListValue().Values, nil)
		s.Fields["metadata"].GetStructValue().ProtoReflect().SetUnknown(unknown)
		return s
	}
	res := func(ready fnv1.Ready) *fnv1.Resource {
		r := &fnv1.Resource{Resource: obj(), ConnectionDetails: map[string][]byte{"b": []byte("x"), "a": nil, "c": {}}, Ready: ready}
		r.ProtoReflect().SetUnknown(unknown)
		return r
	}
	withUnknown := func(m proto.Message) proto.Message { m.ProtoReflect().SetUnknown(unknown); return m }
	req := &fnv1.RunFunctionRequest{
		Meta:     &fnv1.RequestMeta{Tag: "t", Capabilities: []fnv1.Capability{fnv1.Capability_CAPABILITY_REQUIRED_RESOURCES}},
		Observed: withUnknown(&fnv1.State{Composite: res(fnv1.Ready_READY_TRUE), Resources: map[string]*fnv1.Resource{"b": res(-7), "a": res(0), "nil": nil}}).(*fnv1.State),
		Desired:  &fnv1.State{Resources: map[string]*fnv1.Resource{"x": res(fnv1.Ready_READY_FALSE)}},
		Input:    &structpb.Struct{},
		Context:  obj(),
		ExtraResources: map[string]*fnv1.Resources{ //nolint:staticcheck // Deprecated, but still hashed."e": {Items: []*fnv1.Resource{res(1), nil, {}}}, "nil": nil,
			"u": withUnknown(&fnv1.Resources{}).(*fnv1.Resources)},
		Credentials: map[string]*fnv1.Credentials{
			"c":   {Source: &fnv1.Credentials_CredentialData{CredentialData: &fnv1.CredentialData{Data: map[string][]byte{"z": []byte("1"), "a": []byte("2")}}}},
			"nil": nil,
		},
		RequiredResources: map[string]*fnv1.Resources{"r": {Items: []*fnv1.Resource{res(2)}}, "empty": {}},
		RequiredSchemas:   map[string]*fnv1.Schema{"s": {OpenapiV3: obj()}, "none": {}, "nil": nil},
	}
	req.ProtoReflect().SetUnknown(unknown)
	return req
}

func randomKey(rnd *rand.Rand) string {
	const letters = "abcAB-._/é日"
	r := []rune(letters)
	b := make([]rune, rnd.IntN(6))
	for i := range b {
		b[i] = r[rnd.IntN(len(r))]
	}
	return string(b)
}

func randomValue(rnd *rand.Rand, depth int) *structpb.Value {
	switch n := rnd.IntN(7); {
	case n == 0:
		return structpb.NewNullValue()
	case n == 1:
		return structpb.NewNumberValue(rnd.NormFloat64() * 1e6)
	case n == 2:
		return structpb.NewBoolValue(rnd.IntN(2) == 0)
	case n == 3 || depth == 0:
		return structpb.NewStringValue(randomKey(rnd))
	case n == 4:
		l := &structpb.ListValue{}
		for range rnd.IntN(4) {
			l.Values = append(l.Values, randomValue(rnd, depth-1))
		}
		return structpb.NewListValue(l)
	default:
		return structpb.NewStructValue(randomStruct(rnd, depth-1))
	}
}

func randomStruct(rnd *rand.Rand, depth int) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for range rnd.IntN(8) {
		s.Fields[randomKey(rnd)] = randomValue(rnd, depth)
	}
	return s
}

// BenchmarkRequestHash is inputsWatched's hash of the converged RootShard's request.
func BenchmarkRequestHash(b *testing.B) {
	req := convergedRequest(b, basicXR)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := requestHash(req); !ok {
			b.Fatal("not hashed")
		}
	}
}
