package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClaimedKcpInstallation is the cluster-scoped XR behind a KcpInstallationClaim, for
// platforms whose tenants still use claims. Crossplane v2 serves claims only for LegacyCluster
// XRs (a v1 XRD); this one composes the namespaced KcpInstallation, with the claim's name, in
// the claim's namespace, so a claim user gets exactly what a KcpInstallation user gets: the
// kubeconfig Secret in their namespace, named in the claim's status. Create claims, not
// ClaimedKcpInstallations.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.url"
// +kubebuilder:printcolumn:name="Kubeconfig",type="string",JSONPath=".status.kubeconfigSecret"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
// +xrdgen:claim:kind=KcpInstallationClaim,plural=kcpinstallationclaims
type ClaimedKcpInstallation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the KcpInstallation's spec, passed on unchanged.
	Spec KcpInstallationSpec `json:"spec"`
	// Status is the KcpInstallation's status, copied.
	Status KcpInstallationStatus `json:"status,omitempty"`
}
