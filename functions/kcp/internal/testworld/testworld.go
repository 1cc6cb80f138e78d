// Package testworld builds, for composer tests, the observed state a composer reads: the
// composed resources Crossplane observed and the required objects (other XRs, Secrets) it
// fetched. Only tests import it.
package testworld

import (
	"encoding/base64"
	"encoding/json"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
}

// New is an empty World.
func New() *World { return &World{composed: map[resource.Name]*resource.Unstructured{}} }

// Object adds a required object (any JSON-serialisable value, such as a typed XR).
func (w *World) Object(o any) *World {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	w.required = append(w.required, m)
	return w
}

// Secret adds required Secrets whose tls.crt is the placeholder "PEM(<name>)".
func (w *World) Secret(names ...string) *World {
	for _, name := range names {
		w.Object(map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name, "namespace": Namespace, "resourceVersion": "1"},
			"data":     map[string]any{"tls.crt": base64.StdEncoding.EncodeToString([]byte("PEM(" + name + ")"))},
		})
	}
	return w
}

// RootCAs adds the Secrets of RootShard root's CAs.
func (w *World) RootCAs() *World { return w.Secret(RootCASecrets...) }

// Drop removes the required object of that kind and name.
func (w *World) Drop(kind, name string) *World {
	out := w.required[:0]
	for _, r := range w.required {
		if md, _ := r["metadata"].(map[string]any); r["kind"] == kind && md["name"] == name {
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

// ComposedFrom replaces w's composed resources with other's, for a world in which
// something required went away while everything composed stays.
func (w *World) ComposedFrom(other *World) *World {
	w.composed = other.composed
	return w
}

// Settle observes everything a composition desired as existing: Certificates issued (and
// their Secrets present), Deployments available, kept objects as they were.
func (w *World) Settle(set desired.Set) *World {
	ready := []any{map[string]any{"type": "Ready", "status": "True"}}
	for _, o := range set.Objects() {
		if o.Kept != nil {
			w.composed[o.Name] = o.Kept
			continue
		}
		switch obj := o.Resource.(type) {
		case *cmv1.Certificate:
			w.Put(o.Name, map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
				"metadata": map[string]any{"name": obj.Name}, "status": map[string]any{"revision": int64(1), "conditions": ready}})
			w.Secret(obj.Spec.SecretName)
		case *appsv1.Deployment:
			n := int64(*obj.Spec.Replicas)
			w.Put(o.Name, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": obj.Name, "generation": int64(1)}, "spec": map[string]any{"replicas": n},
				"status": map[string]any{"observedGeneration": int64(1), "replicas": n, "updatedReplicas": n, "availableReplicas": n,
					"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}})
		default:
			if o.Resource != nil {
				cd, err := desired.ToComposed(o.Resource)
				if err != nil {
					panic(err)
				}
				w.composed[o.Name] = cd
			}
		}
	}
	return w
}

// State is the World as a composer reads it.
func (w *World) State() *observed.State {
	st := observed.New(w.composed)
	for _, r := range w.required {
		st.WithObject(r)
	}
	return st
}

// RootShard is RootShard root in namespace kcp at api.example.com:6443 with a ClusterIssuer,
// changed by mods.
func RootShard(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard"},
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
