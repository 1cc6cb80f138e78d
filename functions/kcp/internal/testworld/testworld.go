// Package testworld builds, for composer tests, the observed state a composer reads: the
// composed resources Crossplane observed and the required objects (other XRs, Secrets,
// ConfigMaps) it fetched. Only tests import it.
package testworld

import (
	"encoding/base64"
	"encoding/json"
	"maps"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// Namespace of every object a World holds.
const Namespace = "kcp"

// RootCASecrets are the Secrets of the CAs RootShard "root" issues.
var RootCASecrets = []string{"root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca", "root-service-account-ca"}

// World is the observed state of one XR.
type World struct {
	composed map[resource.Name]*resource.Unstructured
	required []map[string]any
	answered []string
	// home is the XR's namespace when objects of other namespaces are required (InNamespace).
	home string
}

// InNamespace sets the XR's namespace: required objects of others are found only by
// namespace, as the function finds them.
func (w *World) InNamespace(ns string) *World {
	w.home = ns
	return w
}

// New is an empty World.
func New() *World { return &World{composed: map[resource.Name]*resource.Unstructured{}} }

// Clone is a deep copy of w, for cases that each change one world their own way.
func (w *World) Clone() *World {
	c := New()
	for k, u := range w.composed {
		c.composed[k] = u.DeepCopy()
	}
	for _, r := range w.required {
		c.required = append(c.required, runtime.DeepCopyJSON(r))
	}
	c.answered = append(c.answered, w.answered...)
	c.home = w.home
	return c
}

// Answer records that Crossplane answered the requirements with these keys, as it does on
// its second call, whether or not it found anything.
func (w *World) Answer(keys ...string) *World {
	w.answered = append(w.answered, keys...)
	return w
}

// Object adds a required object (any JSON-serialisable value, such as a typed XR). It
// replaces the one of the same kind and name: the API server holds one.
func (w *World) Object(o any) *World {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	kind, name := kindName(m)
	for i, r := range w.required {
		if k, n := kindName(r); k == kind && n == name && namespaceOf(r) == namespaceOf(m) {
			w.required[i] = m
			return w
		}
	}
	w.required = append(w.required, m)
	return w
}

// Required is the required object of that kind and name, to change in place (say its owner
// references); nil when w holds none.
func (w *World) Required(kind, name string) map[string]any {
	for _, r := range w.required {
		if k, n := kindName(r); k == kind && n == name {
			return r
		}
	}
	return nil
}

// namespaceOf is an object's namespace, Namespace when it names none.
func namespaceOf(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	if ns, _ := md["namespace"].(string); ns != "" {
		return ns
	}
	return Namespace
}

func kindName(o map[string]any) (kind, name string) {
	md, _ := o["metadata"].(map[string]any)
	kind, _ = o["kind"].(string)
	name, _ = md["name"].(string)
	return kind, name
}

// Secret adds required Secrets whose tls.crt and tls.key are the placeholders "PEM(<name>)"
// and "KEY(<name>)", as cert-manager writes both.
func (w *World) Secret(names ...string) *World {
	for _, name := range names {
		w.SecretData(name, map[string]string{"tls.crt": "PEM(" + name + ")", "tls.key": "KEY(" + name + ")"})
	}
	return w
}

// SecretData adds a required Secret holding data (encoded as the API server returns it).
func (w *World) SecretData(name string, data map[string]string) *World {
	enc := map[string]any{}
	for k, v := range data {
		enc[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	return w.Object(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": Namespace, "resourceVersion": "1"},
		"data":     enc,
	})
}

// ConfigMap adds a required ConfigMap holding data.
func (w *World) ConfigMap(name string, data map[string]string) *World {
	raw := map[string]any{}
	for k, v := range data {
		raw[k] = v
	}
	return w.Object(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": Namespace, "resourceVersion": "1"},
		"data":     raw,
	})
}

// ResourceVersion sets the resourceVersion of the required object of that kind and name.
// Every object starts at "1"; a test that tells an object written again with the same data
// from a changed one sets it.
func (w *World) ResourceVersion(kind, name, resourceVersion string) *World {
	r := w.Required(kind, name)
	if r == nil {
		panic("testworld: no required " + kind + " " + name)
	}
	r["metadata"].(map[string]any)["resourceVersion"] = resourceVersion
	return w
}

// RootCAs adds the Secrets of RootShard root's CAs.
func (w *World) RootCAs() *World { return w.Secret(RootCASecrets...) }

// Drop removes the required object of that kind and name.
func (w *World) Drop(kind, name string) *World {
	out := w.required[:0]
	for _, r := range w.required {
		if k, n := kindName(r); k == kind && n == name {
			continue
		}
		out = append(out, r)
	}
	w.required = out
	return w
}

// Put adds an observed composed resource.
func (w *World) Put(key resource.Name, obj map[string]any) *World {
	u := resource.NewUnstructured()
	u.Object = obj
	w.composed[key] = u
	return w
}

// Composed is the observed composed resource under key, to change in place (say a
// Deployment scaled by hand); nil when w holds none.
func (w *World) Composed(key resource.Name) *resource.Unstructured { return w.composed[key] }

// DropComposed removes the observed composed resource under key, as if it were deleted.
func (w *World) DropComposed(key resource.Name) *World {
	delete(w.composed, key)
	return w
}

// ComposedFrom replaces w's composed resources with a copy of other's, for a world in which
// something required went away while everything composed stays.
func (w *World) ComposedFrom(other *World) *World {
	w.composed = maps.Clone(other.composed)
	return w
}

// Cert is the status cert-manager reports for a Certificate.
type Cert struct {
	// Ready is the Ready condition: the Secret holds the certificate the spec asks for.
	Ready bool
	// Revision counts issuances; 0 leaves status.revision out, as before the first one.
	Revision int64
	// NotAfter is when the issued certificate expires (RFC 3339); "" leaves it out.
	NotAfter string
}

// Certificate observes the Certificate name under key with the status st.
func (w *World) Certificate(key resource.Name, name string, st Cert) *World {
	ready := "False"
	if st.Ready {
		ready = "True"
	}
	status := map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}
	if st.Revision != 0 {
		status["revision"] = st.Revision
	}
	if st.NotAfter != "" {
		status["notAfter"] = st.NotAfter
	}
	return w.Put(key, map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": name, "namespace": Namespace}, "status": status})
}

// Issued observes every Certificate set desires as issued at revision, and adds the Secret
// cert-manager writes for it (see Secret). A test renews certificates by issuing a converged
// set again at a higher revision.
func (w *World) Issued(set desired.Set, revision int64) *World {
	for _, o := range set.Objects() {
		if c, ok := o.Resource.(*cmv1.Certificate); ok {
			w.Certificate(o.Name, c.Name, Cert{Ready: true, Revision: revision})
			w.Secret(c.Spec.SecretName)
		}
		if u, ok := o.Resource.(*resource.Unstructured); ok && u.GetKind() == v1alpha1.KindCertificateSet {
			w.issuedSet(o.Name, u, revision)
		}
	}
	return w
}

// issuedSet observes a CertificateSet the way its own composition reports a set whose
// certificates are all issued at revision, and adds their Secrets.
func (w *World) issuedSet(key resource.Name, set *resource.Unstructured, revision int64) {
	members, _, _ := unstructured.NestedSlice(set.Object, "spec", "certificates")
	var issued []any
	for _, m := range members {
		mm, _ := m.(map[string]any)
		secret, _, _ := unstructured.NestedString(mm, "resource", "spec", "secretName")
		w.Secret(secret)
		issued = append(issued, map[string]any{"key": mm["key"], "revision": revision})
	}
	o := set.DeepCopy()
	o.Object["status"] = map[string]any{"certificates": issued,
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	w.composed[key] = o
}

// Exists observes everything else set desires as Crossplane created it: kept objects as they
// were, Deployments rolled out and available, Issuers Ready, and the rest as desired. A
// Certificate already observed keeps its status (see Issued); one not yet observed has none:
// cert-manager has not issued it.
func (w *World) Exists(set desired.Set) *World {
	ready := []any{map[string]any{"type": "Ready", "status": "True"}}
	for _, o := range set.Objects() {
		if o.Kept != nil {
			w.composed[o.Name] = o.Kept
			continue
		}
		switch obj := o.Resource.(type) {
		case *cmv1.Certificate:
			if w.composed[o.Name] != nil {
				continue
			}
			w.put(o.Name, obj)
		case *resource.Unstructured:
			// An XR (a CertificateSet, a KcpInstallation's RootShard): one already observed
			// keeps its status, as a Certificate does.
			if obj.GetKind() == v1alpha1.KindCertificateSet && w.composed[o.Name] != nil {
				continue
			}
			w.put(o.Name, obj)
		case *appsv1.Deployment:
			n := int64(*obj.Spec.Replicas)
			var containers []any // what status.image is read from
			for _, c := range obj.Spec.Template.Spec.Containers {
				containers = append(containers, map[string]any{"name": c.Name, "image": c.Image})
			}
			w.Put(o.Name, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": obj.Name, "namespace": obj.Namespace, "generation": int64(1)},
				"spec": map[string]any{"replicas": n, "template": map[string]any{
					"metadata": map[string]any{"annotations": stringMap(obj.Spec.Template.Annotations)},
					"spec":     map[string]any{"containers": containers},
				}},
				"status": map[string]any{"observedGeneration": int64(1), "replicas": n, "updatedReplicas": n, "availableReplicas": n,
					"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}})
		case *cmv1.Issuer:
			w.Put(o.Name, map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
				"metadata": map[string]any{"name": obj.Name, "namespace": obj.Namespace}, "status": map[string]any{"conditions": ready}})
		default:
			if o.Resource != nil {
				w.put(o.Name, obj)
			}
		}
	}
	return w
}

// stringMap is m as JSON holds it.
func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// put observes a desired object as the composed resource Crossplane applied, without status.
func (w *World) put(key resource.Name, obj runtime.Object) {
	cd, err := desired.ToComposed(obj)
	if err != nil {
		panic(err)
	}
	w.composed[key] = cd
}

// Settle observes everything a composition desired as existing: Certificates issued at
// revision 1 (and their Secrets present), Deployments available, Issuers Ready, kept objects
// as they were.
func (w *World) Settle(set desired.Set) *World { return w.Issued(set, 1).Exists(set) }

// State is the World as a composer reads it.
func (w *World) State() *observed.State {
	// Objects of other namespaces (a Tenant's team) are kept apart, as the function does,
	// once the XR's namespace is known.
	st := observed.New(w.composed).InNamespace(w.home)
	for _, r := range w.required {
		st.WithObject(r)
	}
	for _, k := range w.answered {
		st.Answer(k)
	}
	return st
}

// RootShard is RootShard root in namespace kcp at api.example.com:6443 with a ClusterIssuer,
// changed by mods.
func RootShard(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: v1alpha1.KindRootShard},
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: Namespace},
		Spec: v1alpha1.RootShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-root:2379"}}},
			External:        v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 6443},
			Certificates:    v1alpha1.Certificates{IssuerRef: &v1alpha1.ObjectReference{Name: "selfsigned", Kind: "ClusterIssuer"}},
		},
	}
	for _, m := range mods {
		m(rs)
	}
	return rs
}

