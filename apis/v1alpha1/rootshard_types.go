package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RootShard is the first shard of a kcp installation: it holds the root workspace, issues the
// installation's PKI, and runs an internal admin proxy (<name>-proxy).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Hostname",type="string",JSONPath=".spec.external.hostname"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type RootShard struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RootShardSpec   `json:"spec"`
	Status RootShardStatus `json:"status,omitempty"`
}

// RootShardSpec is kcp-operator's RootShard spec.
type RootShardSpec struct {
	CommonShardSpec `json:",inline"`

	// External is the public address of the installation (usually the front-proxy's).
	External ExternalConfig `json:"external"`

	// Cache selects the cache server. Without a ref the root shard runs an embedded cache.
	Cache CacheConfig `json:"cache"`

	// Proxy configures the root shard's internal admin proxy (<name>-proxy).
	// +optional
	Proxy *RootShardProxySpec `json:"proxy,omitempty"`

	// Certificates selects where the installation's root CA comes from.
	Certificates Certificates `json:"certificates"`
}

// CacheConfig selects the cache server of a RootShard.
type CacheConfig struct {
	// Embedded is deprecated and ignored: the embedded cache is used whenever Ref is empty.
	// +optional
	Embedded *EmbeddedCacheConfiguration `json:"embedded,omitempty"`

	// Ref names a CacheServer in the same namespace.
	// +optional
	Ref *corev1.LocalObjectReference `json:"ref,omitempty"`
}

// EmbeddedCacheConfiguration is deprecated and ignored.
type EmbeddedCacheConfiguration struct {
	Enabled bool `json:"enabled"`
}

// RootShardProxySpec configures the root shard's internal proxy.
type RootShardProxySpec struct {
	// +optional
	Image *ImageSpec `json:"image,omitempty"`

	// Replicas of the proxy Deployment. Defaults to 2.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// +optional
	ServiceTemplate *ServiceTemplate `json:"serviceTemplate,omitempty"`

	// +optional
	DeploymentTemplate *DeploymentTemplate `json:"deploymentTemplate,omitempty"`

	// +optional
	CertificateTemplates CertificateTemplateMap `json:"certificateTemplates,omitempty"`

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

	// +optional
	Logging *LoggingSpec `json:"logging,omitempty"`
}

// Phase summarises an XR's lifecycle.
type Phase string

// Phases an XR reports.
const (
	PhaseProvisioning Phase = "Provisioning"
	PhaseRunning      Phase = "Running"
)

// RootShardStatus is what the function reports about a RootShard. Conditions are managed by
// Crossplane and the function and are not part of this schema.
type RootShardStatus struct {
	// Phase is Provisioning until the root shard Deployment is available, then Running.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// Image is the kcp image every replica runs: set once a rollout to it completes, that of
	// the internal proxy included, so while one is under way it still names the image that
	// serves. Components that depend on this one wait for it to name theirs before they roll
	// out a new kcp.
	// +optional
	Image string `json:"image,omitempty"`

	// BaseURL is the URL other kcp components use to reach the root shard.
	// +optional
	BaseURL string `json:"baseURL,omitempty"`

	// AvailableReplicas is how many of the root shard's pods are available, unset while that
	// is not known (the Deployment is not observed yet). A KcpInstallation restoring its etcd
	// starts its front-proxies once it is above 0.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// ExternalURL is the public URL of the installation.
	// +optional
	ExternalURL string `json:"externalURL,omitempty"`

	// Shards lists the Shards that belong to this RootShard, sorted by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	Shards []ShardReference `json:"shards,omitempty"`

	// Encryption reports encryption at rest and the rotation under way, if any.
	// +optional
	Encryption *EncryptionStatus `json:"encryption,omitempty"`
}

// ShardReference names a Shard.
type ShardReference struct {
	Name string `json:"name"`
}
