package main

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// requestHash is SHA-256 of req without its meta, encoded as
// proto.MarshalOptions{Deterministic: true} encodes it: what Crossplane's request tag is
// (inputsWatched). ok is false where that encoding fails (a string not UTF-8).
//
// It writes the same bytes as proto.MarshalOptions{Deterministic: true}, without its cost:
// that one sorts every map through reflection, an allocation per key of every object of the
// request (a third of a converged RootShard's RunFunction's allocations, and as much time as
// decoding the request). The request's own messages, its states, resources and the
// google.protobuf.Struct values they carry, are written here; anything else a request may
// carry (credentials, schemas) by proto.Marshal. TestRequestHashMatchesProto holds the
// bytes to proto.Marshal's.
func requestHash(req *fnv1.RunFunctionRequest) (sum [sha256.Size]byte, ok bool) {
	if !wireShapesKnown {
		// A function-sdk-go or protobuf with fields this encoder does not write.
		meta := req.Meta
		req.Meta = nil
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
		req.Meta = meta
		return sha256.Sum256(b), err == nil
	}
	e := wireEncoders.Get().(*wireEncoder)
	defer e.release()
	e.request(req)
	if e.bad {
		return sum, false
	}
	return sha256.Sum256(e.b[e.off:]), true
}

// wireEncoders keep encoders' buffers between calls: a request is tens of KiB.
var wireEncoders = sync.Pool{New: func() any { return &wireEncoder{} }}

// wireEncoder writes a message's protobuf encoding back to front, so that the length of a
// nested message is known when its prefix is written: fields in descending number, map
// entries in descending key order, list items last first, unknown fields (which
// proto.Marshal writes last) first.
type wireEncoder struct {
	// b[off:] is the encoding so far.
	b   []byte
	off int
	// keys is a stack of the keys of the maps being written, sorted; fields, of the
	// Structs'.
	keys   []string
	fields []structField
	// bad is set when proto.Marshal would fail: a string that is not UTF-8.
	bad bool
}

// release returns e to the pool, emptied; very large buffers are dropped.
func (e *wireEncoder) release() {
	if cap(e.b) > 8<<20 {
		e.b = nil
	}
	e.off, e.keys, e.fields, e.bad = len(e.b), e.keys[:0], e.fields[:0], false
	wireEncoders.Put(e)
}

// size is the length of the encoding so far.
func (e *wireEncoder) size() int { return len(e.b) - e.off }

// reserve makes room for n more bytes in front.
func (e *wireEncoder) reserve(n int) {
	if e.off >= n {
		return
	}
	used := e.size()
	b := make([]byte, max(2*len(e.b), used+n, 64<<10))
	copy(b[len(b)-used:], e.b[e.off:])
	e.b, e.off = b, len(b)-used
}

func (e *wireEncoder) raw(p []byte) {
	e.reserve(len(p))
	e.off -= len(p)
	copy(e.b[e.off:], p)
}

func (e *wireEncoder) varint(v uint64) {
	if v < 0x80 { // tags and most lengths
		e.reserve(1)
		e.off--
		e.b[e.off] = byte(v)
		return
	}
	n := protowire.SizeVarint(v)
	e.reserve(n)
	e.off -= n
	b := e.b[e.off : e.off+n]
	for i := range n - 1 {
		b[i] = byte(v) | 0x80
		v >>= 7
	}
	b[n-1] = byte(v)
}

func (e *wireEncoder) tag(num protowire.Number, typ protowire.Type) {
	e.varint(protowire.EncodeTag(num, typ))
}

// length prefixes what was written since mark (an earlier size) with its length and the
// tag of field num.
func (e *wireEncoder) length(num protowire.Number, mark int) {
	e.varint(uint64(e.size() - mark))
	e.tag(num, protowire.BytesType)
}

// bytesField writes field num of bytes p, even empty.
func (e *wireEncoder) bytesField(num protowire.Number, p []byte) {
	e.raw(p)
	e.varint(uint64(len(p)))
	e.tag(num, protowire.BytesType)
}

