package desired

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/structpb"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// This file writes desired objects straight into the protobuf Structs of a RunFunction
// response. Going through ToComposed builds every object twice more (the API machinery's
// map[string]any, then structpb's copy of it): that was two thirds of a converged
// RootShard's time. The rules are ToComposed's, and a test holds the two paths to the same
// output for every object the function composes: JSON tag names, omitempty and omitzero,
// inlined fields, the custom conversions of Quantity, Time, IntOrString and other types
// with ToUnstructured or MarshalJSON, no nulls in objects, no status. Unlike the converter,
// and like encoding/json, unexported fields are not written (no composed type has any).

// Resources converts the set into the response's desired composed resources.
func (s *Set) Resources() (map[string]*fnv1.Resource, error) {
	out := make(map[string]*fnv1.Resource, len(s.objects))
	a := &arena{}
	for _, o := range s.objects {
		st, err := o.wire(a)
		if err != nil {
			return nil, fmt.Errorf("cannot convert composed resource %q: %w", o.Name, err)
		}
		out[string(o.Name)] = &fnv1.Resource{Resource: st, Ready: wireReady[o.Ready]}
	}
	return out, nil
}

var wireReady = map[resource.Ready]fnv1.Ready{
	resource.ReadyUnspecified: fnv1.Ready_READY_UNSPECIFIED,
	resource.ReadyTrue:        fnv1.Ready_READY_TRUE,
	resource.ReadyFalse:       fnv1.Ready_READY_FALSE,
}

// wire returns the object as Crossplane receives it, its values allocated from a.
func (o Object) wire(a *arena) (*structpb.Struct, error) {
	if o.Kept != nil {
		return structFromMap(a, keepable(o.Kept).Object, "status")
	}
	if u, ok := o.Resource.(interface{ UnstructuredContent() map[string]any }); ok {
		return structFromMap(a, u.UnstructuredContent(), "status")
	}
	gvks, _, err := Scheme.ObjectKinds(o.Resource)
	if err != nil {
		return nil, err
	}
	o.Resource.GetObjectKind().SetGroupVersionKind(gvks[0])
	v := reflect.ValueOf(o.Resource)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%T is not a pointer to a struct", o.Resource)
	}
	fields := map[string]*structpb.Value{}
	if err := writeFields(a, v.Elem(), fields); err != nil {
		return nil, err
	}
	delete(fields, "status")
	return a.newStruct(fields), nil
}

