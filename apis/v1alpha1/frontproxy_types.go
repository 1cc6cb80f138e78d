package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FrontProxy is the entry point of a kcp installation: kcp-front-proxy routes every request
// to the shard that holds the requested workspace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="RootShard",type="string",JSONPath=".spec.rootShard.ref.name"
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.url"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type FrontProxy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FrontProxySpec   `json:"spec"`
	Status FrontProxyStatus `json:"status,omitempty"`
}

// FrontProxySpec is kcp-operator's FrontProxy spec.
// +kubebuilder:validation:XValidation:rule="!(has(self.externalHostname) && has(self.external) && has(self.external.hostname))",message="Cannot set both ExternalHostname (deprecated) and External.hostname. Use External.hostname only."
type FrontProxySpec struct {
	// RootShard is the RootShard of the installation this proxy serves: the XR in this
	// namespace, or its reference Secret.
	RootShard RootShardConfig `json:"rootShard"`

	// Placement runs the front-proxy in another cluster (docs/multi-cluster.md). It needs
	// the RootShard's spec.shardBaseURL set to a URL that cluster reaches.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// Replicas of the front-proxy. Defaults to 2.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// PodDisruptionBudget: not in kcp-operator.
	// +optional
	PodDisruptionBudget *DisruptionBudget `json:"podDisruptionBudget,omitempty"`

	// Resources of the front-proxy container; none unless set.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// Monitoring composes a PodMonitor for the front-proxy's metrics.
	// +optional
	Monitoring *Monitoring `json:"monitoring,omitempty"`

	// Upgrade is what a change of spec.image may do: a downgrade is refused unless it allows it.
	// +optional
	Upgrade *UpgradePolicy `json:"upgrade,omitempty"`

	// Auth configures how the front-proxy authenticates users.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.oidc) || (has(self.serviceAccount) && self.serviceAccount.enabled)",message="OIDC requires ServiceAccount auth to be enabled."
	Auth *AuthSpec `json:"auth,omitempty"`

	// AdditionalPathMappings are appended to the path mapping file.
	// +optional
	AdditionalPathMappings []PathMappingEntry `json:"additionalPathMappings,omitempty"`

	// +optional
	Image *ImageSpec `json:"image,omitempty"`

	// ExternalHostname is deprecated: use External. It may include a port.
	// +optional
	ExternalHostname string `json:"externalHostname,omitempty"`

	// External is the public address of this front-proxy.
	// +optional
	External ExternalConfig `json:"external,omitempty"`

	// +optional
	ServiceTemplate *ServiceTemplate `json:"serviceTemplate,omitempty"`

	// +optional
	DeploymentTemplate *DeploymentTemplate `json:"deploymentTemplate,omitempty"`

	// +optional
	CertificateTemplates CertificateTemplateMap `json:"certificateTemplates,omitempty"`

	// PublicServerCertificate, when set, has the certificate served for the public hostname
	// issued by another issuer than the installation's CA (TLS SNI picks it); the
	// certificate from the installation's CA keeps serving the in-cluster names. Not in
	// kcp-operator, whose certificateTemplates.server can only replace the one certificate.
	// +optional
	PublicServerCertificate *PublicServerCertificate `json:"publicServerCertificate,omitempty"`

	// CABundleSecretRef names a Secret whose tls.crt is trusted for backends (path mapping)
	// and added to kubeconfigs that target this front-proxy.
	// +optional
	CABundleSecretRef *corev1.LocalObjectReference `json:"caBundleSecretRef,omitempty"`

	// ClientCABundleRef names a Secret whose tls.crt holds additional trusted client CAs.
	// +optional
	ClientCABundleRef *corev1.LocalObjectReference `json:"clientCABundleRef,omitempty"`

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
	// port-forward. Not in kcp-operator.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`
}

// PathMappingEntry routes a path prefix to a backend.
type PathMappingEntry struct {
	Path            string `json:"path"`
	Backend         string `json:"backend"`
	BackendServerCA string `json:"backend_server_ca"`
	ProxyClientCert string `json:"proxy_client_cert"`
	ProxyClientKey  string `json:"proxy_client_key"`
}

// FrontProxyStatus is what the function reports about a FrontProxy.
type FrontProxyStatus struct {
	// Phase is Provisioning until the front-proxy Deployment is available, then Running.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// Image is the kcp image every replica runs: set once a rollout to it completes, so while
	// one is under way it still names the image that serves. Components that depend on this
	// one wait for it to name theirs before they roll out a new kcp.
	// +optional
	Image string `json:"image,omitempty"`

	// URL is the public URL of this front-proxy, the server of kubeconfigs that target it.
	// +optional
	URL string `json:"url,omitempty"`

	// AvailableReplicas is how many of the front-proxy's pods are available, unset while that
	// is not known. A KcpInstallation restoring its etcd waits for it before it says Restored.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`
}
