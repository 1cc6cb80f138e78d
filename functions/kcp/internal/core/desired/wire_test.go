package desired

import (
	"reflect"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// viaConverter is the reference for the wire form: ToComposed, then structpb.
func viaConverter(t *testing.T, o runtime.Object) *structpb.Struct {
	t.Helper()
	u, err := ToComposed(o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := structpb.NewStruct(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Inner and edge cover every rule the API machinery's converter applies to a typed object.
type inner struct {
	Inlined string `json:"inlined,omitempty"`
	Also    int64  `json:"also"`
}

type edge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	inner             `json:",inline"`
	*corev1.Toleration

	Empty          string                         `json:"empty,omitempty"`
	EmptyKept      string                         `json:"emptyKept"`
	Zero           int32                          `json:"zero,omitempty"`
	ZeroKept       int32                          `json:"zeroKept"`
	False          bool                           `json:"false,omitempty"`
	Unsigned       uint16                         `json:"unsigned"`
	Float          float64                        `json:"float"`
	NoTag          string                         //nolint:tagliatelle // Field name as key, as in JSON.
	Skipped        string                         `json:"-"`
	unexported     string                         // Never written.
	NilPointer     *int32                         `json:"nilPointer"`
	Pointer        *int32                         `json:"pointer"`
	NilMap         map[string]string              `json:"nilMap"`
	EmptyMap       map[string]string              `json:"emptyMap"`
	EmptyMapOmit   map[string]string              `json:"emptyMapOmit,omitempty"`
	MapOfPointers  map[string]*int32              `json:"mapOfPointers"`
	NilSlice       []string                       `json:"nilSlice"`
	EmptySlice     []string                       `json:"emptySlice"`
	SliceOfNils    []*int32                       `json:"sliceOfNils"`
	Bytes          []byte                         `json:"bytes"`
	NilBytes       []byte                         `json:"nilBytes"`
	Quantity       kresource.Quantity             `json:"quantity"`
	QuantityPtr    *kresource.Quantity            `json:"quantityPtr,omitempty"`
	ZeroTime       metav1.Time                    `json:"zeroTime"`
	Time           metav1.Time                    `json:"time"`
	Duration       metav1.Duration                `json:"duration"`
	IntOrString    intstr.IntOrString             `json:"intOrString"`
	StringOrInt    intstr.IntOrString             `json:"stringOrInt"`
	Raw            runtime.RawExtension           `json:"raw"`
	Any            any                            `json:"any"`
	NilAny         any                            `json:"nilAny"`
	OmitZeroStruct metav1.Time                    `json:"omitZeroStruct,omitzero"`
	Nested         map[string][]map[string]string `json:"nested"`
	Status         inner                          `json:"status"`
}

func (e *edge) DeepCopyObject() runtime.Object { c := *e; return &c }

func TestWireMatchesConverter(t *testing.T) {
	q := kresource.MustParse("1500m")
	full := &edge{
		TypeMeta:       metav1.TypeMeta{APIVersion: "example.org/v1", Kind: "Edge"},
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "kcp", Labels: map[string]string{"a": "b"}},
		inner:          inner{Inlined: "in", Also: 7},
		Toleration:     &corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists},
		Unsigned:       65535,
		Float:          1.25,
		NoTag:          "named by its field",
		Skipped:        "never",
		unexported:     "never",
		Pointer:        ptr.To[int32](3),
		EmptyMap:       map[string]string{},
		EmptyMapOmit:   map[string]string{},
		MapOfPointers:  map[string]*int32{"nil": nil, "one": ptr.To[int32](1)},
		EmptySlice:     []string{},
		SliceOfNils:    []*int32{nil, ptr.To[int32](2)},
		Bytes:          []byte{0, 1, 0xfe, 0xff},
		Quantity:       kresource.MustParse("2Gi"),
		QuantityPtr:    &q,
		Time:           metav1.NewTime(time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)),
		Duration:       metav1.Duration{Duration: 90 * time.Second},
		IntOrString:    intstr.FromInt32(6443),
		StringOrInt:    intstr.FromString("https"),
		Raw:            runtime.RawExtension{Raw: []byte(`{"x":[1,null,"y"],"n":null}`)},
		Any:            map[string]any{"k": []any{"v", int64(1), nil}, "n": nil},
		OmitZeroStruct: metav1.Time{},
		Nested:         map[string][]map[string]string{"a": {{"b": "c"}, nil}},
		Status:         inner{Inlined: "dropped"},
	}
	cases := map[string]struct {
		reason string
		obj    runtime.Object
	}{
		"EveryRule": {
			reason: "Tag names, omitempty, omitzero, inlining, custom conversions, nulls and status are treated as ToComposed treats them.",
			obj:    full,
		},
		"ZeroValues": {
			reason: "An object of zero values is written as ToComposed writes it.",
			obj:    &edge{TypeMeta: metav1.TypeMeta{APIVersion: "example.org/v1", Kind: "Edge"}},
		},
		"Deployment": {
			reason: "A Deployment with probes, resources and a rolling update strategy.",
			obj: &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "kcp"},
				Spec: appsv1.DeploymentSpec{
					Replicas: ptr.To[int32](2),
					Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%"))}},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name:           "kcp",
						Resources:      corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: kresource.MustParse("1Gi")}},
						LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/livez", Port: intstr.FromInt32(6443)}}},
						ReadinessProbe: &corev1.Probe{FailureThreshold: 3},
					}}}},
				},
			},
		},
		"Certificate": {
			reason: "A cert-manager Certificate with durations and usages.",
			obj: &cmv1.Certificate{
				ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "kcp"},
				Spec: cmv1.CertificateSpec{
					Duration: &metav1.Duration{Duration: 8760 * time.Hour},
					Usages:   []cmv1.KeyUsage{cmv1.UsageClientAuth},
					IsCA:     true,
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var s Set
			s.Add("x", tc.obj, resource.ReadyTrue)
			if _, isEdge := tc.obj.(*edge); isEdge {
				// The edge type has no scheme: compare the field writers alone.
				want := viaConverterUnregistered(t, tc.obj)
				// The one deliberate difference: the converter writes unexported fields,
				// encoding/json and the wire form do not. No composed type has any.
				delete(want.Fields, "unexported")
				fields := map[string]*structpb.Value{}
				if err := writeFields(&arena{}, reflectElem(tc.obj), fields); err != nil {
					t.Fatal(err)
				}
				delete(fields, "status")
				if diff := cmp.Diff(want, &structpb.Struct{Fields: fields}, protocmp.Transform()); diff != "" {
					t.Errorf("%s\nwriteFields: -converter, +wire:\n%s", tc.reason, diff)
				}
				return
			}
			want := viaConverter(t, tc.obj.DeepCopyObject())
			got, err := s.Resources()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got["x"].GetResource(), protocmp.Transform()); diff != "" {
				t.Errorf("%s\nResources(): -converter, +wire:\n%s", tc.reason, diff)
			}
		})
	}
}