// structFromMap converts unstructured content, leaving out nulls and the key drop.
func structFromMap(a *arena, m map[string]any, drop string) (*structpb.Struct, error) {
	fields := make(map[string]*structpb.Value, len(m))
	for k, e := range m {
		if (drop != "" && k == drop) || e == nil {
			continue
		}
		v, err := fromAny(a, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		fields[k] = v
	}
	return a.newStruct(fields), nil
}

// arena allocates the structpb values of one response in blocks: a response is thousands
// of them, each one or two allocations of its own (the Value and its oneof wrapper), which
// were a third of a converged RootShard's allocations. They live as long as the response.
type arena struct {
	values  slab[structpb.Value]
	structs slab[structpb.Struct]
	strs    slab[structpb.Value_StringValue]
	nums    slab[structpb.Value_NumberValue]
	bools   slab[structpb.Value_BoolValue]
	sv      slab[structpb.Value_StructValue]
	lv      slab[structpb.Value_ListValue]
	lists   slab[structpb.ListValue]
}

// A slab hands out values of one type from blocks, each twice the last, from 8 to 128: a
// small response does not pay for large blocks.
type slab[T any] struct {
	free []T
	size int
}

func (s *slab[T]) next() *T {
	if len(s.free) == 0 {
		s.size = min(max(2*s.size, 8), 128)
		s.free = make([]T, s.size)
	}
	e := &s.free[0]
	s.free = s.free[1:]
	return e
}

func (a *arena) str(s string) *structpb.Value {
	w := a.strs.next()
	w.StringValue = s
	v := a.values.next()
	v.Kind = w
	return v
}

func (a *arena) number(f float64) *structpb.Value {
	w := a.nums.next()
	w.NumberValue = f
	v := a.values.next()
	v.Kind = w
	return v
}

func (a *arena) boolean(b bool) *structpb.Value {
	w := a.bools.next()
	w.BoolValue = b
	v := a.values.next()
	v.Kind = w
	return v
}

func (a *arena) newStruct(fields map[string]*structpb.Value) *structpb.Struct {
	s := a.structs.next()
	s.Fields = fields
	return s
}

func (a *arena) structValue(s *structpb.Struct) *structpb.Value {
	w := a.sv.next()
	w.StructValue = s
	v := a.values.next()
	v.Kind = w
	return v
}

func (a *arena) list(values []*structpb.Value) *structpb.Value {
	w := a.lv.next()
	l := a.lists.next()
	l.Values = values
	w.ListValue = l
	v := a.values.next()
	v.Kind = w
	return v
}

// An encoder converts a value of one Go type, allocating from a; nil means null, which
// objects leave out.
type encoder func(a *arena, v reflect.Value) (*structpb.Value, error)

// encoders caches an encoder per type, as the API machinery caches its field information.
var encoders sync.Map // reflect.Type -> encoder

func encoderFor(t reflect.Type) encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(encoder)
	}
	// A recursive type reaches itself while its encoder is built: hand out one that waits.
	var (
		wg sync.WaitGroup
		e  encoder
	)
	wg.Add(1)
	if prev, loaded := encoders.LoadOrStore(t, encoder(func(a *arena, v reflect.Value) (*structpb.Value, error) {
		wg.Wait()
		return e(a, v)
	})); loaded {
		return prev.(encoder)
	}
	e = newEncoder(t)
	wg.Done()
	encoders.Store(t, e)
	return e
}

func newEncoder(t reflect.Type) encoder {
	if entry := value.TypeReflectEntryOf(t); entry.CanConvertToUnstructured() {
		// Quantity, Time, IntOrString, RawExtension...: exactly the converter's conversion.
		return func(a *arena, v reflect.Value) (*structpb.Value, error) {
			u, err := entry.ToUnstructured(v)
			if err != nil || u == nil {
				return nil, err
			}
			return fromAny(a, u)
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) { return a.str(v.String()), nil }
	case reflect.Bool:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) { return a.boolean(v.Bool()), nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) { return a.number(float64(v.Int())), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) { return a.number(float64(v.Uint())), nil }
	case reflect.Float32, reflect.Float64:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) { return a.number(v.Float()), nil }
	case reflect.Pointer:
		return pointerEncoder(t)
	case reflect.Interface:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) {
			if v.IsNil() {
				return nil, nil
			}
			return encoderFor(v.Elem().Type())(a, v.Elem())
		}
	case reflect.Slice:
		return sliceEncoder(t)
	case reflect.Map:
		return mapEncoder(t)
	case reflect.Struct:
		return func(a *arena, v reflect.Value) (*structpb.Value, error) {
			fields := map[string]*structpb.Value{}
			if err := writeFields(a, v, fields); err != nil {
				return nil, err
			}
			return a.structValue(a.newStruct(fields)), nil
		}
	}
	return func(*arena, reflect.Value) (*structpb.Value, error) {
		return nil, fmt.Errorf("cannot convert a value of type %s", t)
	}
}

func pointerEncoder(t reflect.Type) encoder {
	elem := encoderFor(t.Elem())
	return func(a *arena, v reflect.Value) (*structpb.Value, error) {
		if v.IsNil() {
			return nil, nil
		}
		return elem(a, v.Elem())
	}
}

