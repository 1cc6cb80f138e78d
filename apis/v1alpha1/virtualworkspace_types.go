package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VirtualWorkspace runs kcp's virtual workspace server outside a shard. The targeted
// RootShard or Shard then serves no virtual workspaces itself and advertises this one.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type VirtualWorkspace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VirtualWorkspaceSpec   `json:"spec"`
	Status VirtualWorkspaceStatus `json:"status,omitempty"`
}

// VirtualWorkspaceSpec is kcp-operator's VirtualWorkspace spec.
type VirtualWorkspaceSpec struct {
	// Target is the shard whose virtual workspaces this server serves.
	Target VirtualWorkspaceTarget `json:"target"`

	// External is the URL shards advertise for this server.
	External ExternalConfig `json:"external"`

	// +optional
	Image *ImageSpec `json:"image,omitempty"`

	// Command replaces the container command. Defaults to ["/virtual-workspaces"].
	// +optional
	Command []string `json:"command,omitempty"`

	// InitContainers run before the server.
	// +optional
	// +listType=map
	// +listMapKey=name
	InitContainers []VirtualWorkspaceInitContainer `json:"initContainers,omitempty"`

	// Replicas of the server. Defaults to 2.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// PodDisruptionBudget: not in kcp-operator.
	// +optional
	PodDisruptionBudget *DisruptionBudget `json:"podDisruptionBudget,omitempty"`

	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// +optional
	CertificateTemplates CertificateTemplateMap `json:"certificateTemplates,omitempty"`

	// +optional
	ServiceTemplate *ServiceTemplate `json:"serviceTemplate,omitempty"`

	// +optional
	DeploymentTemplate *DeploymentTemplate `json:"deploymentTemplate,omitempty"`

	// CABundleSecretRef is accepted for compatibility and unused, as in kcp-operator.
	// +optional
	CABundleSecretRef *corev1.LocalObjectReference `json:"caBundleSecretRef,omitempty"`

	// ClientCABundleRef names a Secret whose tls.crt holds additional trusted client CAs.
	// +optional
	ClientCABundleRef *corev1.LocalObjectReference `json:"clientCABundleRef,omitempty"`

	// KubeconfigSecretRef names a Secret whose kubeconfig key the server uses instead of the
	// privileged logical-cluster-admin identity.
	// +optional
	KubeconfigSecretRef *corev1.LocalObjectReference `json:"kubeconfigSecretRef,omitempty"`

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

	// Profiling serves Go's pprof endpoints on the pod's loopback address, for kubectl
	// port-forward. Not with a custom command, whose server may not take the flag. Not in
	// kcp-operator.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Upgrade is what a change of spec.image may do: a downgrade is refused unless it allows it.
	// +optional
	Upgrade *UpgradePolicy `json:"upgrade,omitempty"`

	// ClusterDomain is the cluster's DNS domain. Defaults to cluster.local.
	// +optional
	ClusterDomain string `json:"clusterDomain,omitempty"`
}

// VirtualWorkspaceTarget names exactly one RootShard or Shard.
// +kubebuilder:validation:XValidation:rule="(has(self.rootShardRef) && !has(self.shardRef)) || (!has(self.rootShardRef) && has(self.shardRef))",message="Must specify exactly one of rootShardRef or shardRef"
type VirtualWorkspaceTarget struct {
	// +optional
	RootShardRef *corev1.LocalObjectReference `json:"rootShardRef,omitempty"`
	// +optional
	ShardRef *corev1.LocalObjectReference `json:"shardRef,omitempty"`
}

// VirtualWorkspaceInitContainer runs before the virtual workspace server.
type VirtualWorkspaceInitContainer struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +optional
	Image *ImageSpec `json:"image,omitempty"`
	// +optional
	Command []string `json:"command,omitempty"`
	// +optional
	Args []string `json:"args,omitempty"`
	// KubeconfigSecretRef names a Secret with a kubeconfig key mounted for this container
	// instead of the privileged logical-cluster-admin identity.
	// +optional
	KubeconfigSecretRef *corev1.LocalObjectReference `json:"kubeconfigSecretRef,omitempty"`
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=name
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=name
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
}

// VirtualWorkspaceStatus is what the function reports about a VirtualWorkspace.
type VirtualWorkspaceStatus struct {
	// Phase is Provisioning until the server Deployment is available, then Running.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// Image is the kcp image every replica runs: set once a rollout to it completes, so while
	// one is under way it still names the image that serves. Components that depend on this
	// one wait for it to name theirs before they roll out a new kcp.
	// +optional
	Image string `json:"image,omitempty"`

	// URL is the external URL shards advertise for this server.
	// +optional
	URL string `json:"url,omitempty"`
}
