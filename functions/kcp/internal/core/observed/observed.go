// Package observed answers the questions a composer asks about the world: is this
// Certificate issued, at which revision, is that Deployment available, what does this
// Secret hold. It reads the observed composed resources and required resources of one
// RunFunction request.
package observed

import (
	"encoding/base64"
	"fmt"
	"slices"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// State is the observed world of one XR.
//
// Observed composed resources stay in the protobuf form Crossplane sent: the questions read a
// few fields each, and converting every object to a map first cost a fifth of a converged
// RootShard's RunFunction. Get converts one object, when it is carried forward whole.
type State struct {
	composed map[resource.Name]*structpb.Struct
	// whole caches the objects Get converted.
	whole   map[resource.Name]*resource.Unstructured
	objects map[string]Lookup
	// kinds indexes the names of required objects by kind.
	kinds map[string][]string
	// namespace is the XR's. Required objects of other namespaces are kept apart, under
	// kind/namespace/name: a team's Kubeconfig must never be mistaken for the platform's
	// of the same name. "" keeps every object together (tests of one namespace).
	namespace string
	// elsewhere holds the required objects of other namespaces, by kind/namespace/name.
	elsewhere map[string]Lookup
	// elsewhereKinds indexes their names by kind/namespace.
	elsewhereKinds map[string][]string
	// answered holds the keys of the requirements Crossplane answered in this request,
	// found or not.
	answered map[string]bool
	// setCertificates are the certificates composed CertificateSets report issued, indexed
	// on first use (certificateset.go).
	setCertificates map[resource.Name]issuedInSet
	// composite is the observed XR as the API server stores it: what a team's XR weighs is
	// measured on it, not on its typed form, which leaves out spec.crossplane.
	composite map[string]any
}

// WithComposite records the observed XR as stored.
func (s *State) WithComposite(xr map[string]any) *State {
	s.composite = xr
	return s
}

// Composite is the observed XR as stored; nil when it was not recorded (composer tests).
func (s *State) Composite() map[string]any { return s.composite }

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
	// ControllerKind and ControllerName name that controller, for messages.
	ControllerKind, ControllerName string
}

// Meta is the found object with its metadata's accessors (name, namespace, creation time);
// an object without metadata answers with empty values.
func (l Lookup) Meta() *resource.Unstructured { return &resource.Unstructured{Object: l.Object} }

// FromRequest returns the state for a request's observed composed resources, keyed by
// composition resource name as Crossplane sends them.
func FromRequest(observed map[string]*fnv1.Resource) *State {
	s := empty()
	for name, r := range observed {
		if r.GetResource() != nil {
			s.composed[resource.Name(name)] = r.GetResource()
		}
	}
	return s
}

// New returns the state for the given observed composed resources, unstructured (tests
// build states this way).
func New(oc map[resource.Name]*resource.Unstructured) *State {
	s := empty()
	for name, o := range oc {
		if o == nil {
			continue
		}
		st, err := structpb.NewStruct(o.Object)
		if err != nil {
			panic(fmt.Sprintf("observed %s is not JSON: %v", name, err))
		}
		s.composed[name] = st
	}
	return s
}

func empty() *State {
	return &State{
		composed: map[resource.Name]*structpb.Struct{},
		whole:    map[resource.Name]*resource.Unstructured{},
		objects:  map[string]Lookup{},
		kinds:    map[string][]string{},
		answered: map[string]bool{},

		elsewhere:      map[string]Lookup{},
		elsewhereKinds: map[string][]string{},
	}
}

// InNamespace sets the XR's namespace: required objects of any other namespace recorded
// after it are found only by ObjectIn and NamesIn.
func (s *State) InNamespace(ns string) *State {
	s.namespace = ns
	return s
}

// Answer records that Crossplane answered the requirement with this key, whether or not it
// found anything.
func (s *State) Answer(key string) *State {
	s.answered[key] = true
	return s
}

// Answered reports whether Crossplane answered the requirement with this key. Before it has,
// "not found" means "not read yet": Crossplane calls the function again with the answer
// before it applies anything, so a composer must not refuse on a requirement it has not seen.
func (s *State) Answered(key string) bool { return s.answered[key] }

