// Package placement runs a component's workload in another cluster (spec.placement). The
// certificates stay where their CAs are, in the XR's namespace on the control plane; the
// Deployment, its Service and PodDisruptionBudget, and a copy of every Secret and ConfigMap
// its pods mount become provider-kubernetes Objects, which create them in the other cluster.
//
// Copies are made by provider-kubernetes from the objects on the control plane
// (references[].patchesFrom), so a key never passes through the function's desired state.
// A copy of another component's certificate, such as a CA, carries its certificate only.
package placement

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// Target is the cluster and namespace a workload runs in.
type Target struct {
	// ConfigKind and Config name the provider-kubernetes config that reaches the cluster.
	ConfigKind, Config string
	// Namespace is the namespace there.
	Namespace string
}

// Of returns the target of spec.placement of an XR in namespace; nil runs here.
func Of(p *v1alpha1.Placement, namespace string) *Target {
	if p == nil {
		return nil
	}
	t := &Target{ConfigKind: p.ProviderConfigRef.Kind, Config: p.ProviderConfigRef.Name, Namespace: p.Namespace}
	if t.ConfigKind == "" {
		t.ConfigKind = v1alpha1.PlacementProviderConfig
	}
	if t.Namespace == "" {
		t.Namespace = namespace
	}
	return t
}

// String says where the target is, for messages.
func (t *Target) String() string {
	if t == nil {
		return "this cluster"
	}
	return fmt.Sprintf("namespace %s of the cluster %s %s reaches", t.Namespace, t.ConfigKind, t.Config)
}

// Check refuses to move a running workload to another cluster or namespace, or back: its
// resources would be deleted where they run before anything runs at the new place. xr
// names the kind, for the fix.
func Check(st *observed.State, deployment resource.Name, t *Target, fld *field.Path, xr string) *field.Error {
	if !st.Exists(deployment) {
		return nil
	}
	var running *Target
	if ns, kind, config, ok := st.Placed(deployment); ok {
		running = &Target{ConfigKind: kind, Config: config, Namespace: ns}
	}
	if (running == nil && t == nil) || (running != nil && t != nil && *running == *t) {
		return nil
	}
	return field.Forbidden(fld, fmt.Sprintf("the workload runs in %s and cannot move to %s: Crossplane would delete it where it runs first. Restore the placement, or create a new %s placed where you want it and delete this one",
		running, t, xr))
}

// Workload is a composed workload to place.
type Workload struct {
	// Deployment, Service and DisruptionBudget are the resource keys of the composed
	// workload; the Service and PodDisruptionBudget may be absent.
	Deployment, Service, DisruptionBudget resource.Name
	// Own reports whether a mounted Secret or ConfigMap is the XR's own (composed by it, or
	// issued for it): its copy is deleted with the XR. Copies of others' objects are shared
	// by every component in that namespace, so they are never deleted.
	Own func(kind, name string) bool
	// CertificateOnly names the mounted Secrets of which only the certificate (tls.crt) is
	// copied: CAs and other components' certificates, whose keys stay on the control plane.
	CertificateOnly map[string]bool
	// Namespace is the XR's, where the Objects and the copied objects live.
	Namespace string
}

// Keys of the Objects placement adds to a workload's.
const (
	keyNamespace = "placed-namespace"
	keyCopy      = "placed-"
)

// Namespace composes the Object that creates t's namespace in its cluster for the workload
// named workload, an XR's of namespace (where the Object lives), and reports whether it
// exists there. Place composes it for every placed workload; what must exist in that
// namespace before the workload (a ServiceAccount, say) composes it first.
func Namespace(set *desired.Set, st *observed.State, t *Target, workload, namespace string) bool {
	set.Add(keyNamespace, inkcp.Object{
		Name: workload + ".namespace", Namespace: namespace,
		ProviderConfigKind: t.ConfigKind, ProviderConfig: t.Config,
		// Created when missing, never deleted: other components and the platform's own
		// objects may live in it.
		Policies: inkcp.PoliciesKeep,
		Manifest: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": t.Namespace}},
	}.Unstructured(), readiness(st, keyNamespace))
	return st.ConditionTrue(keyNamespace, "Ready")
}