// Shard is Shard name of RootShard root in namespace kcp, changed by mods.
func Shard(name string, mods ...func(*v1alpha1.Shard)) *v1alpha1.Shard {
	sh := &v1alpha1.Shard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: v1alpha1.KindShard},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		Spec: v1alpha1.ShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-" + name + ":2379"}}},
			RootShard:       v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
		},
	}
	for _, m := range mods {
		m(sh)
	}
	return sh
}

// Condition sets condition t of the observed composed resource under key, as its controller
// would (say provider-kubernetes on an Object); it does nothing when w holds none.
func (w *World) Condition(key resource.Name, t string, ok bool, reason, message string) *World {
	u := w.composed[key]
	if u == nil {
		return w
	}
	status := "False"
	if ok {
		status = "True"
	}
	st, _ := u.Object["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	var conds []any
	prev, _ := st["conditions"].([]any)
	for _, c := range prev {
		if m, _ := c.(map[string]any); m["type"] != t {
			conds = append(conds, c)
		}
	}
	st["conditions"] = append(conds, map[string]any{"type": t, "status": status, "reason": reason, "message": message})
	u.Object["status"] = st
	return w
}

// Flatten returns set with every CertificateSet replaced by the Issuers and Certificates it
// composes, under their own keys, as they were before RootShards and Shards composed them
// through sets: tests that look at certificates look at them the same way either way. Each
// is ready as st says: a Certificate issued, an Issuer Ready.
func Flatten(set desired.Set, st *observed.State) desired.Set {
	var out desired.Set
	for _, o := range set.Objects() {
		u, ok := o.Resource.(*resource.Unstructured)
		if !ok || u.GetKind() != v1alpha1.KindCertificateSet {
			if o.Kept != nil {
				out.Keep(o.Name, o.Kept, o.Ready)
			} else {
				out.Add(o.Name, o.Resource, o.Ready)
			}
			continue
		}
		for _, list := range []string{"issuers", "certificates"} {
			members, _, _ := unstructured.NestedSlice(u.Object, "spec", list)
			for _, m := range members {
				mm := m.(map[string]any)
				raw, err := json.Marshal(mm["resource"])
				if err != nil {
					panic(err)
				}
				key := resource.Name(mm["key"].(string))
				var obj runtime.Object = &cmv1.Certificate{}
				ready := st.CertificateIssued(key)
				if list == "issuers" {
					obj = &cmv1.Issuer{}
					ready = st.ConditionTrue(key, "Ready")
				}
				if err := json.Unmarshal(raw, obj); err != nil {
					panic(err)
				}
				r := resource.ReadyFalse
				if ready {
					r = resource.ReadyTrue
				}
				out.Add(key, obj, r)
			}
		}
	}
	return out
}
