// Package claimedkcpinstallation composes a ClaimedKcpInstallation, the LegacyCluster XR
// behind a KcpInstallationClaim: one namespaced KcpInstallation, named like the claim, in the
// claim's namespace, whose status it copies for the claim.
package claimedkcpinstallation

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// KeyInstallation is the composition resource name of the KcpInstallation.
const KeyInstallation resource.Name = "kcpinstallation"

// Claim labels Crossplane puts on an XR created for a claim.
const (
	LabelClaimName      = "crossplane.io/claim-name"
	LabelClaimNamespace = "crossplane.io/claim-namespace"
)

// XR is a ClaimedKcpInstallation as the function reads it: the API type's metadata and spec,
// and the spec.claimRef Crossplane adds to every legacy XR, which the API type leaves out
// because Crossplane, not the XRD, defines it.
type XR struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec"`
}

// Spec is the KcpInstallation's spec and the claim reference.
type Spec struct {
	v1alpha1.KcpInstallationSpec `json:",inline"`
	ClaimRef                     *Claim `json:"claimRef,omitempty"`
}

// Claim is the claim an XR was created for.
type Claim struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Claim returns the claim of the XR: spec.claimRef, or Crossplane's claim labels.
func (xr *XR) Claim() (Claim, bool) {
	c := Claim{}
	if r := xr.Spec.ClaimRef; r != nil {
		c = *r
	}
	if c.Namespace == "" || c.Name == "" {
		c = Claim{Namespace: xr.GetLabels()[LabelClaimNamespace], Name: xr.GetLabels()[LabelClaimName]}
	}
	return c, c.Namespace != "" && c.Name != ""
}

// Validate rejects an XR created without a claim: it has nowhere to compose into.
func Validate(xr *XR) field.ErrorList {
	if _, ok := xr.Claim(); ok {
		// The claim's spec is copied once, into the KcpInstallation.
		return check.Budget(xr.Spec, check.Everywhere(1))
	}
	return field.ErrorList{field.Required(field.NewPath("spec", "claimRef"),
		fmt.Sprintf("ClaimedKcpInstallation %s has no claim: create a KcpInstallationClaim in your namespace (or a KcpInstallation directly), not a ClaimedKcpInstallation", xr.GetName()))}
}

// Compose composes the KcpInstallation for the XR's claim with the XR's spec. The XR must
// have passed Validate.
func Compose(xr *XR, st *observed.State) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
	var r result.Result[v1alpha1.KcpInstallationStatus]
	c, _ := xr.Claim()
	b := builder.New(xr.GetName(), c.Namespace, st)
	ready, err := b.XR(KeyInstallation, v1alpha1.KindKcpInstallation, c.Name,
		map[string]string{LabelClaimName: c.Name, LabelClaimNamespace: c.Namespace}, xr.Spec.KcpInstallationSpec)
	if err != nil {
		return r, field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	r.Desired = b.Set
	r.NotReady = !ready

	// The claim shows what the KcpInstallation shows; until it says anything, the
	// kubeconfig Secret's name is already known.
	r.Status = v1alpha1.KcpInstallationStatus{Phase: v1alpha1.PhaseProvisioning, KubeconfigSecret: names.Installation(c.Name).AdminKubeconfigSecret(xr.Spec.Admin)}
	if o, ok := st.Get(KeyInstallation); ok {
		if s, ok := o.Object["status"].(map[string]any); ok {
			var copied v1alpha1.KcpInstallationStatus
			b, err := json.Marshal(s)
			if err == nil && json.Unmarshal(b, &copied) == nil && copied.Phase != "" {
				r.Status = copied
			}
		}
	}
	return r, nil
}
