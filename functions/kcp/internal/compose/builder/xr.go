package builder

import (
	"encoding/json"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// XR composes an XR of this function's own kinds (a KcpInstallation's RootShard, a claim's
// KcpInstallation) with the given spec, ready once the XR reports Ready; it returns whether
// it is. Crossplane composes it, and this function composes it again under its own kind.
func (b *Builder) XR(key resource.Name, kind, name string, labels map[string]string, spec any) (bool, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return false, err
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return false, err
	}
	u := resource.NewUnstructured()
	u.SetAPIVersion(v1alpha1.Group + "/" + v1alpha1.Version)
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(b.Namespace)
	u.SetLabels(labels)
	u.Object["spec"] = s
	ready := b.St.ConditionTrue(key, "Ready")
	b.Set.Add(key, u, Readiness(ready))
	return ready, nil
}
