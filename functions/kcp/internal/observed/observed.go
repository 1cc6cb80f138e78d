// Package observed answers the questions a composer asks about the world: is this
// Certificate issued, at which revision, is that Deployment available, what does this
// Secret hold. It reads the observed composed resources and required resources of one
// RunFunction request.
package observed

import (
	"encoding/base64"
	"slices"

	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
)

// State is the observed world of one XR.
type State struct {
	composed map[resource.Name]resource.ObservedComposed
	objects  map[string]Lookup
	// kinds indexes the names of required objects by kind.
	kinds map[string][]string
}

// Lookup is the outcome of requiring a Secret or ConfigMap by name.
type Lookup struct {
	// Found is true when the object exists.
	Found           bool
	ResourceVersion string
	// Data is the decoded data of a Secret, or the data of a ConfigMap.
	Data map[string][]byte
	// Object is the whole object, for kinds other than Secret and ConfigMap (say an XR).
	Object map[string]any
	// Controller is the UID of the object's controller (its owner reference with
	// controller: true), "" when it has none.
	Controller string
}

// New returns the state for the given observed composed resources.
func New(oc map[resource.Name]resource.ObservedComposed) *State {
	if oc == nil {
		oc = map[resource.Name]resource.ObservedComposed{}
	}
	return &State{composed: oc, objects: map[string]Lookup{}, kinds: map[string][]string{}}
}

// WithObject records a required Secret or ConfigMap that was found.
func (s *State) WithObject(u map[string]any) *State {
	kind, _ := u["kind"].(string)
	meta, _ := u["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	rv, _ := meta["resourceVersion"].(string)
	l := Lookup{Found: true, ResourceVersion: rv, Controller: controllerUID(meta)}
	switch kind {
	case "Secret":
		l.Data = DecodeSecretData(u)
	case "ConfigMap":
		raw, _ := u["data"].(map[string]any)
		l.Data = make(map[string][]byte, len(raw))
		for k, v := range raw {
			if str, ok := v.(string); ok {
				l.Data[k] = []byte(str)
			}
		}
	default:
		l.Object = u
		s.kinds[kind] = append(s.kinds[kind], name)
	}
	s.objects[kind+"/"+name] = l
	return s
}

// controllerUID returns the UID of the controller owner reference in metadata.
func controllerUID(meta map[string]any) string {
	refs, _ := meta["ownerReferences"].([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		if c, _ := ref["controller"].(bool); c {
			uid, _ := ref["uid"].(string)
			return uid
		}
	}
	return ""
}

// Names lists the names of the required objects of a kind other than Secret and ConfigMap,
// sorted, e.g. every Shard in the namespace.
func (s *State) Names(kind string) []string {
	out := slices.Clone(s.kinds[kind])
	slices.Sort(out)
	return slices.Compact(out)
}

// Object returns what is known about a required object; Found is false when it does not
// exist or has not been read yet.
func (s *State) Object(kind, name string) Lookup { return s.objects[kind+"/"+name] }

// Secret is Object("Secret", name).
func (s *State) Secret(name string) Lookup { return s.Object("Secret", name) }

// Get returns the observed composed resource with key name.
func (s *State) Get(name resource.Name) (*composed.Unstructured, bool) {
	oc, ok := s.composed[name]
	if !ok || oc.Resource == nil {
		return nil, false
	}
	return oc.Resource, true
}

// ComposedNames lists the keys of every observed composed resource, sorted.
func (s *State) ComposedNames() []resource.Name {
	out := make([]resource.Name, 0, len(s.composed))
	for k, oc := range s.composed {
		if oc.Resource != nil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Exists reports whether the composed resource with key name exists.
func (s *State) Exists(name resource.Name) bool {
	_, ok := s.Get(name)
	return ok
}

// ConditionTrue reports whether the composed resource has condition t with status True.
func (s *State) ConditionTrue(name resource.Name, t string) bool {
	u, ok := s.Get(name)
	if !ok {
		return false
	}
	conds, _, _ := unstructuredSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if m["type"] == t && m["status"] == "True" {
			return true
		}
	}
	return false
}

// CertificateIssued reports whether a composed cert-manager Certificate is Ready.
func (s *State) CertificateIssued(name resource.Name) bool {
	return s.ConditionTrue(name, "Ready")
}

// CertificateRevision is the Certificate's status.revision, 0 when unknown.
func (s *State) CertificateRevision(name resource.Name) int64 {
	u, ok := s.Get(name)
	if !ok {
		return 0
	}
	return int64Field(u.Object, "status", "revision")
}

// DeploymentAvailable reports whether a composed Deployment has rolled out its current
// generation and all its replicas are updated and available.
func (s *State) DeploymentAvailable(name resource.Name) bool {
	u, ok := s.Get(name)
	if !ok {
		return false
	}
	generation := int64Field(u.Object, "metadata", "generation")
	observedGen := int64Field(u.Object, "status", "observedGeneration")
	if observedGen < generation {
		return false
	}
	want := int64Field(u.Object, "spec", "replicas")
	if _, found := field(u.Object, "spec", "replicas"); !found {
		want = 1
	}
	return int64Field(u.Object, "status", "updatedReplicas") >= want &&
		int64Field(u.Object, "status", "availableReplicas") >= want &&
		int64Field(u.Object, "status", "replicas") <= want &&
		s.ConditionTrue(name, "Available")
}

// DeploymentReplicas returns the observed spec.replicas of a composed Deployment.
func (s *State) DeploymentReplicas(name resource.Name) (int32, bool) {
	u, ok := s.Get(name)
	if !ok {
		return 0, false
	}
	if _, found := field(u.Object, "spec", "replicas"); !found {
		return 0, false
	}
	return int32(int64Field(u.Object, "spec", "replicas")), true
}

// StatefulSetReady returns a composed StatefulSet's ready replicas, and whether its status
// describes its current generation.
func (s *State) StatefulSetReady(name resource.Name) (int32, bool) {
	u, ok := s.Get(name)
	if !ok {
		return 0, false
	}
	current := int64Field(u.Object, "status", "observedGeneration") >= int64Field(u.Object, "metadata", "generation")
	return int32(int64Field(u.Object, "status", "readyReplicas")), current
}

// String returns a string field of a composed resource, or "".
func (s *State) String(name resource.Name, path ...string) string {
	u, ok := s.Get(name)
	if !ok {
		return ""
	}
	v, _ := field(u.Object, path...)
	str, _ := v.(string)
	return str
}

// SecretData returns the data of a composed Secret.
func (s *State) SecretData(name resource.Name) (map[string][]byte, bool) {
	u, ok := s.Get(name)
	if !ok {
		return nil, false
	}
	return DecodeSecretData(u.Object), true
}

// DecodeSecretData reads the base64 data of an unstructured Secret. Undecodable values are
// skipped: a Secret the API server accepted always decodes.
func DecodeSecretData(obj map[string]any) map[string][]byte {
	raw, _ := obj["data"].(map[string]any)
	out := make(map[string][]byte, len(raw))
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			continue
		}
		out[k] = b
	}
	return out
}

func field(obj map[string]any, path ...string) (any, bool) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

func int64Field(obj map[string]any, path ...string) int64 {
	v, _ := field(obj, path...)
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

func unstructuredSlice(obj map[string]any, path ...string) ([]any, bool, error) {
	v, ok := field(obj, path...)
	if !ok {
		return nil, false, nil
	}
	s, ok := v.([]any)
	return s, ok, nil
}