// stringField writes field num of string s, even empty; proto3 strings must be UTF-8.
func (e *wireEncoder) stringField(num protowire.Number, s string) {
	if !utf8.ValidString(s) {
		e.bad = true
	}
	e.reserve(len(s))
	e.off -= len(s)
	copy(e.b[e.off:], s)
	e.varint(uint64(len(s)))
	e.tag(num, protowire.BytesType)
}

// unknown writes m's unknown fields, which proto.Marshal writes after the known ones.
func (e *wireEncoder) unknown(m proto.Message) {
	if u := m.ProtoReflect().GetUnknown(); len(u) > 0 {
		e.raw(u)
	}
}

// other writes m, a message this encoder does not know, with proto.Marshal.
func (e *wireEncoder) other(m proto.Message) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		e.bad = true
	}
	e.raw(b)
}

// mapField writes map m as field num: an entry per key in key order (as deterministic
// proto.Marshal sorts them), each with its key and its value (value writes field 2).
func mapField[V any](e *wireEncoder, num protowire.Number, m map[string]V, value func(*wireEncoder, V)) {
	if len(m) == 0 {
		return
	}
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys[start:])
	for i := len(e.keys) - 1; i >= start; i-- {
		k := e.keys[i]
		mark := e.size()
		value(e, m[k])
		e.stringField(1, k)
		e.length(num, mark)
	}
	clear(e.keys[start:]) // no strings of the request kept in the pool
	e.keys = e.keys[:start]
}

// entryValue writes m as field 2 of a map entry: always, empty when nil.
func entryValue[M any](e *wireEncoder, m *M, write func(*wireEncoder, *M)) {
	mark := e.size()
	write(e, m)
	e.length(2, mark)
}

func resourceValue(e *wireEncoder, r *fnv1.Resource)     { entryValue(e, r, (*wireEncoder).resource) }
func resourcesValue(e *wireEncoder, rs *fnv1.Resources)  { entryValue(e, rs, (*wireEncoder).resources) }
func structFieldValue(e *wireEncoder, v *structpb.Value) { entryValue(e, v, (*wireEncoder).value) }
func credentialsValue(e *wireEncoder, c *fnv1.Credentials) {
	entryValue(e, c, func(e *wireEncoder, c *fnv1.Credentials) { e.other(c) })
}
func schemaValue(e *wireEncoder, s *fnv1.Schema) {
	entryValue(e, s, func(e *wireEncoder, s *fnv1.Schema) { e.other(s) })
}
func bytesValue(e *wireEncoder, p []byte) { e.bytesField(2, p) }

// request writes req without its meta (field 1).
func (e *wireEncoder) request(req *fnv1.RunFunctionRequest) {
	e.unknown(req)
	mapField(e, 9, req.RequiredSchemas, schemaValue)
	mapField(e, 8, req.RequiredResources, resourcesValue)
	mapField(e, 7, req.Credentials, credentialsValue)
	mapField(e, 6, req.ExtraResources, resourcesValue) //nolint:staticcheck // Deprecated, but an older Crossplane's request carries it, and its tag covers it.
	messageField(e, 5, req.Context, (*wireEncoder).structpb)
	messageField(e, 4, req.Input, (*wireEncoder).structpb)
	messageField(e, 3, req.Desired, (*wireEncoder).state)
	messageField(e, 2, req.Observed, (*wireEncoder).state)
}

// messageField writes message field num when m is set.
func messageField[M any](e *wireEncoder, num protowire.Number, m *M, write func(*wireEncoder, *M)) {
	if m == nil {
		return
	}
	mark := e.size()
	write(e, m)
	e.length(num, mark)
}

// repeatedField writes the messages of repeated field num, back to front; each is written,
// even a nil one (as an empty message), as proto.Marshal writes it.
func repeatedField[M any](e *wireEncoder, num protowire.Number, items []*M, write func(*wireEncoder, *M)) {
	for i := len(items) - 1; i >= 0; i-- {
		mark := e.size()
		write(e, items[i])
		e.length(num, mark)
	}
}

func (e *wireEncoder) state(s *fnv1.State) {
	e.unknown(s)
	mapField(e, 2, s.Resources, resourceValue)
	messageField(e, 1, s.Composite, (*wireEncoder).resource)
}

