package builder

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// XR composes an XR of this function's own kinds (a KcpInstallation's RootShard, a claim's
// KcpInstallation) with the given spec, ready once the XR reports Ready; it returns whether
// it is. Crossplane composes it, and this function composes it again under its own kind.
func (b *Builder) XR(key resource.Name, kind, name string, labels map[string]string, spec v1alpha1.Spec) (bool, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return false, err
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return false, err
	}
	return b.xr(key, kind, name, labels, s), nil
}

// XROf composes the typed XR obj (its kind's API type) as XR does: its name and its spec,
// nothing else of it.
func (b *Builder) XROf(key resource.Name, kind string, labels map[string]string, obj v1alpha1.XR) (bool, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return false, err
	}
	var o struct {
		Spec map[string]any `json:"spec"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return false, err
	}
	return b.xr(key, kind, obj.GetName(), labels, o.Spec), nil
}

// xr composes an XR whose spec is already unstructured content, as JSON decodes it.
func (b *Builder) xr(key resource.Name, kind, name string, labels map[string]string, s map[string]any) bool {
	ready := b.St.ConditionTrue(key, "Ready")
	b.Set.Add(key, b.newXR(kind, name, labels, s), Readiness(ready))
	return ready
}

// newXR is the XR object around spec s, to which it adds the Composition.
func (b *Builder) newXR(kind, name string, labels map[string]string, s map[string]any) *resource.Unstructured {
	// The XR names its Composition from the start, the one Crossplane would select: left
	// out, Crossplane writes it into the new XR in an update of its own, one more write and
	// watch event of the XR and of this one, which composes it (docs/performance.md).
	xp, _ := s["crossplane"].(map[string]any)
	if xp == nil {
		xp = map[string]any{}
	}
	xp["compositionRef"] = map[string]any{"name": CompositionName(kind)}
	s["crossplane"] = xp
	u := resource.NewUnstructured()
	u.SetAPIVersion(v1alpha1.Group + "/" + v1alpha1.Version)
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(b.Namespace)
	u.SetLabels(labels)
	u.Object["spec"] = s
	return u
}

// CompositionName is the name of the Composition of one of this function's XR kinds,
// <plural>.kcp.crossplane.io, as apis/<plural>/composition.yaml names it.
func CompositionName(kind string) string {
	gvr, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Group: v1alpha1.Group, Version: v1alpha1.Version, Kind: kind})
	return gvr.Resource + "." + v1alpha1.Group
}