// Place replaces the workload's resources in set with Objects for target t, and adds a copy
// of everything its pods mount. A workload kept as it was (an input is missing) keeps its
// copies too: what runs there is not touched while something here is in doubt.
func Place(set *desired.Set, st *observed.State, t *Target, w Workload) error {
	d, ok := set.Get(w.Deployment)
	if !ok {
		return nil
	}
	name := objectName(d)
	Namespace(set, st, t, name, w.Namespace)
	if d.Kept != nil {
		for _, key := range st.ComposedNames() {
			if strings.HasPrefix(string(key), keyCopy) && !set.Has(key) {
				if u, ok := st.Get(key); ok {
					set.Keep(key, u, readiness(st, key))
				}
			}
		}
		return nil
	}
	dep, ok := d.Resource.(*appsv1.Deployment)
	if !ok {
		return fmt.Errorf("placing %s: composed %T, not a Deployment", w.Deployment, d.Resource)
	}
	for _, key := range []resource.Name{w.Deployment, w.Service, w.DisruptionBudget} {
		o, ok := set.Get(key)
		if !ok || o.Kept != nil {
			continue
		}
		u, err := desired.ToComposed(o.Resource)
		if err != nil {
			return fmt.Errorf("placing %s: %w", key, err)
		}
		u.SetNamespace(t.Namespace)
		set.Add(key, inkcp.Object{
			Name: u.GetName() + "." + strings.ToLower(u.GetKind()), Namespace: w.Namespace, Labels: u.GetLabels(),
			ProviderConfigKind: t.ConfigKind, ProviderConfig: t.Config,
			Policies: inkcp.PoliciesAll, Manifest: u.Object,
		}.Unstructured(), o.Ready)
	}
	for _, m := range mounted(dep) {
		key := resource.Name(keyCopy + strings.ToLower(m.kind) + "-" + m.name)
		set.Add(key, w.copyOf(m, name, t), readiness(st, key))
	}
	return nil
}

// copyOf is the Object that copies mounted object m into the target's namespace.
func (w Workload) copyOf(m mount, workload string, t *Target) *resource.Unstructured {
	ref := func(path string) inkcp.Reference {
		return inkcp.Reference{APIVersion: "v1", Kind: m.kind, Namespace: w.Namespace, Name: m.name, FieldPath: path}
	}
	manifest := map[string]any{"apiVersion": "v1", "kind": m.kind, "metadata": map[string]any{"name": m.name, "namespace": t.Namespace}}
	var refs []inkcp.Reference
	switch {
	case m.kind == resource.KindSecret && w.CertificateOnly[m.name]:
		manifest["type"] = "Opaque"
		refs = []inkcp.Reference{ref("data[tls.crt]")}
	case m.kind == resource.KindSecret:
		refs = []inkcp.Reference{ref("type"), ref("data")}
	default:
		refs = []inkcp.Reference{ref("data")}
	}
	policies := inkcp.PoliciesKeep
	if w.Own(m.kind, m.name) {
		policies = inkcp.PoliciesAll
	}
	return inkcp.Object{
		Name: workload + "." + m.name + "." + strings.ToLower(m.kind), Namespace: w.Namespace,
		ProviderConfigKind: t.ConfigKind, ProviderConfig: t.Config,
		Policies: policies, Manifest: manifest, References: refs,
	}.Unstructured()
}

// mount is a Secret or ConfigMap a pod uses.
type mount struct{ kind, name string }

// mounted lists the Secrets and ConfigMaps the Deployment's pods use, once each, in the
// order of the pod spec: volumes (projected ones included) and image pull Secrets.
func mounted(dep *appsv1.Deployment) []mount {
	var out []mount
	seen := map[mount]bool{}
	add := func(kind, name string) {
		m := mount{kind, name}
		if name != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	pod := dep.Spec.Template.Spec
	for _, v := range pod.Volumes {
		switch {
		case v.Secret != nil:
			add(resource.KindSecret, v.Secret.SecretName)
		case v.ConfigMap != nil:
			add(resource.KindConfigMap, v.ConfigMap.Name)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					add(resource.KindSecret, s.Secret.Name)
				}
				if s.ConfigMap != nil {
					add(resource.KindConfigMap, s.ConfigMap.Name)
				}
			}
		}
	}
	for _, s := range pod.ImagePullSecrets {
		add(resource.KindSecret, s.Name)
	}
	return out
}

// objectName is the name of a desired object, whether built or kept.
func objectName(o desired.Object) string {
	if o.Kept != nil {
		// A kept Deployment is the placed Object <deployment>.deployment.
		return strings.TrimSuffix(o.Kept.GetName(), ".deployment")
	}
	if m, ok := o.Resource.(interface{ GetName() string }); ok {
		return m.GetName()
	}
	return string(o.Name)
}

// readiness of a placed object: its Object reports the object created there.
func readiness(st *observed.State, key resource.Name) resource.Ready {
	if st.ConditionTrue(key, "Ready") {
		return resource.ReadyTrue
	}
	return resource.ReadyFalse
}
