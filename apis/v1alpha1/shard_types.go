package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Shard is an additional kcp shard that registers with its RootShard and serves a share of
// the installation's workspaces.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="RootShard",type="string",JSONPath=".spec.rootShard.ref.name"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type Shard struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShardSpec   `json:"spec"`
	Status ShardStatus `json:"status,omitempty"`
}

// ShardSpec is kcp-operator's Shard spec.
type ShardSpec struct {
	CommonShardSpec `json:",inline"`

	// RootShard is the RootShard this shard belongs to: the XR in this namespace, or its
	// reference Secret.
	RootShard RootShardConfig `json:"rootShard"`

	// Cache overrides the RootShard's cache server for this shard. Without a ref here or on
	// the RootShard, the root shard serves as the cache.
	// +optional
	Cache *ShardCacheConfig `json:"cache,omitempty"`

	// Placement runs the shard in another cluster (docs/multi-cluster.md). It needs
	// spec.shardBaseURL, and the RootShard's, set to URLs both clusters reach.
	// +optional
	Placement *Placement `json:"placement,omitempty"`
}

// ShardCacheConfig selects the cache server of a Shard.
type ShardCacheConfig struct {
	// Ref names a CacheServer in the same namespace.
	// +optional
	Ref *corev1.LocalObjectReference `json:"ref,omitempty"`
}

// ShardStatus is what the function reports about a Shard.
type ShardStatus struct {
	// Phase is Provisioning until the shard Deployment is available, then Running.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// Image is the kcp image every replica runs: set once a rollout to it completes, so while
	// one is under way it still names the image that serves. Components that depend on this
	// one wait for it to name theirs before they roll out a new kcp.
	// +optional
	Image string `json:"image,omitempty"`

	// BaseURL is the URL other kcp components use to reach this shard.
	// +optional
	BaseURL string `json:"baseURL,omitempty"`

	// AvailableReplicas is how many of the shard's pods are available, unset while that is
	// not known (the Deployment is not observed yet, or its cluster is unreachable). While it
	// is 0 the RootShard keeps kcp from scheduling new workspaces onto the shard
	// (docs/shard-availability.md).
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// Encryption reports encryption at rest and the rotation under way, if any.
	// +optional
	Encryption *EncryptionStatus `json:"encryption,omitempty"`
}
