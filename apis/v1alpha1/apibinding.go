package v1alpha1

// APIBinding binds an APIExport in a workspace, accepting the permission claims listed and
// no other: kcp gives the export's provider access to exactly those resources of the
// workspace.
type APIBinding struct {
	// Name of the APIBinding in the workspace. Defaults to the export's name.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// Export names the APIExport to bind.
	Export APIExportReference `json:"export"`

	// PermissionClaims are the export's claims this binding accepts, each for every object
	// of its resource. A claim of the export not listed is not accepted, and the provider
	// gets no access to that resource.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	PermissionClaims []APIPermissionClaim `json:"permissionClaims,omitempty"`
}

// APIExportReference names an APIExport by its workspace's path and its name.
type APIExportReference struct {
	// Path of the workspace the APIExport lives in, e.g. root:providers:databases.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`
	Path string `json:"path"`

	// Name of the APIExport.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$`
	Name string `json:"name"`
}

// APIPermissionClaim is a permission claim: access to one resource of the consumer's
// workspace, with some verbs.
type APIPermissionClaim struct {
	// Group of the resource; empty for the core group (secrets, configmaps, namespaces,
	// events).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^(|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$`
	Group string `json:"group,omitempty"`

	// Resource is the plural resource name, e.g. secrets.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z][-a-z0-9]*[a-z0-9]$`
	Resource string `json:"resource"`

	// Verbs allowed on the resource; * for every verb, which is what api-syncagent's claims
	// ask for.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:Enum=*;get;list;watch;create;update;patch;delete;deletecollection
	Verbs []string `json:"verbs"`
}

// TenantAPI is an APIExport a team's Workspaces may bind, with the claims they may accept.
type TenantAPI struct {
	// Export names the APIExport.
	Export APIExportReference `json:"export"`

	// PermissionClaims a team's binding to the export may accept; a binding accepting any
	// other claim, or more verbs of one, is refused.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	PermissionClaims []APIPermissionClaim `json:"permissionClaims,omitempty"`
}

// What a team's spec.apiBindings (Workspace) can cost, and who decides it (kept out of the
// generated schema), and the Tenant's spec.apis that bounds it:
//   - Who sets it: the team, on its Workspace; only the platform writes a Tenant's spec.apis.
//   - Largest: 16 bindings of 16 claims of 10 verbs, every string bounded by the schema, all
//     within the team XR's 6 KiB as its TenantRequest carries it (sharing.TeamXRBytes).
//   - Cost to shared objects: each binding is one provider-kubernetes Object in the Tenant's
//     namespace that the installation's RootShard reads, counted against the Tenant's
//     limits.bindings and limits.bytes (tenant/budget.go); spec.apis is the platform's and
//     read by its own Tenant only.
//   - Certificates and identities: none; a binding carries no subject. What it widens is
//     the provider's reach into the team's workspace, which the Tenant bounds: an export it
//     grants, by path and name, and claims and verbs it allows (tenant/apis.go,
//     TestHostileAPIBindingsKeepWhatRuns, TestNarrowedGrantKeepsWhatRuns). The binding is
//     made with the installation's credentials, which skip kcp's bind check, so the Tenant's
//     check is the only one and holds for every route: a team reaches kcp's APIBinding only
//     through its Workspace, and its own kubeconfig is refused bind by kcp (e2e,
//     Basic/RealKCP/PublishedAPI).
//   - Policy: the Tenant decides, not the cluster-wide policy; on a team's own installation
//     (no Tenant) the team binds what its own kcp offers.