// WithObject records a required Secret or ConfigMap that was found.
func (s *State) WithObject(u map[string]any) *State {
	kind, _ := u["kind"].(string)
	meta, _ := u["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	rv, _ := meta["resourceVersion"].(string)
	l := Lookup{Found: true, ResourceVersion: rv}
	l.Controller, l.ControllerKind, l.ControllerName = controllerOf(meta)
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
	}
	if s.namespace != "" && ns != "" && ns != s.namespace {
		s.elsewhere[kind+"/"+ns+"/"+name] = l
		if l.Object != nil {
			s.elsewhereKinds[kind+"/"+ns] = append(s.elsewhereKinds[kind+"/"+ns], name)
		}
		return s
	}
	if l.Object != nil {
		s.kinds[kind] = append(s.kinds[kind], name)
	}
	s.objects[kind+"/"+name] = l
	return s
}

// ObjectIn returns what is known about a required object of namespace ns, the XR's own or
// another.
func (s *State) ObjectIn(ns, kind, name string) Lookup {
	if ns == "" || ns == s.namespace || s.namespace == "" {
		return s.Object(kind, name)
	}
	return s.elsewhere[kind+"/"+ns+"/"+name]
}

// NamesIn is Names for the required objects of namespace ns.
func (s *State) NamesIn(ns, kind string) []string {
	if ns == "" || ns == s.namespace || s.namespace == "" {
		return s.Names(kind)
	}
	out := slices.Clone(s.elsewhereKinds[kind+"/"+ns])
	slices.Sort(out)
	return slices.Compact(out)
}