// viaConverterUnregistered is ToComposed for a type no scheme knows: the converter, no
// status, no nulls, then structpb.
func viaConverterUnregistered(t *testing.T, o runtime.Object) *structpb.Struct {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	delete(obj, "status")
	pruneNulls(obj)
	s, err := structpb.NewStruct(obj)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func reflectElem(o runtime.Object) reflect.Value { return reflect.ValueOf(o).Elem() }

func TestResourcesMatchComposed(t *testing.T) {
	xr := resource.NewUnstructured()
	xr.Object = map[string]any{
		"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard",
		"metadata": map[string]any{"name": "root", "namespace": "kcp", "labels": nil},
		"spec":     map[string]any{"replicas": int64(2), "etcd": map[string]any{"endpoints": []any{"https://etcd:2379", nil}}},
		"status":   map[string]any{"phase": "Running"},
	}
	kept := observed(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{
			"name": "root-ca", "namespace": "kcp", "uid": "u", "resourceVersion": "7",
			"annotations": map[string]any{"crossplane.io/composition-resource-name": "root-ca", "keep": "me"},
		},
		"data":   map[string]any{"tls.crt": "Y2E="},
		"status": map[string]any{"ignored": true},
	})
	var s Set
	s.Add("config", configMap("root-config", map[string]string{"a": "b"}), resource.ReadyTrue)
	s.Add("secret", secret("root-secret", map[string][]byte{"k": {1, 2}}), resource.ReadyUnspecified)
	s.Add("xr", xr, resource.ReadyFalse)
	s.Keep("kept", kept, resource.ReadyTrue)

	composedSet, err := s.Composed()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Resources()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(composedSet) {
		t.Fatalf("Resources() returned %d resources, Composed() %d", len(got), len(composedSet))
	}
	for name, dc := range composedSet {
		want, err := structpb.NewStruct(dc.Resource.Object)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got[string(name)].GetResource(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: typed, unstructured and kept objects are written as Composed() writes them.\n-Composed, +Resources:\n%s", name, diff)
		}
		if w, g := wireReady[dc.Ready], got[string(name)].GetReady(); w != g {
			t.Errorf("%s: ready %v, want %v", name, g, w)
		}
	}
}
