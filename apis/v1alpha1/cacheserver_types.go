package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CacheServer runs kcp's cache server outside the root shard. The RootShard and Shards that
// reference it replicate shared objects through it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Storage",type="string",JSONPath=".status.storage"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type CacheServer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CacheServerSpec   `json:"spec"`
	Status CacheServerStatus `json:"status,omitempty"`
}

// CacheServerSpec is kcp-operator's CacheServer spec.
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.replicas <= 1 || has(self.etcd)",message="etcd must be specified when replicas > 1"
// +kubebuilder:validation:XValidation:rule="has(self.certificates.issuerRef)",message="the cache server's CA must be issued by cert-manager: set certificates.issuerRef"
type CacheServerSpec struct {
	// ClusterDomain is the cluster's DNS domain. Defaults to cluster.local.
	// +optional
	ClusterDomain string `json:"clusterDomain,omitempty"`

	// +optional
	Image *ImageSpec `json:"image,omitempty"`

	// Replicas of the cache server. With the embedded etcd it is always 1; with an external
	// etcd it defaults to 2.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// PodDisruptionBudget: not in kcp-operator.
	// +optional
	PodDisruptionBudget *DisruptionBudget `json:"podDisruptionBudget,omitempty"`

	// +optional
	Logging *LoggingSpec `json:"logging,omitempty"`

	// Upgrade is what a change of spec.image may do: a downgrade is refused unless it allows it.
	// +optional
	Upgrade *UpgradePolicy `json:"upgrade,omitempty"`

	// Certificates selects where the cache server's own root CA comes from. issuerRef is
	// required: the cache server's CA is always issued by cert-manager.
	Certificates Certificates `json:"certificates"`

	// +optional
	CertificateTemplates CertificateTemplateMap `json:"certificateTemplates,omitempty"`

	// +optional
	ServiceTemplate *ServiceTemplate `json:"serviceTemplate,omitempty"`

	// +optional
	DeploymentTemplate *DeploymentTemplate `json:"deploymentTemplate,omitempty"`

	// Etcd is an external etcd for the cache. Without it the cache server keeps its data in
	// an embedded etcd on an emptyDir: the data is lost whenever the pod restarts.
	// +optional
	Etcd *EtcdConfig `json:"etcd,omitempty"`

	// +optional
	ExtraArgs []string `json:"extraArgs,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=name
	ExtraVolumes []corev1.Volume `json:"extraVolumes,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=name
	ExtraVolumeMounts []corev1.VolumeMount `json:"extraVolumeMounts,omitempty"`
}

// Storage of a cache server.
type Storage string

// Storage kinds.
const (
	// StorageEmbedded is an embedded etcd on an emptyDir: data is lost on every restart.
	StorageEmbedded Storage = "Embedded"
	// StorageExternal is an external etcd.
	StorageExternal Storage = "External"
)

// CacheServerStatus is what the function reports about a CacheServer.
type CacheServerStatus struct {
	// Phase is Provisioning until the cache server Deployment is available, then Running.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// Image is the kcp image every replica runs: set once a rollout to it completes, so while
	// one is under way it still names the image that serves. Components that depend on this
	// one wait for it to name theirs before they roll out a new kcp.
	// +optional
	Image string `json:"image,omitempty"`

	// URL is where shards reach the cache server.
	// +optional
	URL string `json:"url,omitempty"`

	// Storage is Embedded (data lost on restart) or External (etcd).
	// +optional
	Storage Storage `json:"storage,omitempty"`
}