func sliceEncoder(t reflect.Type) encoder {
	if t.Elem().Kind() == reflect.Uint8 {
		// Bytes are base64, as in JSON.
		return func(a *arena, v reflect.Value) (*structpb.Value, error) {
			if v.IsNil() {
				return nil, nil
			}
			return a.str(base64.StdEncoding.EncodeToString(v.Bytes())), nil
		}
	}
	elem := encoderFor(t.Elem())
	return func(a *arena, v reflect.Value) (*structpb.Value, error) {
		if v.IsNil() {
			return nil, nil
		}
		values := make([]*structpb.Value, v.Len())
		for i := range values {
			e, err := elem(a, v.Index(i))
			if err != nil {
				return nil, err
			}
			if e == nil {
				// Lists keep their nulls.
				e = structpb.NewNullValue()
			}
			values[i] = e
		}
		return a.list(values), nil
	}
}

func mapEncoder(t reflect.Type) encoder {
	if t.Key().Kind() != reflect.String {
		return func(*arena, reflect.Value) (*structpb.Value, error) {
			return nil, fmt.Errorf("cannot convert a map with %s keys", t.Key())
		}
	}
	elem := encoderFor(t.Elem())
	return func(a *arena, v reflect.Value) (*structpb.Value, error) {
		if v.IsNil() {
			return nil, nil
		}
		fields := make(map[string]*structpb.Value, v.Len())
		it := v.MapRange()
		for it.Next() {
			e, err := elem(a, it.Value())
			if err != nil {
				return nil, err
			}
			if e != nil {
				fields[it.Key().String()] = e
			}
		}
		return a.structValue(a.newStruct(fields)), nil
	}
}

// field is how one struct field is written.
type field struct {
	index     int
	name      string
	inline    bool
	omitempty bool
	omitzero  func(reflect.Value) bool
}

var structFields sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if f, ok := structFields.Load(t); ok {
		return f.([]field)
	}
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() && !sf.Anonymous {
			continue
		}
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		f := field{index: i, name: name}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.omitempty = true
			case "omitzero":
				f.omitzero = value.OmitZeroFunc(sf.Type)
			}
		}
		if f.name == "" {
			if sf.Anonymous {
				f.inline = true
			} else {
				f.name = sf.Name
			}
		}
		out = append(out, f)
	}
	structFields.Store(t, out)
	return out
}

// writeFields writes a struct's fields into fields; inlined structs write into the same.
func writeFields(a *arena, v reflect.Value, fields map[string]*structpb.Value) error {
	for _, f := range fieldsOf(v.Type()) {
		fv := v.Field(f.index)
		if f.omitempty && isEmpty(fv) || f.omitzero != nil && f.omitzero(fv) {
			continue
		}
		if f.inline {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if fv.Kind() != reflect.Struct {
				return fmt.Errorf("cannot inline a field of type %s", fv.Type())
			}
			if err := writeFields(a, fv, fields); err != nil {
				return err
			}
			continue
		}
		e, err := encoderFor(fv.Type())(a, fv)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if e != nil {
			fields[f.name] = e
		}
	}
	return nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Map, reflect.Slice:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// fromAny converts unstructured content, leaving out nulls in objects.
func fromAny(a *arena, x any) (*structpb.Value, error) {
	switch t := x.(type) {
	case map[string]any:
		s, err := structFromMap(a, t, "")
		if err != nil {
			return nil, err
		}
		return a.structValue(s), nil
	case []any:
		values := make([]*structpb.Value, len(t))
		for i, e := range t {
			v, err := fromAny(a, e)
			if err != nil {
				return nil, err
			}
			values[i] = v
		}
		return a.list(values), nil
	case nil:
		return structpb.NewNullValue(), nil
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return nil, err
		}
		return a.number(f), nil
	case string:
		if utf8.ValidString(t) { // else structpb.NewValue's error
			return a.str(t), nil
		}
	case bool:
		return a.boolean(t), nil
	case float64:
		return a.number(t), nil
	case int64:
		return a.number(float64(t)), nil
	}
	return structpb.NewValue(x)
}
