package v1alpha1

// Placement runs a component's workload in another cluster, through provider-kubernetes.
// Certificates are still issued in the XR's namespace on the control plane, where the CAs
// live; the Deployment, Service and PodDisruptionBudget, and a copy of every Secret and
// ConfigMap the pods mount, are composed as provider-kubernetes Objects that create them in
// that cluster. A copy of a CA Secret carries its certificates, never its key.
type Placement struct {
	// ProviderConfigRef names the provider-kubernetes config that reaches the cluster: a
	// ProviderConfig in this XR's namespace, or a ClusterProviderConfig. It is fixed once
	// the workload runs: moving a component means adding a new one and deleting the old.
	ProviderConfigRef PlacementProviderConfigRef `json:"providerConfigRef"`

	// Namespace the workload runs in, in that cluster. Defaults to this XR's namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// PlacementProviderConfigRef names a provider-kubernetes ProviderConfig or
// ClusterProviderConfig.
type PlacementProviderConfigRef struct {
	// Kind is ProviderConfig (in this XR's namespace; the default) or ClusterProviderConfig
	// (which a namespace may use only when the platform's policy allows it).
	// +optional
	// +kubebuilder:validation:Enum=ProviderConfig;ClusterProviderConfig
	Kind string `json:"kind,omitempty"`

	// Name of the config.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// Kinds of provider-kubernetes configs a Placement may name.
const (
	PlacementProviderConfig        = "ProviderConfig"
	PlacementClusterProviderConfig = "ClusterProviderConfig"
)