// controllerOf returns the UID, kind and name of the controller owner reference in
// metadata.
func controllerOf(meta map[string]any) (uid, kind, name string) {
	refs, _ := meta["ownerReferences"].([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		if c, _ := ref["controller"].(bool); c {
			uid, _ = ref["uid"].(string)
			kind, _ = ref["kind"].(string)
			name, _ = ref["name"].(string)
			return uid, kind, name
		}
	}
	return "", "", ""
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

// Get returns the observed composed resource with key name, whole.
func (s *State) Get(name resource.Name) (*resource.Unstructured, bool) {
	if u, ok := s.whole[name]; ok {
		return u, true
	}
	st, ok := s.composed[name]
	if !ok {
		return nil, false
	}
	u := resource.NewUnstructured()
	u.SetUnstructuredContent(st.AsMap())
	s.whole[name] = u
	return u, true
}

// ComposedNames lists the keys of every observed composed resource, sorted.
func (s *State) ComposedNames() []resource.Name {
	out := make([]resource.Name, 0, len(s.composed))
	for k := range s.composed {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Exists reports whether the composed resource with key name exists.
func (s *State) Exists(name resource.Name) bool {
	_, ok := s.composed[name]
	return ok
}

// ConditionTrue reports whether the composed resource has condition t with status True.
func (s *State) ConditionTrue(name resource.Name, t string) bool {
	for _, c := range s.value(name, "status", "conditions").GetListValue().GetValues() {
		f := c.GetStructValue().GetFields()
		if f["type"].GetStringValue() == t && f["status"].GetStringValue() == "True" {
			return true
		}
	}
	return false
}

// Condition returns a composed resource's condition of type t: whether it is True, and its
// reason and message; found is false when the resource or the condition is absent.
func (s *State) Condition(name resource.Name, t string) (ok bool, reason, message string, found bool) {
	for _, c := range s.value(name, "status", "conditions").GetListValue().GetValues() {
		f := c.GetStructValue().GetFields()
		if f["type"].GetStringValue() == t {
			return f["status"].GetStringValue() == "True", f["reason"].GetStringValue(), f["message"].GetStringValue(), true
		}
	}
	return false, "", "", false
}

// Strings returns a list of strings of a composed resource, nil when absent.
func (s *State) Strings(name resource.Name, path ...string) []string {
	var out []string
	for _, v := range s.value(name, path...).GetListValue().GetValues() {
		out = append(out, v.GetStringValue())
	}
	return out
}

// CertificateIssued reports whether a composed cert-manager Certificate is Ready, its first
// issuance finished. cert-manager writes the Secret before it sets status.revision and
// drops the Issuing condition, and may report Ready=True in between: a workload composed
// then would carry revision 0 in its pods' annotations and change again a moment later (a
// second rollout). A Certificate that adopted a valid existing Secret was never issued and
// has no revision: it is issued once Ready. Renewals keep the revision and are not waited for.
func (s *State) CertificateIssued(name resource.Name) bool {
	if _, ok := s.issuedThroughSet(name); ok {
		return true
	}
	if !s.ConditionTrue(name, "Ready") {
		return false
	}
	return s.CertificateRevision(name) > 0 || !s.ConditionTrue(name, "Issuing")
}

// CertificateRevision is the Certificate's status.revision, 0 when unknown.
func (s *State) CertificateRevision(name resource.Name) int64 {
	if i, ok := s.issuedThroughSet(name); ok {
		return i.revision
	}
	return s.int64(name, "status", "revision")
}

// DeploymentAvailable reports whether a composed Deployment has rolled out its current
// generation and all its replicas are updated and available. A Deployment placed in another
// cluster is read from its provider-kubernetes Object's observation of it.
func (s *State) DeploymentAvailable(name resource.Name) bool {
	if !s.Exists(name) {
		return false
	}
	if s.workload(name, "status", "observedGeneration").GetNumberValue() < s.workload(name, "metadata", "generation").GetNumberValue() {
		return false
	}
	want := float64(1)
	if r := s.workload(name, "spec", "replicas"); r != nil {
		want = r.GetNumberValue()
	}
	return s.workload(name, "status", "updatedReplicas").GetNumberValue() >= want &&
		s.workload(name, "status", "availableReplicas").GetNumberValue() >= want &&
		s.workload(name, "status", "replicas").GetNumberValue() <= want &&
		conditionIn(s.workload(name, "status", "conditions"), "Available") == "True"
}

// DeploymentServing returns how many replicas of a composed Deployment are available, and
// whether that is known: the Deployment is observed with a status, here or, through a
// provider-kubernetes Object that can reach it, in another cluster. Kubernetes leaves a count
// of zero out of the status.
func (s *State) DeploymentServing(name resource.Name) (int32, bool) {
	if !s.Exists(name) || s.workload(name, "status", "observedGeneration") == nil {
		return 0, false
	}
	if _, unreachable := s.Unreachable(name); unreachable {
		return 0, false
	}
	return int32(s.workload(name, "status", "availableReplicas").GetNumberValue()), true
}

// DeploymentImage returns the image of a composed Deployment's first container: the
// component's own, before any sidecar a user adds.
func (s *State) DeploymentImage(name resource.Name) string {
	containers := s.workload(name, "spec", "template", "spec", "containers").GetListValue().GetValues()
	if len(containers) == 0 {
		return ""
	}
	return containers[0].GetStructValue().GetFields()["image"].GetStringValue()
}

// DeploymentRolloutFailed returns the message of a composed Deployment whose rollout has
// stopped: its Progressing condition is False (ProgressDeadlineExceeded).
func (s *State) DeploymentRolloutFailed(name resource.Name) (string, bool) {
	for _, c := range s.workload(name, "status", "conditions").GetListValue().GetValues() {
		f := c.GetStructValue().GetFields()
		if f["type"].GetStringValue() == "Progressing" && f["status"].GetStringValue() != "True" {
			return f["reason"].GetStringValue() + ": " + f["message"].GetStringValue(), true
		}
	}
	return "", false
}

// DeploymentReplicas returns the observed spec.replicas of a composed Deployment.
func (s *State) DeploymentReplicas(name resource.Name) (int32, bool) {
	r := s.workload(name, "spec", "replicas")
	if r == nil {
		return 0, false
	}
	return int32(r.GetNumberValue()), true
}

// Placed reports whether the composed resource is a provider-kubernetes Object standing for
// a workload in another cluster, and returns its manifest's namespace there and the kind
// and name of its provider config.
func (s *State) Placed(name resource.Name) (namespace, configKind, config string, ok bool) {
	if !s.isRemoteObject(name) {
		return "", "", "", false
	}
	ref := s.value(name, "spec", "providerConfigRef").GetStructValue().GetFields()
	return s.value(name, "spec", "forProvider", "manifest", "metadata", "namespace").GetStringValue(),
		ref["kind"].GetStringValue(), ref["name"].GetStringValue(), true
}

// Unreachable returns why provider-kubernetes cannot keep a placed resource in step with its
// cluster (its Object's Synced condition is False), such as that cluster being unreachable.
// What the Object last observed there stays in its status meanwhile, so a Deployment that
// was available still reads as available.
func (s *State) Unreachable(name resource.Name) (string, bool) {
	if !s.isRemoteObject(name) {
		return "", false
	}
	ok, reason, message, found := s.Condition(name, "Synced")
	if !found || ok {
		return "", false
	}
	return reason + ": " + message, true
}

// workload is the field at path of a composed workload: of the resource itself, or of what a
// provider-kubernetes Object observed of it in another cluster.
func (s *State) workload(name resource.Name, path ...string) *structpb.Value {
	if s.isRemoteObject(name) {
		return s.value(name, append([]string{"status", "atProvider", "manifest"}, path...)...)
	}
	return s.value(name, path...)
}

// isRemoteObject reports whether a composed resource is a provider-kubernetes Object.
func (s *State) isRemoteObject(name resource.Name) bool {
	return s.value(name, "kind").GetStringValue() == "Object" &&
		s.value(name, "apiVersion").GetStringValue() == remoteObjectAPIVersion
}

// remoteObjectAPIVersion is provider-kubernetes' namespaced Object's.
const remoteObjectAPIVersion = "kubernetes.m.crossplane.io/v1alpha1"

// conditionIn returns the status of condition t in a list of conditions, "" when absent.
func conditionIn(conditions *structpb.Value, t string) string {
	for _, c := range conditions.GetListValue().GetValues() {
		f := c.GetStructValue().GetFields()
		if f["type"].GetStringValue() == t {
			return f["status"].GetStringValue()
		}
	}
	return ""
}

// StatefulSetReady returns a composed StatefulSet's ready replicas, and whether its status
// describes its current generation.
func (s *State) StatefulSetReady(name resource.Name) (int32, bool) {
	if !s.Exists(name) {
		return 0, false
	}
	current := s.int64(name, "status", "observedGeneration") >= s.int64(name, "metadata", "generation")
	return int32(s.int64(name, "status", "readyReplicas")), current
}

// String returns a string field of a composed resource, or "".
func (s *State) String(name resource.Name, path ...string) string {
	return s.value(name, path...).GetStringValue()
}

// Map returns the object at path of a composed resource, converted alone: reading one part
// of an object need not convert it whole (Get). ok is false when there is no object there.
func (s *State) Map(name resource.Name, path ...string) (m map[string]any, ok bool) {
	st := s.value(name, path...).GetStructValue()
	if st == nil {
		return nil, false
	}
	return st.AsMap(), true
}

// SecretData returns the data of a composed Secret.
func (s *State) SecretData(name resource.Name) (map[string][]byte, bool) {
	if !s.Exists(name) {
		return nil, false
	}
	raw := s.value(name, "data").GetStructValue().GetFields()
	out := make(map[string][]byte, len(raw))
	for k, v := range raw {
		str, ok := v.GetKind().(*structpb.Value_StringValue)
		if !ok {
			continue
		}
		if b, err := base64.StdEncoding.DecodeString(str.StringValue); err == nil {
			out[k] = b
		}
	}
	return out, true
}

// value is the field at path of a composed resource, nil when absent.
func (s *State) value(name resource.Name, path ...string) *structpb.Value {
	st, ok := s.composed[name]
	if !ok || len(path) == 0 {
		return nil
	}
	v := st.GetFields()[path[0]]
	for _, p := range path[1:] {
		v = v.GetStructValue().GetFields()[p]
	}
	return v
}

// int64 is the number at path of a composed resource, 0 when absent.
func (s *State) int64(name resource.Name, path ...string) int64 {
	return int64(s.value(name, path...).GetNumberValue())
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

// ConditionOf returns condition t of a required object (Lookup.Object), as Condition does for
// a composed resource.
func ConditionOf(obj map[string]any, t string) (ok bool, reason, message string, found bool) {
	status, _ := obj["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == t {
			reason, _ = m["reason"].(string)
			message, _ = m["message"].(string)
			return m["status"] == "True", reason, message, true
		}
	}
	return false, "", "", false
}

// ComposedKinds returns the kinds the XR composes objects of, as "apiVersion/kind".
func (s *State) ComposedKinds() map[string]bool {
	out := map[string]bool{}
	for _, o := range s.composed {
		f := o.GetFields()
		out[f["apiVersion"].GetStringValue()+"/"+f["kind"].GetStringValue()] = true
	}
	return out
}
