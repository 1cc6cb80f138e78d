// Package desired collects the objects a composer wants to exist, keyed by their stable
// composition resource name, with the readiness the composer decided for each.
package desired

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// Scheme knows every typed kind the composers build, to write its apiVersion and kind.
var Scheme = runtime.NewScheme()

func init() {
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme, networkingv1.AddToScheme, cmv1.AddToScheme, gatewayv1.Install, monitoringv1.AddToScheme,
	} {
		if err := add(Scheme); err != nil {
			panic(err)
		}
	}
}

// Object is one desired composed resource.
type Object struct {
	Name     resource.Name
	Resource runtime.Object
	// Kept is set when the object is the observed one carried forward unchanged because the
	// inputs to rebuild it are missing (never destroy on doubt).
	Kept  *resource.Unstructured
	Ready resource.Ready
}

// Set is an ordered collection of desired objects with unique names.
type Set struct {
	objects []Object
	index   map[resource.Name]int
}

// Add appends or replaces the object with the given name.
func (s *Set) Add(name resource.Name, obj runtime.Object, ready resource.Ready) {
	s.put(Object{Name: name, Resource: obj, Ready: ready})
}

// Keep carries an observed object forward as it is.
func (s *Set) Keep(name resource.Name, u *resource.Unstructured, ready resource.Ready) {
	s.put(Object{Name: name, Kept: u, Ready: ready})
}

func (s *Set) put(o Object) {
	if s.index == nil {
		s.index = map[resource.Name]int{}
	}
	if i, ok := s.index[o.Name]; ok {
		s.objects[i] = o
		return
	}
	s.index[o.Name] = len(s.objects)
	s.objects = append(s.objects, o)
}

// Has reports whether name is desired.
func (s *Set) Has(name resource.Name) bool {
	_, ok := s.index[name]
	return ok
}

// Get returns the desired object with the given name.
func (s *Set) Get(name resource.Name) (Object, bool) {
	i, ok := s.index[name]
	if !ok {
		return Object{}, false
	}
	return s.objects[i], true
}

// Objects returns the objects in insertion order.
func (s *Set) Objects() []Object { return s.objects }

// Names returns the sorted names of the desired objects.
func (s *Set) Names() []resource.Name {
	out := make([]resource.Name, 0, len(s.objects))
	for _, o := range s.objects {
		out = append(out, o.Name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Composed converts the set into the SDK's desired composed resources.
func (s *Set) Composed() (map[resource.Name]*resource.DesiredComposed, error) {
	out := make(map[resource.Name]*resource.DesiredComposed, len(s.objects))
	for _, o := range s.objects {
		if o.Kept != nil {
			out[o.Name] = &resource.DesiredComposed{Resource: keepable(o.Kept), Ready: o.Ready}
			continue
		}
		cd, err := ToComposed(o.Resource)
		if err != nil {
			return nil, fmt.Errorf("cannot convert composed resource %q: %w", o.Name, err)
		}
		out[o.Name] = &resource.DesiredComposed{Resource: cd, Ready: o.Ready}
	}
	return out, nil
}

// ToComposed converts a typed object with the API machinery's own JSON rules, which are the
// rules kubectl and controllers use: zero values of omitempty fields (0, false, "") are left
// out. A plain conversion keeps them, and server-side apply would then record ownership of values
// nobody chose (hostPort: 0, paused: false, ...). Nulls and the status are dropped too: the
// function has no opinion on either.
func ToComposed(o runtime.Object) (*resource.Unstructured, error) {
	if u, ok := o.(*resource.Unstructured); ok {
		// Already unstructured (the XRs an installation composes have no scheme).
		c := resource.NewUnstructured()
		c.Object = runtime.DeepCopyJSON(u.Object)
		delete(c.Object, "status")
		pruneNulls(c.Object)
		return c, nil
	}
	gvks, _, err := Scheme.ObjectKinds(o)
	if err != nil {
		return nil, err
	}
	o.GetObjectKind().SetGroupVersionKind(gvks[0])
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	delete(obj, "status")
	pruneNulls(obj)
	u := resource.NewUnstructured()
	u.Object = obj
	return u, nil
}

// pruneNulls removes null values, such as the zero creationTimestamp of typed metadata.
func pruneNulls(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			pruneNulls(e)
		}
	case []any:
		for _, e := range x {
			pruneNulls(e)
		}
	}
}

// keepable strips what the API server owns from an observed object so that applying it
// again changes nothing.
func keepable(u *resource.Unstructured) *resource.Unstructured {
	c := resource.NewUnstructured()
	c.SetAPIVersion(u.GetAPIVersion())
	c.SetKind(u.GetKind())
	c.SetName(u.GetName())
	c.SetNamespace(u.GetNamespace())
	if l := u.GetLabels(); len(l) > 0 {
		c.SetLabels(l)
	}
	if a := u.GetAnnotations(); len(a) > 0 {
		delete(a, resource.AnnotationName)
		if len(a) > 0 {
			c.SetAnnotations(a)
		}
	}
	for k, v := range u.Object {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
			continue
		}
		c.Object[k] = runtime.DeepCopyJSONValue(v)
	}
	return c
}

// Fingerprint hashes the data of a desired Secret or ConfigMap, so pods that mount it roll
// when it changes. Other kinds hash to the empty string.
func Fingerprint(o Object) string {
	switch r := o.Resource.(type) {
	case *corev1.Secret:
		return fingerprint(r.Data)
	case *corev1.ConfigMap:
		return fingerprint(r.Data)
	}
	if o.Kept != nil {
		raw, _ := o.Kept.Object["data"].(map[string]any)
		data := make(map[string][]byte, len(raw))
		for k, v := range raw {
			str, _ := v.(string)
			data[k] = []byte(str)
			// A Secret's data is base64 on the wire: hash the bytes, as for a built Secret,
			// so keeping a Secret does not look like a change and roll pods.
			if o.Kept.GetKind() == "Secret" {
				if b, err := base64.StdEncoding.DecodeString(str); err == nil {
					data[k] = b
				}
			}
		}
		return fingerprint(data)
	}
	return ""
}

// DataFingerprint is Fingerprint for the data of a Secret or ConfigMap the function reads
// rather than composes.
func DataFingerprint(data map[string][]byte) string { return fingerprint(data) }

func fingerprint[V string | []byte](data map[string]V) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", k, data[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
