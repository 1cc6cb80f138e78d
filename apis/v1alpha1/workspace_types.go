package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Workspace is a kcp workspace in an installation this namespace runs, with cluster roles
// bound to groups and users inside it: what a platform offers a team that needs "a
// workspace" rather than "a kcp". kcp-operator has no such kind. The function composes it as
// provider-kubernetes Objects acting inside kcp through the RootShard's ProviderConfigs.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Path",type="string",JSONPath=".status.path"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.url",priority=1
type Workspace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkspaceSpec   `json:"spec"`
	Status WorkspaceStatus `json:"status,omitempty"`
}

// WorkspaceSpec describes the workspace.
// +kubebuilder:validation:XValidation:rule="has(self.rootShard.ref) && size(self.rootShard.ref.name) > 0",message="rootShard.ref.name must name the RootShard of the kcp installation"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.parent) && !has(self.parent) || has(oldSelf.parent) && has(self.parent) && oldSelf.parent == self.parent",message="parent is immutable: kcp cannot move a workspace; create another Workspace instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.name) && !has(self.name) || has(oldSelf.name) && has(self.name) && oldSelf.name == self.name",message="name is immutable: kcp cannot rename a workspace; create another Workspace instead"
type WorkspaceSpec struct {
	// RootShard names the RootShard of the kcp installation the workspace lives in: of this
	// namespace, or of an installation shared with this namespace by a Tenant in its
	// namespace (docs/shared-kcp.md).
	RootShard WorkspaceRootShard `json:"rootShard"`

	// Parent is the path of the workspace this one is created in. Defaults to root.
	// +optional
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`
	Parent string `json:"parent,omitempty"`

	// Name is the workspace's name in kcp. Defaults to the Workspace's own name.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// Type is the WorkspaceType to create the workspace with; kcp's default type when unset.
	// kcp does not change the type of an existing workspace.
	// +optional
	Type *WorkspaceTypeReference `json:"type,omitempty"`

	// ClusterRoleBindings bind cluster roles to groups and users inside the workspace. A
	// Kubeconfig's identity is group kubeconfig:<Kubeconfig name>.
	// +optional
	// +listType=map
	// +listMapKey=clusterRole
	// +kubebuilder:validation:MaxItems=32
	ClusterRoleBindings []WorkspaceClusterRoleBinding `json:"clusterRoleBindings,omitempty"`

	// APIBindings bind APIExports in the workspace (docs/publishing-apis.md), each accepting
	// the permission claims it lists. A team's Workspace of a shared installation may bind
	// only the exports, and accept only the claims, its Tenant's spec.apis grants.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	APIBindings []APIBinding `json:"apiBindings,omitempty"`

	// DeletionPolicy decides what deleting this Workspace does to the workspace in kcp:
	// Retain (the default) leaves it and everything in it, Delete deletes it with its
	// contents. The bindings in spec.clusterRoleBindings are removed either way.
	// +optional
	// +kubebuilder:validation:Enum=Retain;Delete
	DeletionPolicy WorkspaceDeletionPolicy `json:"deletionPolicy,omitempty"`
}

// WorkspaceRootShard names the RootShard of a Workspace.
type WorkspaceRootShard struct {
	// Ref names the RootShard.
	// +optional
	Ref *SharedReference `json:"ref,omitempty"`
}

// WorkspaceTypeReference names a kcp WorkspaceType.
type WorkspaceTypeReference struct {
	// Name of the WorkspaceType, such as universal.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`
	Name string `json:"name"`

	// Path of the workspace the WorkspaceType is defined in; kcp looks in the parent's
	// ancestry when unset.
	// +optional
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`
	Path string `json:"path,omitempty"`
}

// WorkspaceClusterRoleBinding binds one cluster role inside the workspace.
// +kubebuilder:validation:XValidation:rule="(has(self.groups) ? size(self.groups) : 0) + (has(self.users) ? size(self.users) : 0) > 0",message="name at least one group or user to bind the cluster role to"
type WorkspaceClusterRoleBinding struct {
	// ClusterRole is the name of a ClusterRole in the workspace, such as cluster-admin.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	ClusterRole string `json:"clusterRole"`

	// Groups bound to the role.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Groups []string `json:"groups,omitempty"`

	// Users bound to the role.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Users []string `json:"users,omitempty"`
}

// WorkspaceDeletionPolicy is what deleting a Workspace does in kcp.
type WorkspaceDeletionPolicy string

// Deletion policies.
const (
	WorkspaceRetain WorkspaceDeletionPolicy = "Retain"
	WorkspaceDelete WorkspaceDeletionPolicy = "Delete"
)

// WorkspaceStatus is what the function reports about a Workspace.
type WorkspaceStatus struct {
	// Phase is kcp's: Scheduling, Initializing, Ready (or Unavailable).
	// +optional
	Phase string `json:"phase,omitempty"`

	// Path is the workspace's full path, parent:name.
	// +optional
	Path string `json:"path,omitempty"`

	// URL reaches the workspace through the installation's front-proxy (the RootShard's
	// spec.external address).
	// +optional
	URL string `json:"url,omitempty"`

	// Cluster is the logical cluster kcp assigned the workspace.
	// +optional
	Cluster string `json:"cluster,omitempty"`

	// APIBindings are the names of spec.apiBindings that kcp reports Bound.
	// +optional
	// +listType=atomic
	APIBindings []string `json:"apiBindings,omitempty"`
}
