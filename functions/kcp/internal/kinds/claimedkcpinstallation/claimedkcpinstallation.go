// Package claimedkcpinstallation composes a ClaimedKcpInstallation, the LegacyCluster XR behind a
// KcpInstallationClaim: one namespaced KcpInstallation, named like the claim, in the claim's
// namespace, whose status it copies for the claim.
package claimedkcpinstallation

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// KeyInstallation is the composition resource name of the KcpInstallation.
const KeyInstallation resource.Name = "kcpinstallation"

// Claim labels Crossplane puts on an XR created for a claim.
const (
	LabelClaimName      = "crossplane.io/claim-name"
	LabelClaimNamespace = "crossplane.io/claim-namespace"
)

// Claim is the claim an XR was created for.
type Claim struct{ Namespace, Name string }

// ClaimOf returns the claim of a legacy XR: spec.claimRef, or Crossplane's claim labels.
func ClaimOf(xr map[string]any, labels map[string]string) (Claim, bool) {
	spec, _ := xr["spec"].(map[string]any)
	ref, _ := spec["claimRef"].(map[string]any)
	c := Claim{}
	c.Namespace, _ = ref["namespace"].(string)
	c.Name, _ = ref["name"].(string)
	if c.Namespace == "" || c.Name == "" {
		c = Claim{Namespace: labels[LabelClaimNamespace], Name: labels[LabelClaimName]}
	}
	return c, c.Namespace != "" && c.Name != ""
}

// Result is what composing a ClaimedKcpInstallation produced.
type Result struct {
	Desired  desired.Set
	Status   v1alpha1.KcpInstallationStatus
	NotReady bool
}

// Compose composes the KcpInstallation for claim c with the XR's spec.
func Compose(xr *v1alpha1.ClaimedKcpInstallation, c Claim, st *observed.State) (Result, error) {
	b, err := json.Marshal(xr.Spec)
	if err != nil {
		return Result{}, err
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		return Result{}, err
	}
	u := resource.NewUnstructured()
	u.SetAPIVersion(v1alpha1.Group + "/" + v1alpha1.Version)
	u.SetKind("KcpInstallation")
	u.SetName(c.Name)
	u.SetNamespace(c.Namespace)
	u.SetLabels(map[string]string{LabelClaimName: c.Name, LabelClaimNamespace: c.Namespace})
	u.Object["spec"] = spec

	var r Result
	ready := st.ConditionTrue(KeyInstallation, "Ready")
	readiness := resource.ReadyFalse
	if ready {
		readiness = resource.ReadyTrue
	}
	r.Desired.Add(KeyInstallation, u, readiness)
	r.NotReady = !ready

	// The claim shows what the KcpInstallation shows; until it says anything, the
	// kubeconfig Secret's name is already known.
	r.Status = v1alpha1.KcpInstallationStatus{Phase: v1alpha1.PhaseProvisioning, KubeconfigSecret: c.Name + "-admin-kubeconfig"}
	if a := xr.Spec.Admin; a != nil && a.SecretName != "" {
		r.Status.KubeconfigSecret = a.SecretName
	}
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

// ErrNoClaim explains a ClaimedKcpInstallation created without a claim.
func ErrNoClaim(name string) field.ErrorList {
	return field.ErrorList{field.Required(field.NewPath("spec", "claimRef"),
		fmt.Sprintf("ClaimedKcpInstallation %s has no claim: create a KcpInstallationClaim in your namespace (or a KcpInstallation directly), not a ClaimedKcpInstallation", name))}
}
