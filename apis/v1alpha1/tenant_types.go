package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Tenant shares the kcp installation of its namespace with one other namespace, a team's:
// the team's Kubeconfigs and Workspaces that name this installation get a client
// certificate and workspaces in it, within what the Tenant allows. The platform creates it
// next to the installation; a team cannot, so a team gets nothing the platform did not
// grant. kcp-operator has no such kind (docs/shared-kcp.md).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Namespace",type="string",JSONPath=".status.namespace"
// +kubebuilder:printcolumn:name="Workspace",type="string",JSONPath=".status.workspace"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec"`
	Status TenantStatus `json:"status,omitempty"`
}

// TenantSpec is what one team may have of the installation.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.__namespace__) && !has(self.__namespace__) || has(oldSelf.__namespace__) && has(self.__namespace__) && oldSelf.__namespace__ == self.__namespace__",message="namespace is immutable: create another Tenant for another namespace"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.workspace) && !has(self.workspace) || has(oldSelf.workspace) && has(self.workspace) && oldSelf.workspace == self.workspace",message="workspace is immutable: kcp cannot move a workspace"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.identityPrefix) && !has(self.identityPrefix) || has(oldSelf.identityPrefix) && has(self.identityPrefix) && oldSelf.identityPrefix == self.identityPrefix",message="identityPrefix is immutable: the team's certificates already carry it and kcp cannot revoke them"
type TenantSpec struct {
	// The rules above call this field __namespace__: namespace is a keyword of CEL.

	// Namespace is the team's namespace. Defaults to the Tenant's name.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// FrontProxy names the FrontProxy (this namespace) through which the team's kubeconfigs
	// reach kcp; its RootShard is the installation the team's workspaces live in.
	FrontProxy TenantFrontProxy `json:"frontProxy"`

	// Workspace is the path of the team's workspace, which the Tenant creates (its parent
	// must exist). Every workspace of the team is created in it or below, and every
	// kubeconfig of the team opens it or a workspace below it. Defaults to root:<namespace>.
	// +optional
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^root(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$`
	Workspace string `json:"workspace,omitempty"`

	// IdentityPrefix starts the user name and every group of the team's kubeconfigs, e.g.
	// tenant:team-a:alice in group tenant:team-a:admins. It must end with a colon and overlap
	// neither Kubernetes' and kcp's identities (system:), this package's (kubeconfig:), the
	// installation's OIDC prefixes, nor another Tenant's prefix. Defaults to
	// tenant:<namespace>: so that no namespace name can forge another identity.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[a-z0-9]([-a-z0-9.]*[a-z0-9])?)*:$`
	IdentityPrefix string `json:"identityPrefix,omitempty"`

	// WorkspaceTypes are the WorkspaceTypes of root that the team's Workspaces may name
	// (spec.type with path root). Types in the team's own workspace are always allowed.
	// The team's workspaces are created with the installation's admin credentials, which
	// skip kcp's check of who may use a type, so only the types listed here are usable.
	// Defaults to kcp's own: universal, organization and team.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	WorkspaceTypes []string `json:"workspaceTypes,omitempty"`

	// ClusterRoleBindings bind cluster roles in the team's workspace, e.g. admin to the
	// team's group tenant:team-a:admins. The team's own bindings (its Workspaces' and Kubeconfigs')
	// are added below and beside these.
	// +optional
	// +listType=map
	// +listMapKey=clusterRole
	// +kubebuilder:validation:MaxItems=32
	ClusterRoleBindings []WorkspaceClusterRoleBinding `json:"clusterRoleBindings,omitempty"`

	// APIs are the APIExports the team's Workspaces may bind (spec.apiBindings), each with the
	// permission claims they may accept. A binding to any other export, or accepting any
	// other claim, is refused naming the field: a provider reaches no more of a team's
	// workspace than the platform allowed here and the team accepted. None by default.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	APIs []TenantAPI `json:"apis,omitempty"`

	// Limits bound what the team may ask for.
	// +optional
	Limits TenantLimits `json:"limits,omitempty"`

	// DeletionPolicy decides what deleting the Tenant does to the team's workspace in kcp:
	// Retain (the default) leaves it and everything in it, Delete deletes it with its
	// contents. The team's credentials go with the Tenant either way.
	// +optional
	// +kubebuilder:validation:Enum=Retain;Delete
	DeletionPolicy WorkspaceDeletionPolicy `json:"deletionPolicy,omitempty"`
}

// TenantFrontProxy names the FrontProxy of a Tenant.
type TenantFrontProxy struct {
	// Ref names a FrontProxy in the Tenant's namespace.
	Ref corev1.LocalObjectReference `json:"ref"`
}

// TenantLimits bound what a team may ask for.
type TenantLimits struct {
	// Kubeconfigs is how many Kubeconfigs the team may have. Those beyond it, newest first,
	// are refused. Defaults to 10; at most 32, the most a team's ResourceQuota may allow
	// for its Tenant to read the team's XRs.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=32
	Kubeconfigs *int32 `json:"kubeconfigs,omitempty"`

	// Workspaces is how many Workspaces the team may have, besides its own workspace. Those
	// beyond it, newest first, are refused. Defaults to 10; at most 32, as Kubeconfigs.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=32
	Workspaces *int32 `json:"workspaces,omitempty"`

	// Bindings is how many ClusterRoleBindings in kcp the team's granted XRs may cause: one
	// per distinct role of a Kubeconfig's spec.authorization.clusterRoleBindings.clusterRoles,
	// one per entry of a Workspace's spec.clusterRoleBindings and spec.apiBindings. Each is a provider-kubernetes
	// Object in this namespace that the installation's RootShard reads. Granting is oldest
	// first: the XR that would exceed it, and every newer one, is refused. Defaults to 40.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=400
	Bindings *int32 `json:"bindings,omitempty"`

	// Bytes bounds, in bytes, what the team's granted XRs add to this namespace for the
	// installation's shared XRs to read: the XRs the Tenant composes (every Tenant reads
	// them), the provider-kubernetes Objects those compose and the RootShard's credentials
	// for each workspace they act in (the RootShard reads them). Granting is oldest first:
	// the XR that would exceed it, and every newer one, is refused. The Tenants of a
	// namespace together get at most the installation's capacity (docs/performance.md);
	// oldest first, a Tenant beyond it is refused. Defaults to 131072 (128 KiB).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=524288
	Bytes *int32 `json:"bytes,omitempty"`

	// MaxValidity is the longest lifetime of a team's client certificate: kcp cannot revoke
	// one before it expires. Defaults to 2160h (90 days).
	// +optional
	MaxValidity *metav1.Duration `json:"maxValidity,omitempty"`
}

// TenantStatus is what the function reports about a Tenant.
type TenantStatus struct {
	// Phase is Ready once the team's workspace and every granted member is Ready.
	// +optional
	Phase string `json:"phase,omitempty"`

	// Namespace is the team's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Workspace is the path of the team's workspace.
	// +optional
	Workspace string `json:"workspace,omitempty"`

	// IdentityPrefix starts the user name and every group of the team's kubeconfigs.
	// +optional
	IdentityPrefix string `json:"identityPrefix,omitempty"`

	// RootShard is the RootShard (the Tenant's namespace) of the installation shared, which
	// the team's Workspaces name.
	// +optional
	RootShard string `json:"rootShard,omitempty"`

	// Members are the team's Kubeconfigs and Workspaces that name this installation, each
	// granted or refused with the reason.
	// At most 32 are listed, granted ones first, each message at most 1024 bytes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Members []TenantMember `json:"members,omitempty"`

	// MembersNotListed counts the team's XRs left out of members, so that a team cannot
	// grow the Tenant without bound: the MembersReady condition says how many were
	// refused.
	// +optional
	MembersNotListed int32 `json:"membersNotListed,omitempty"`
}

// TenantMember is one XR of the team, as the Tenant sees it.
type TenantMember struct {
	// Kind is Kubeconfig or Workspace.
	Kind string `json:"kind"`
	// Name is the team's XR's name in the team's namespace.
	Name string `json:"name"`
	// Granted says whether the Tenant composes it.
	Granted bool `json:"granted"`
	// Ready says whether what the Tenant composes for it is Ready.
	// +optional
	Ready bool `json:"ready,omitempty"`
	// Message says why it is refused or not Ready.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}
