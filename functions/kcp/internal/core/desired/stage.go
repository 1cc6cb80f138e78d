package desired

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// WithholdNewKinds removes from the set every new object of a kind the XR composes nothing of
// yet, but the first: the others are composed on the next reconcile, which the first one's
// creation starts. It returns what it withheld.
//
// Why: Crossplane v2.3 starts its watch of a kind, after composing, once per composed object
// of that kind when no watch of the kind is running yet in the whole process, and it keeps
// every one of those watches: each later event of the kind is then counted that many times
// against the circuit breaker of every XR composing it (a CertificateSet's five Issuers were
// five watches, and the set's breaker opened before cert-manager had issued anything). With
// one object of a new kind per reconcile, each kind is watched once. Crossplane v2.4 watches
// each kind once whatever the XR composes; there this costs one reconcile of a new XR.
//
// Only new objects are withheld: an object the XR composes stays desired, so nothing that
// exists is ever deleted by this. Secrets and ConfigMaps are never withheld (quietKinds).
func (s *Set) WithholdNewKinds(composedKinds map[string]bool, exists func(resource.Name) bool) []resource.Name {
	var (
		kept     []Object
		withheld []resource.Name
	)
	first := map[string]bool{}
	for _, o := range s.objects {
		kind := o.kind()
		if composedKinds[kind] || exists(o.Name) || kind == "" || quietKinds[kind] {
			kept = append(kept, o)
			continue
		}
		if first[kind] {
			withheld = append(withheld, o.Name)
			continue
		}
		first[kind] = true
		kept = append(kept, o)
	}
	if len(withheld) == 0 {
		return nil
	}
	s.objects, s.index = nil, nil
	for _, o := range kept {
		s.put(o)
	}
	return withheld
}

// quietKinds are the kinds not worth withholding: a duplicate watch multiplies the events of
// a kind's objects, and the Secrets and ConfigMaps composed here are written by this function
// alone (and, for an adopted certificate Secret, by cert-manager once per issuance), so their
// duplicate watches cost next to nothing. Withholding one costs the XR one more change of its
// resource references, which Crossplane follows with several writes of the XR.
var quietKinds = map[string]bool{"v1/Secret": true, "v1/ConfigMap": true}

// kind is the object's "apiVersion/kind", "" when the scheme does not know it.
func (o Object) kind() string {
	if o.Kept != nil {
		return o.Kept.GetAPIVersion() + "/" + o.Kept.GetKind()
	}
	if u, ok := o.Resource.(*resource.Unstructured); ok {
		return u.GetAPIVersion() + "/" + u.GetKind()
	}
	gvks, _, err := Scheme.ObjectKinds(o.Resource)
	if err != nil || len(gvks) == 0 {
		return ""
	}
	return gvks[0].GroupVersion().String() + "/" + gvks[0].Kind
}
