package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TenantRequest is what a team's Kubeconfig or Workspace of a shared installation asks of its
// Tenant, composed by that XR in the team's namespace. It is not for users: a team cannot
// write it (install/tenant-role.yaml grants no TenantRequests), so everything in it was
// written by the function from the team's XR, within bounds. The Tenant reads these rather
// than the team's XRs, whose metadata the team can fill to the API server's limit: four
// Workspaces of 1.35 MB would make the Tenant's request larger than gRPC's 4 MiB, and the
// Tenant, failing, would apply none of the platform's changes. What a team writes now weighs
// on its own XR's request only.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Kind",type="string",JSONPath=".spec.kind"
// +kubebuilder:printcolumn:name="XR",type="string",JSONPath=".spec.name"
type TenantRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantRequestSpec   `json:"spec"`
	Status TenantRequestStatus `json:"status,omitempty"`
}

// What a TenantRequest can cost, and who decides it (kept out of the generated schema):
//   - Who sets it: the function alone, for a team's Kubeconfig or Workspace naming a shared
//     installation; a team cannot write one (neither tenant role grants tenantrequests), and
//     its Tenant takes one only when its controller is the team XR it names.
//   - Largest: spec.xr carries the team XR within sharing.TeamXRBytes (6 KiB of metadata and
//     spec as stored), or nothing and spec.refused (at most 1536 bytes) says why.
//   - Cost to shared objects: its Tenant reads every one of the team's, at most 64 (the
//     quota's 32 of each kind), within sharing.TeamReadCapacity (TestWorstCaseRequests).
//   - Certificates and identities: it widens neither; the Tenant holds what it carries to
//     the same checks as before (the team's prefix and workspace, the Tenant's limits).
//   - Policy: the Tenant's limits and the team's ResourceQuota bound it, not the policy.

// TenantRequestSpec is the team's XR, as its Tenant grants it.
type TenantRequestSpec struct {
	// Kind of the team's XR.
	// +kubebuilder:validation:Enum=Kubeconfig;Workspace
	Kind string `json:"kind"`

	// Name of the team's XR in this namespace.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Target is the FrontProxy (of a Kubeconfig) or RootShard (of a Workspace) the team's XR
	// names: its Tenant is the one of that namespace that shares it.
	Target TenantRequestTarget `json:"target"`

	// XR is the team's XR as the Tenant grants it: its name, namespace, creation time and
	// spec (a Kubeconfig's reference Secret resolved to the FrontProxy it names). Absent
	// when Refused says why it cannot be granted.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	XR *runtime.RawExtension `json:"xr,omitempty"`

	// Weight is what the team's XR weighs as stored, in bytes of metadata and spec.
	// +optional
	Weight int64 `json:"weight,omitempty"`

	// Refused says why the team's XR cannot be granted whatever its Tenant allows: it
	// weighs more than a team's XR may.
	// +optional
	// +kubebuilder:validation:MaxLength=1536
	Refused string `json:"refused,omitempty"`
}

// TenantRequestTarget names the FrontProxy or RootShard a team's XR reaches.
type TenantRequestTarget struct {
	// +kubebuilder:validation:Enum=FrontProxy;RootShard
	Kind string `json:"kind"`
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// TenantRequestStatus is empty: the Tenant reports on the team's XR in its own status.
type TenantRequestStatus struct{}
