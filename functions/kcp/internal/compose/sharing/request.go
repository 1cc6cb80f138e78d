package sharing

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// A team's Kubeconfig or Workspace of a shared installation tells its Tenant what it asks for
// through a TenantRequest it composes in its own namespace (apis/v1alpha1, TenantRequest):
// the Tenant reads those, never the team's XRs, so that nothing a team writes weighs on the
// Tenant's request beyond what the function wrote for it. A team cannot write a
// TenantRequest; each one is its XR's, as the function built it from that XR.

// LabelGrantedThrough marks an XR a Tenant composed for a team's TenantRequest. An XR it
// composed before requests existed has no such label, and is kept until its team's XR asks
// again: its request is not known to be gone, only not made yet.
const LabelGrantedThrough = "kcp.crossplane.io/granted-through"

// GrantedThroughRequest is LabelGrantedThrough's value.
const GrantedThroughRequest = "tenant-request"

// RequestKey is the composition resource name of a team's XR's TenantRequest.
const RequestKey = "tenant-request"

// RequestName is the name of the TenantRequest of a team's XR of a kind and name.
func RequestName(kind, name string) string { return names.TenantRequest(kind, name) }

// teamXR is what a TenantRequest carries of a team's XR.
type teamXR struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   teamXRMetadata  `json:"metadata"`
	Spec       json.RawMessage `json:"spec"`
}

type teamXRMetadata struct {
	Name              string      `json:"name"`
	Namespace         string      `json:"namespace"`
	UID               string      `json:"uid,omitempty"`
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
}

// Request is the spec of the TenantRequest of a team's XR of kind: the XR's name, namespace,
// creation and spec (as its Tenant grants it), and what it weighs as stored, or, when it weighs
// more than a team's XR may, only why; target is the FrontProxy or RootShard it names. st holds the XR as stored, which is weighed when known.
func Request(kind string, xr v1alpha1.XR, spec v1alpha1.Spec, target v1alpha1.TenantRequestTarget, st *observed.State) v1alpha1.TenantRequestSpec {
	var stored any = xr
	if c := st.Composite(); c != nil {
		stored = c
	}
	weight, errs := weighed(kind, stored)
	r := v1alpha1.TenantRequestSpec{Kind: kind, Name: xr.GetName(), Target: target, Weight: int64(weight)}
	if len(errs) > 0 {
		r.Refused = errs.ToAggregate().Error()
		return r
	}
	s, err := json.Marshal(spec)
	if err != nil {
		r.Refused = "its spec cannot be encoded: " + err.Error()
		return r
	}
	raw, _ := json.Marshal(teamXR{
		APIVersion: v1alpha1.Group + "/" + v1alpha1.Version, Kind: kind,
		Metadata: teamXRMetadata{Name: xr.GetName(), Namespace: xr.GetNamespace(), UID: string(xr.GetUID()), CreationTimestamp: xr.GetCreationTimestamp()},
		Spec:     s,
	})
	r.XR = &runtime.RawExtension{Raw: raw}
	return r
}

// FromRequest decodes the team's XR a required TenantRequest (its Lookup) carries into into,
// and returns the request. ok is false when the request is not one the team's XR of its
// spec.kind and spec.name composed (its controller says so, which only Crossplane writes).
// A request the XR's own composition refused carries no XR: spec.refused says why.
func FromRequest(l observed.Lookup, into any) (req v1alpha1.TenantRequest, ok bool) {
	if !l.Found || l.Object == nil {
		return req, false
	}
	b, err := json.Marshal(l.Object)
	if err != nil || json.Unmarshal(b, &req) != nil {
		return req, false
	}
	if l.ControllerKind != req.Spec.Kind || l.ControllerName != req.Spec.Name {
		return req, false
	}
	if into == nil || req.Spec.XR == nil || len(req.Spec.XR.Raw) == 0 {
		return req, true
	}
	return req, json.Unmarshal(req.Spec.XR.Raw, into) == nil
}
