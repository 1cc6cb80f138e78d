package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PublishedAPI publishes resources of a service cluster (CRDs, such as those of the
// platform's Crossplane XRDs) into kcp as one APIExport, and runs kcp's api-syncagent to
// carry every object a consumer creates in kcp down to the service cluster and its status
// and related objects back up. It composes the APIExport and the agent's ClusterRole in the
// provider workspace, a Kubeconfig for the agent bound to that role and nothing wider, and,
// in the service cluster through spec.serviceCluster, the agent's Deployment,
// ServiceAccount, RBAC limited to what is published, and one PublishedResource per
// spec.resources entry. Teams bind the export from their workspaces (Workspace
// spec.apiBindings) within what their Tenant grants. kcp-operator has no such kind
// (docs/publishing-apis.md).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Export",type="string",JSONPath=".status.export"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type PublishedAPI struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PublishedAPISpec   `json:"spec"`
	Status PublishedAPIStatus `json:"status,omitempty"`
}

// PublishedAPISpec is one APIExport and the agent that serves it.
// +kubebuilder:validation:XValidation:rule="oldSelf.workspace == self.workspace",message="workspace is immutable: the APIExport and every binding to it live there; create another PublishedAPI instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.exportName) && !has(self.exportName) || has(oldSelf.exportName) && has(self.exportName) && oldSelf.exportName == self.exportName",message="exportName is immutable: teams bind the export by name"
type PublishedAPISpec struct {
	// RootShard names the RootShard, in this namespace, of the installation the API is
	// exported in.
	RootShard corev1.LocalObjectReference `json:"rootShard"`

	// Workspace is the path of the provider workspace the APIExport is created in, e.g.
	// root:providers:databases. It must exist: a Workspace of this namespace creates it.
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^root(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$`
	Workspace string `json:"workspace"`

	// ExportName is the APIExport's name, which consumers bind. Defaults to the
	// PublishedAPI's name.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$`
	ExportName string `json:"exportName,omitempty"`

	// Resources are the service cluster's resources to publish, one PublishedResource each.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Resources []PublishedAPIResource `json:"resources"`

	// ServiceCluster is where the agent runs and where objects are synced to: a
	// provider-kubernetes config reaching that cluster (this one too: a ProviderConfig whose
	// identity may create the agent's ClusterRole there), and the agent's namespace. It is
	// fixed once the agent runs.
	ServiceCluster Placement `json:"serviceCluster"`

	// Agent tunes the api-syncagent Deployment.
	// +optional
	Agent *PublishedAPIAgent `json:"agent,omitempty"`
}

// PublishedAPIResource is one resource of the service cluster, published into kcp.
type PublishedAPIResource struct {
	// Name keys the entry; the PublishedResource is <PublishedAPI>-<name>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=30
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Group is the resource's API group on the service cluster, e.g. platform.example.com,
	// and in kcp.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`
	Group string `json:"group"`

	// Kind of the resource on the service cluster, e.g. Database.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	Kind string `json:"kind"`

	// Plural is the resource's plural name on the service cluster, e.g. databases, as its
	// CRD names it: the agent's RBAC there allows exactly this resource.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z][-a-z0-9]*[a-z0-9]$`
	Plural string `json:"plural"`

	// Versions to publish; every one must be served on the service cluster.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^v[0-9]+((alpha|beta)[0-9]+)?$`
	Versions []string `json:"versions"`

	// Projection renames the resource in kcp.
	// +optional
	Projection *PublishedAPIProjection `json:"projection,omitempty"`

	// Related are objects that travel with each object: a connection Secret the service
	// cluster writes, synced up into the consumer's workspace, or a ConfigMap the consumer
	// writes, synced down. Each kind related adds a permission claim to the export that
	// consumers must accept (status.permissionClaims).
	// +optional
	// +listType=map
	// +listMapKey=identifier
	// +kubebuilder:validation:MaxItems=8
	Related []PublishedAPIRelated `json:"related,omitempty"`
}

// PublishedAPIProjection renames a published resource in kcp.
type PublishedAPIProjection struct {
	// Kind in kcp.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	Kind string `json:"kind,omitempty"`

	// Plural in kcp.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z][-a-z0-9]*[a-z0-9]$`
	Plural string `json:"plural,omitempty"`

	// ShortNames in kcp.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z][a-z0-9]*$`
	ShortNames []string `json:"shortNames,omitempty"`
}

// PublishedAPIRelated is an object that travels with each published object.
// +kubebuilder:validation:XValidation:rule="has(self.namePath) != has(self.nameTemplate)",message="set exactly one of namePath or nameTemplate"
type PublishedAPIRelated struct {
	// Identifier names the relation, e.g. connection.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Identifier string `json:"identifier"`

	// Origin is where the object is written: Service (the service cluster; synced up into
	// kcp, such as a connection Secret) or KCP (the consumer's workspace; synced down).
	// +kubebuilder:validation:Enum=Service;KCP
	Origin RelatedOrigin `json:"origin"`

	// Kind is Secret or ConfigMap: the agent's RBAC and the export's claims allow no other.
	// +kubebuilder:validation:Enum=Secret;ConfigMap
	Kind string `json:"kind"`

	// NamePath is the path of a field of the published object that holds the related
	// object's name, e.g. spec.connectionSecretName.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$`
	NamePath string `json:"namePath,omitempty"`

	// NameTemplate is an api-syncagent Go template making the related object's name, e.g.
	// {{ .Object.metadata.name }}-connection.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	NameTemplate string `json:"nameTemplate,omitempty"`
}

// RelatedOrigin is where a related object is written.
type RelatedOrigin string

// Origins of related objects.
const (
	RelatedOriginService RelatedOrigin = "Service"
	RelatedOriginKCP     RelatedOrigin = "KCP"
)

// PublishedAPIAgent tunes the agent.
type PublishedAPIAgent struct {
	// Replicas of the agent; one leads, the others wait. Defaults to 2.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	Replicas *int32 `json:"replicas,omitempty"`

	// Image of api-syncagent. Defaults to ghcr.io/kcp-dev/api-syncagent:v0.7.0.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// Resources of the agent's container. Defaults to requests of 100m CPU and 128Mi, a
	// limit of 512Mi.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// Validity of the agent's client certificate. Defaults to 8760h; renewed before it
	// ends, and the agent rolled.
	// +optional
	Validity *metav1.Duration `json:"validity,omitempty"`
}

// PublishedAPIStatus is what the function reports about a PublishedAPI.
type PublishedAPIStatus struct {
	// Phase is Running once the export exists and the agent is available, else
	// Provisioning.
	// +optional
	Phase string `json:"phase,omitempty"`

	// Export is the export's path and name, as consumers bind it: <workspace>:<name>.
	// +optional
	Export string `json:"export,omitempty"`

	// AgentName is the agent's name in kcp and its owner label on the service cluster.
	// +optional
	AgentName string `json:"agentName,omitempty"`

	// PermissionClaims are the claims the agent adds to the export, which a consumer's
	// binding accepts: events always, and namespaces and each related kind when a resource
	// has related objects.
	// +optional
	// +listType=atomic
	PermissionClaims []APIPermissionClaim `json:"permissionClaims,omitempty"`
}