func (e *wireEncoder) resources(rs *fnv1.Resources) {
	if rs == nil {
		return
	}
	e.unknown(rs)
	repeatedField(e, 1, rs.Items, (*wireEncoder).resource)
}

func (e *wireEncoder) resource(r *fnv1.Resource) {
	if r == nil {
		return
	}
	e.unknown(r)
	if r.Ready != 0 {
		e.varint(uint64(int64(r.Ready)))
		e.tag(3, protowire.VarintType)
	}
	mapField(e, 2, r.ConnectionDetails, bytesValue)
	messageField(e, 1, r.Resource, (*wireEncoder).structpb)
}

func (e *wireEncoder) structpb(s *structpb.Struct) {
	if s == nil {
		return
	}
	e.unknown(s)
	// mapField, with each key's value kept beside it: Structs are most of a request.
	start := len(e.fields)
	for k, v := range s.Fields {
		e.fields = append(e.fields, structField{k, v})
	}
	slices.SortFunc(e.fields[start:], func(a, b structField) int { return strings.Compare(a.key, b.key) })
	for i := len(e.fields) - 1; i >= start; i-- {
		f := e.fields[i]
		mark := e.size()
		structFieldValue(e, f.value)
		e.stringField(1, f.key)
		e.length(1, mark)
	}
	clear(e.fields[start:]) // no pointers into the request kept in the pool
	e.fields = e.fields[:start]
}

// structField is an entry of a Struct being written.
type structField struct {
	key   string
	value *structpb.Value
}

func (e *wireEncoder) list(l *structpb.ListValue) {
	if l == nil {
		return
	}
	e.unknown(l)
	repeatedField(e, 1, l.Values, (*wireEncoder).value)
}

// value writes v's kind, a oneof: written when set, even to its zero value.
func (e *wireEncoder) value(v *structpb.Value) {
	if v == nil {
		return
	}
	e.unknown(v)
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		if k != nil {
			e.varint(uint64(int64(k.NullValue)))
			e.tag(1, protowire.VarintType)
		}
	case *structpb.Value_NumberValue:
		if k != nil {
			e.reserve(8)
			e.off -= 8
			binary.LittleEndian.PutUint64(e.b[e.off:], math.Float64bits(k.NumberValue))
			e.tag(2, protowire.Fixed64Type)
		}
	case *structpb.Value_StringValue:
		if k != nil {
			e.stringField(3, k.StringValue)
		}
	case *structpb.Value_BoolValue:
		if k != nil {
			b := uint64(0)
			if k.BoolValue {
				b = 1
			}
			e.varint(b)
			e.tag(4, protowire.VarintType)
		}
	case *structpb.Value_StructValue:
		if k != nil {
			mark := e.size()
			e.structpb(k.StructValue)
			e.length(5, mark)
		}
	case *structpb.Value_ListValue:
		if k != nil {
			mark := e.size()
			e.list(k.ListValue)
			e.length(6, mark)
		}
	}
}

// wireShapesKnown is whether the messages wireEncoder writes have exactly the fields it
// writes; a newer function-sdk-go or protobuf with more makes requestHash use proto.Marshal.
var wireShapesKnown = func() bool {
	shapes := []struct {
		m      proto.Message
		fields []protowire.Number
	}{
		{&fnv1.RunFunctionRequest{}, []protowire.Number{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{&fnv1.State{}, []protowire.Number{1, 2}},
		{&fnv1.Resources{}, []protowire.Number{1}},
		{&fnv1.Resource{}, []protowire.Number{1, 2, 3}},
		{&structpb.Struct{}, []protowire.Number{1}},
		{&structpb.ListValue{}, []protowire.Number{1}},
		{&structpb.Value{}, []protowire.Number{1, 2, 3, 4, 5, 6}},
	}
	for _, s := range shapes {
		md := s.m.ProtoReflect().Descriptor()
		if md.Fields().Len() != len(s.fields) || md.ExtensionRanges().Len() > 0 {
			return false
		}
		for _, n := range s.fields {
			if fd := md.Fields().ByNumber(n); fd == nil || fd.Kind() == protoreflect.GroupKind {
				return false
			}
		}
	}
	return true
}()
