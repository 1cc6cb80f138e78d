package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kubeconfig issues a client certificate for a user and writes a kubeconfig Secret that
// reaches a RootShard, a Shard or a FrontProxy with it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target",type="string",JSONPath=".status.targetName"
// +kubebuilder:printcolumn:name="Secret",type="string",JSONPath=".status.secretName"
// +kubebuilder:printcolumn:name="Expires",type="string",JSONPath=".status.expiry"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type Kubeconfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KubeconfigSpec   `json:"spec"`
	Status KubeconfigStatus `json:"status,omitempty"`
}

// KubeconfigSpec is kcp-operator's Kubeconfig spec.
// +kubebuilder:validation:XValidation:rule="!(has(self.targetWorkspace) && has(self.authorization) && has(self.authorization.clusterRoleBindings.cluster))",message="Cannot set both targetWorkspace and authorization.clusterRoleBindings.cluster. Use targetWorkspace only."
type KubeconfigSpec struct {
	// Target is the RootShard, Shard or FrontProxy the kubeconfig reaches.
	Target KubeconfigTarget `json:"target"`

	// Server replaces the target's URL in the kubeconfig, for clients that reach kcp by another
	// address than the target's own, e.g. https://kcp.example.com:443 through a load balancer
	// or a route the installation does not compose. An https URL with a host and optionally
	// a port, nothing else; the target's serving certificate must name the host. The default
	// context opens <server>/clusters/<targetWorkspace>.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https://`
	Server string `json:"server,omitempty"`

	// TargetWorkspace is the kcp workspace path the default context opens. Defaults to root.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`
	TargetWorkspace string `json:"targetWorkspace,omitempty"`

	// Username is the client certificate's common name: at most 64 bytes, as cert-manager
	// accepts.
	// +kubebuilder:validation:MaxLength=64
	Username string `json:"username"`

	// Groups are the client certificate's organizations, besides kubeconfig:<name>.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Groups []string `json:"groups,omitempty"`

	// Validity is the certificate's lifetime, e.g. 8760h.
	Validity metav1.Duration `json:"validity"`

	// SecretRef names the Secret the kubeconfig is written to.
	SecretRef corev1.LocalObjectReference `json:"secretRef"`

	// CertificateTemplate customises the client certificate. In a tenant's namespace (any the
	// platform's policy, EnvironmentConfig kcp-self-service, does not list in
	// data.platformNamespaces) it may set metadata, secretTemplate, privateKey and
	// renewBefore, and an issuerRef the policy allows there (an Issuer of the namespace
	// always); subject, dnsNames, ipAddresses and duration are refused: the certificate's
	// identity is spec.username and spec.groups, its lifetime spec.validity
	// (docs/self-service.md).
	// +optional
	CertificateTemplate *CertificateTemplate `json:"certificateTemplate,omitempty"`

	// Authorization binds cluster roles inside kcp to the certificate's group
	// kubeconfig:<name>, as kcp-operator does: one ClusterRoleBinding <uid>:<role> per role, in
	// spec.targetWorkspace (else the deprecated clusterRoleBindings.cluster, else root), each
	// through a provider-kubernetes Object acting through the RootShard's internal proxy.
	// Condition BindingsReady says whether they exist, and the Kubeconfig is Ready only once
	// they do. A role removed from the list is unbound; deleting the Kubeconfig removes them
	// all (docs/workspaces.md).
	// +optional
	Authorization *KubeconfigAuthorization `json:"authorization,omitempty"`
}

// KubeconfigTarget names exactly one RootShard, Shard or FrontProxy, or the reference
// Secret of one.
// +kubebuilder:validation:XValidation:rule="(has(self.rootShardRef) ? 1 : 0) + (has(self.shardRef) ? 1 : 0) + (has(self.frontProxyRef) ? 1 : 0) + (has(self.referenceSecretRef) ? 1 : 0) == 1",message="set exactly one of rootShardRef, shardRef, frontProxyRef or referenceSecretRef"
type KubeconfigTarget struct {
	// +optional
	RootShardRef *corev1.LocalObjectReference `json:"rootShardRef,omitempty"`
	// +optional
	ShardRef *corev1.LocalObjectReference `json:"shardRef,omitempty"`
	// FrontProxyRef names a FrontProxy of this namespace, or that of a kcp installation
	// shared with this namespace by a Tenant in its namespace (docs/shared-kcp.md).
	// +optional
	FrontProxyRef *SharedReference `json:"frontProxyRef,omitempty"`

	// ReferenceSecretRef names a reference Secret in this namespace: the <name>-reference
	// Secret a RootShard or FrontProxy publishes, copied here from the installation's
	// namespace. The kubeconfig reaches the XR it names, as rootShardRef or frontProxyRef
	// would; an installation of another namespace is reached through a FrontProxy its Tenant
	// shares with this namespace.
	// +optional
	ReferenceSecretRef *corev1.LocalObjectReference `json:"referenceSecretRef,omitempty"`
}

// KubeconfigAuthorization binds cluster roles to the kubeconfig's identity inside kcp.
type KubeconfigAuthorization struct {
	ClusterRoleBindings KubeconfigClusterRoleBindings `json:"clusterRoleBindings"`
}

// KubeconfigClusterRoleBindings lists the cluster roles to bind.
type KubeconfigClusterRoleBindings struct {
	// Cluster is deprecated: use spec.targetWorkspace.
	// +optional
	Cluster      string   `json:"cluster,omitempty"`
	ClusterRoles []string `json:"clusterRoles"`
}

// KubeconfigPhase is the lifecycle of a Kubeconfig.
type KubeconfigPhase string

// Kubeconfig phases.
const (
	KubeconfigPhaseProvisioning KubeconfigPhase = "Provisioning"
	KubeconfigPhaseReady        KubeconfigPhase = "Ready"
)

// KubeconfigStatus is what the function reports about a Kubeconfig.
type KubeconfigStatus struct {
	// Phase is Ready once the kubeconfig Secret is written, else Provisioning.
	// +optional
	Phase KubeconfigPhase `json:"phase,omitempty"`

	// TargetName is RootShard/<name>, Shard/<name> or FrontProxy/<name>.
	// +optional
	TargetName string `json:"targetName,omitempty"`

	// SecretName is the Secret holding the kubeconfig.
	// +optional
	SecretName string `json:"secretName,omitempty"`

	// Expiry is when the client certificate expires (RFC 3339); cert-manager renews it
	// before then and the kubeconfig is rewritten.
	// +optional
	Expiry string `json:"expiry,omitempty"`

	// Authorization is kcp-operator's record of provisioned bindings, kept for compatibility.
	// +optional
	Authorization *KubeconfigAuthorizationStatus `json:"authorization,omitempty"`
}

// KubeconfigAuthorizationStatus records where bindings were provisioned.
type KubeconfigAuthorizationStatus struct {
	ProvisionedCluster string `json:"provisionedCluster"`
}
