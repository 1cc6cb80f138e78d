package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ImageSpec selects the kcp container image. The same image provides kcp, kcp-front-proxy,
// cache-server and virtual-workspaces.
type ImageSpec struct {
	// Repository is the image repository. Defaults to ghcr.io/kcp-dev/kcp.
	// +optional
	// +kubebuilder:validation:MaxLength=255
	Repository string `json:"repository,omitempty"`

	// Tag is the image tag. Defaults to v0.32.3, the kcp version this package is tested with
	// (docs/support.md), which kcp's next release (v0.33) is prepared for. Semantic versions
	// enable version-gated flags; other tags are treated as the newest kcp.
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`
	Tag string `json:"tag,omitempty"`

	// ImagePullSecrets are copied to the pod's imagePullSecrets.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// RootShardConfig references the RootShard a component belongs to: the XR itself, or its
// reference Secret.
// +kubebuilder:validation:XValidation:rule="has(self.ref) != has(self.secretRef)",message="name the RootShard in exactly one of ref (the RootShard in this namespace) and secretRef (its reference Secret <rootshard>-reference, or a copy of it, in this namespace)"
type RootShardConfig struct {
	// Ref names a RootShard in the same namespace.
	// +optional
	Ref *corev1.LocalObjectReference `json:"ref,omitempty"`

	// SecretRef names a reference Secret of a RootShard (the <rootshard>-reference Secret it
	// publishes, or a copy of it) in the same namespace, read instead of the RootShard XR:
	// its URLs, CA bundles and the names of its Secrets. The RootShard may live in another
	// namespace; the certificates are still issued by the Issuers named after it
	// (<rootshard>-server-ca, <rootshard>-client-ca, ...) in this namespace.
	// +optional
	SecretRef *corev1.LocalObjectReference `json:"secretRef,omitempty"`
}

// SharedReference names an XR of this namespace or, for a team's Kubeconfig or Workspace,
// of the namespace of a kcp installation the platform shares with the team through a Tenant
// there (docs/shared-kcp.md).
type SharedReference struct {
	// Name of the XR.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the XR: this namespace when unset. Another namespace needs a Tenant there
	// that grants this one.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// EtcdConfig points a shard at its etcd.
type EtcdConfig struct {
	// Endpoints are etcd client URLs, for example https://etcd:2379. A root shard alone may
	// list only "embedded": kcp's own etcd on an emptyDir, for development (data lost on restart).
	Endpoints []string `json:"endpoints"`

	// TLSConfig enables mutual TLS to etcd.
	// +optional
	TLSConfig *EtcdTLSConfig `json:"tlsConfig,omitempty"`

	// Prefix is the etcd key prefix kcp stores its data under: '/' then segments of letters,
	// digits, '.', '_' and '-', for example /kcp.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^(/[A-Za-z0-9_-][A-Za-z0-9._-]*)+/?$`
	Prefix string `json:"prefix,omitempty"`
}

// EmbeddedEtcdEndpoint is the one endpoint that asks kcp for its embedded etcd: kcp's own
// spelling (the default of its --etcd-servers flag).
const EmbeddedEtcdEndpoint = "embedded"

// Embedded reports whether e asks for kcp's embedded etcd instead of an etcd cluster.
func (e EtcdConfig) Embedded() bool {
	return len(e.Endpoints) == 1 && e.Endpoints[0] == EmbeddedEtcdEndpoint
}

// EtcdTLSConfig names the Secret with the etcd client certificate.
type EtcdTLSConfig struct {
	// SecretRef names a Secret with the keys tls.crt, tls.key and ca.crt.
	SecretRef corev1.LocalObjectReference `json:"secretRef"`
}

// ExternalConfig is the public address of a kcp installation or component.
type ExternalConfig struct {
	// Hostname is the public hostname, without scheme or port.
	Hostname string `json:"hostname"`

	// Port is the public port.
	Port uint32 `json:"port"`

	// PrivateHostname is an address reachable from inside the cluster, used by the
	// external-logical-cluster-admin kubeconfigs instead of Hostname when set.
	// +optional
	PrivateHostname string `json:"privateHostname,omitempty"`

	// PrivatePort goes with PrivateHostname; it defaults to Port.
	// +optional
	PrivatePort *uint32 `json:"privatePort,omitempty"`
}

// Certificates selects where the root CA of an installation comes from.
// +kubebuilder:validation:XValidation:rule="!(has(self.issuerRef) && has(self.caSecretRef))",message="set either issuerRef or caSecretRef, not both"
type Certificates struct {
	// IssuerRef is a cert-manager Issuer or ClusterIssuer that issues the root CA.
	// +optional
	IssuerRef *ObjectReference `json:"issuerRef,omitempty"`

	// CASecretRef names an existing CA key pair Secret (keys tls.crt and tls.key) to use as
	// the root CA instead of issuing one.
	// +optional
	CASecretRef *corev1.LocalObjectReference `json:"caSecretRef,omitempty"`
}

// ObjectReference references a cert-manager issuer.
type ObjectReference struct {
	// Name of the issuer.
	Name string `json:"name"`

	// Kind of the issuer: Issuer or ClusterIssuer.
	// +optional
	Kind string `json:"kind,omitempty"`

	// Group of the issuer, usually cert-manager.io.
	// +optional
	Group string `json:"group,omitempty"`
}

// PublicEndpoint is a shard's own public address. The shard advertises it as its virtual
// workspace URL (--shard-virtual-workspace-url) unless an external VirtualWorkspace serves
// them; whatever exposes the name (a LoadBalancer Service, a TLS-passthrough ingress) must
// pass TLS through to the shard's port 6443.
type PublicEndpoint struct {
	// Hostname is the public DNS name, without scheme or port.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Hostname string `json:"hostname"`

	// Port is the public port. Defaults to 6443.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port uint32 `json:"port,omitempty"`

	// ServerCertificate, when set, has the certificate served for the public name issued by
	// another issuer than the installation's CA, typically a public one. Otherwise the
	// shard's serving certificate, from the installation's CA, covers the public name too.
	// +optional
	ServerCertificate *PublicServerCertificate `json:"serverCertificate,omitempty"`
}

// PublicServerCertificate is a second serving certificate for a component's public names
// only, from an issuer other than the installation's CA. The component serves it to clients
// that ask for one of its names (TLS SNI) and keeps its certificate from the installation's
// CA for everyone else, so components inside the cluster verify it as before and a public
// issuer never has to validate an in-cluster name. Not in kcp-operator.
type PublicServerCertificate struct {
	// IssuerRef is the cert-manager Issuer or ClusterIssuer of the certificate.
	IssuerRef ObjectReference `json:"issuerRef"`

	// DNSNames are the certificate's names; a public issuer validates each of them.
	// Defaults to the component's public hostname.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	DNSNames []string `json:"dnsNames,omitempty"`
}

// LocalDataKeyReference references one key of a ConfigMap or Secret in the same namespace.
type LocalDataKeyReference struct {
	// Name of the object.
	Name string `json:"name"`
	// Key within the object's data.
	Key string `json:"key"`
}

// CertificateTemplateMap customises generated certificates, keyed by certificate kind
// (server, client, service-account, requestheader, kubeconfig, logical-cluster-admin, ...,
// or <ca>-ca for the CAs).
type CertificateTemplateMap map[string]CertificateTemplate

// CertificateTemplate is merged onto a generated cert-manager Certificate.
type CertificateTemplate struct {
	// +optional
	Metadata *CertificateMetadataTemplate `json:"metadata,omitempty"`
	// +optional
	Spec *CertificateSpecTemplate `json:"spec,omitempty"`
}

// CertificateMetadataTemplate adds metadata to a generated Certificate.
type CertificateMetadataTemplate struct {
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// CertificateSpecTemplate overrides parts of a generated Certificate's spec.
type CertificateSpecTemplate struct {
	// Subject fields are merged with the generated ones.
	// +optional
	Subject *X509Subject `json:"subject,omitempty"`

	// DNSNames are added to the generated ones, or replace them when IssuerRef is also set.
	// +optional
	DNSNames []string `json:"dnsNames,omitempty"`

	// IPAddresses are added to the generated ones.
	// +optional
	IPAddresses []string `json:"ipAddresses,omitempty"`

	// IssuerRef replaces the generated issuer, for example to use a public ACME issuer for a
	// serving certificate.
	// +optional
	IssuerRef *ObjectReference `json:"issuerRef,omitempty"`

	// SecretTemplate adds labels and annotations to the Secret cert-manager writes.
	// +optional
	SecretTemplate *CertificateSecretTemplate `json:"secretTemplate,omitempty"`

	// Duration replaces the certificate lifetime.
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// RenewBefore replaces the renewal window.
	// +optional
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`

	// PrivateKey overrides the private key settings.
	// +optional
	PrivateKey *CertificatePrivateKeyTemplate `json:"privateKey,omitempty"`
}

// X509Subject mirrors cert-manager's subject fields.
type X509Subject struct {
	// +optional
	Organizations []string `json:"organizations,omitempty"`
	// +optional
	Countries []string `json:"countries,omitempty"`
	// +optional
	OrganizationalUnits []string `json:"organizationalUnits,omitempty"`
	// +optional
	Localities []string `json:"localities,omitempty"`
	// +optional
	Provinces []string `json:"provinces,omitempty"`
	// +optional
	StreetAddresses []string `json:"streetAddresses,omitempty"`
	// +optional
	PostalCodes []string `json:"postalCodes,omitempty"`
	// +optional
	SerialNumber string `json:"serialNumber,omitempty"`
}

// CertificateSecretTemplate adds metadata to the Secret cert-manager writes.
type CertificateSecretTemplate struct {
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// CertificatePrivateKeyTemplate overrides private key settings.
type CertificatePrivateKeyTemplate struct {
	// +optional
	// +kubebuilder:validation:Enum=Never;Always
	RotationPolicy string `json:"rotationPolicy,omitempty"`
	// +optional
	// +kubebuilder:validation:Enum=PKCS1;PKCS8
	Encoding string `json:"encoding,omitempty"`
	// +optional
	// +kubebuilder:validation:Enum=RSA;ECDSA;Ed25519
	Algorithm string `json:"algorithm,omitempty"`
	// +optional
	Size int `json:"size,omitempty"`
}

// DisruptionBudget sets the PodDisruptionBudget a component gets when it runs more than one
// replica.
type DisruptionBudget struct {
	// MinAvailable pods, or a percentage, a node drain must leave running, in place of the
	// default that lets one go at a time. It must let one go.
	// +optional
	// +kubebuilder:validation:XIntOrString
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`
}

// ServiceTemplate customises a generated Service.
type ServiceTemplate struct {
	// +optional
	Metadata *ServiceMetadataTemplate `json:"metadata,omitempty"`
	// +optional
	Spec *ServiceSpecTemplate `json:"spec,omitempty"`
}

// ServiceMetadataTemplate adds metadata to a generated Service.
type ServiceMetadataTemplate struct {
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// ServiceSpecTemplate overrides parts of a generated Service's spec.
type ServiceSpecTemplate struct {
	// +optional
	Type corev1.ServiceType `json:"type,omitempty"`
	// +optional
	ClusterIP string `json:"clusterIP,omitempty"`
	// For type LoadBalancer; not in kcp-operator.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`
	// For type LoadBalancer, fixed once set; not in kcp-operator.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	LoadBalancerClass string `json:"loadBalancerClass,omitempty"`
	// NodePort of the https port, for type NodePort or LoadBalancer; not in kcp-operator.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	NodePort int32 `json:"nodePort,omitempty"`
	// For type NodePort or LoadBalancer; not in kcp-operator.
	// +optional
	// +kubebuilder:validation:Enum=Cluster;Local
	ExternalTrafficPolicy corev1.ServiceExternalTrafficPolicy `json:"externalTrafficPolicy,omitempty"`
}

// DeploymentTemplate customises a generated Deployment.
type DeploymentTemplate struct {
	// +optional
	Metadata *DeploymentMetadataTemplate `json:"metadata,omitempty"`
	// +optional
	Spec *DeploymentSpecTemplate `json:"spec,omitempty"`
}

// DeploymentMetadataTemplate adds metadata to a generated Deployment.
type DeploymentMetadataTemplate struct {
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// DeploymentSpecTemplate customises the pod template of a generated Deployment.
type DeploymentSpecTemplate struct {
	// +optional
	Template *PodTemplateSpec `json:"template,omitempty"`
}

// PodTemplateSpec customises pod metadata and scheduling.
type PodTemplateSpec struct {
	// +optional
	Metadata *PodMetadataTemplate `json:"metadata,omitempty"`
	// +optional
	Spec *PodSpecTemplate `json:"spec,omitempty"`
}

// PodMetadataTemplate adds metadata to the pods.
type PodMetadataTemplate struct {
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// PodSpecTemplate sets scheduling fields of the pods. Unlike kcp-operator, only the fields
// that are set here replace the generated ones.
type PodSpecTemplate struct {
	// +optional
	// +mapType=atomic
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=ip
	HostAliases []corev1.HostAlias `json:"hostAliases,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// TopologySpreadConstraints replace the default, which spreads the pods across nodes and
	// zones where it can (whenUnsatisfiable: ScheduleAnyway).
	// +optional
	// +listType=map
	// +listMapKey=topologyKey
	// +kubebuilder:validation:MaxItems=8
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// PriorityClassName of the pods.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// SecurityContext sets the user and groups the pods run as.
	// +optional
	SecurityContext *PodSecurity `json:"securityContext,omitempty"`
}

// PodSecurity sets who a component's containers run as, within Pod Security "restricted":
// whatever is set here, they run as a non-root user with no privilege escalation, no
// capabilities, a read-only root filesystem and the runtime's default seccomp profile. No ID
// may be 0 (root's user or group). Unset, the image's user is used (65532:65532 for kcp's
// images); an image of your own whose user is a name rather than a number needs RunAsUser.
type PodSecurity struct {
	// RunAsUser is the containers' user ID.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	// RunAsGroup is the containers' primary group ID.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
	// FSGroup owns the pod's volumes and is added to the containers' groups. It replaces
	// the image's group that an audit log on a claim otherwise gets.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	FSGroup *int64 `json:"fsGroup,omitempty"`
	// SupplementalGroups are added to the containers' groups.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=2147483647
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`
}

// LoggingSpec sets kcp's log verbosity.
type LoggingSpec struct {
	// Level is passed as -v=<level> when non-zero.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Level int `json:"level,omitempty"`
}

// AuditSpec configures kcp's audit log.
type AuditSpec struct {
	// +optional
	Policy *AuditPolicySpec `json:"policy,omitempty"`
	// +optional
	Webhook *AuditWebhookSpec `json:"webhook,omitempty"`
	// Log writes audit events to files on a volume of the pod, rotated and pruned by kcp.
	// Not in kcp-operator.
	// +optional
	Log *AuditLogSpec `json:"log,omitempty"`
}

// AuditPolicySpec names the ConfigMap holding the audit policy.
type AuditPolicySpec struct {
	// +optional
	ConfigMap *LocalDataKeyReference `json:"configMap,omitempty"`
}

// AuditWebhookMode is how audit events are sent to the webhook.
// +kubebuilder:validation:Enum="";batch;blocking;blocking-strict
type AuditWebhookMode string

// AuditWebhookSpec configures the audit webhook backend.
type AuditWebhookSpec struct {
	// +optional
	BatchBufferSize int `json:"batchBufferSize,omitempty"`
	// +optional
	BatchMaxSize int `json:"batchMaxSize,omitempty"`
	// +optional
	BatchMaxWait *metav1.Duration `json:"batchMaxWait,omitempty"`
	// +optional
	BatchThrottleBurst int `json:"batchThrottleBurst,omitempty"`
	// +optional
	BatchThrottleEnable bool `json:"batchThrottleEnable,omitempty"`
	// BatchThrottleQPS is a float, written as a string.
	// +optional
	BatchThrottleQPS string `json:"batchThrottleQPS,omitempty"`
	// ConfigSecretName names a Secret with the webhook kubeconfig under the key kubeconfig.
	// +optional
	ConfigSecretName string `json:"configSecretName,omitempty"`
	// +optional
	InitialBackoff *metav1.Duration `json:"initialBackoff,omitempty"`
	// +optional
	Mode AuditWebhookMode `json:"mode,omitempty"`
	// +optional
	TruncateEnabled bool `json:"truncateEnabled,omitempty"`
	// +optional
	TruncateMaxBatchSize int `json:"truncateMaxBatchSize,omitempty"`
	// +optional
	TruncateMaxEventSize int `json:"truncateMaxEventSize,omitempty"`
	// +optional
	Version string `json:"version,omitempty"`
}

// AuthorizationSpec configures kcp's authorization webhook.
type AuthorizationSpec struct {
	// +optional
	Webhook *AuthorizationWebhookSpec `json:"webhook,omitempty"`
}

// AuthorizationWebhookSpec configures the authorization webhook.
type AuthorizationWebhookSpec struct {
	// +optional
	AllowPaths []string `json:"allowPaths,omitempty"`
	// +optional
	CacheAuthorizedTTL *metav1.Duration `json:"cacheAuthorizedTTL,omitempty"`
	// +optional
	CacheUnauthorizedTTL *metav1.Duration `json:"cacheUnauthorizedTTL,omitempty"`
	// ConfigSecretName names a Secret with the webhook kubeconfig under the key kubeconfig.
	// +optional
	ConfigSecretName string `json:"configSecretName,omitempty"`
	// +optional
	Version string `json:"version,omitempty"`
}

// AuthSpec configures how kcp authenticates users.
// +kubebuilder:validation:XValidation:rule="!(has(self.oidc) && has(self.authenticationConfiguration))",message="set either oidc or authenticationConfiguration, not both: kcp refuses --oidc-* flags beside --authentication-config."
type AuthSpec struct {
	// +optional
	OIDC *OIDCConfiguration `json:"oidc,omitempty"`
	// AuthenticationConfiguration names the key of a ConfigMap holding a Kubernetes
	// structured authentication configuration (apiserver.config.k8s.io/v1
	// AuthenticationConfiguration: several JWT issuers, claim mappings, CEL validation rules),
	// passed to kcp as --authentication-config (kcp v0.32 accepts it). Use it instead of oidc.
	// +optional
	AuthenticationConfiguration *LocalDataKeyReference `json:"authenticationConfiguration,omitempty"`
	// +optional
	Webhook *AuthenticationWebhookSpec `json:"webhook,omitempty"`
	// +optional
	TokenAuthFile *TokenAuthFileSpec `json:"tokenAuthFile,omitempty"`
	// +optional
	ServiceAccount *ServiceAccountAuthentication `json:"serviceAccount,omitempty"`
	// DropGroups are groups the front-proxy never passes on to the shards (front-proxy
	// only; a trailing * matches a prefix). Setting it replaces kcp's own list
	// (system:masters, system:kcp:logical-cluster-admin, system:kcp:initializer:*,
	// system:kcp:terminator:*), which keeps users from claiming kcp's privileged groups
	// through the front-proxy: repeat those in yours (docs/authentication.md).
	// +optional
	DropGroups []string `json:"dropGroups,omitempty"`
	// PassOnGroups, when set, are the only groups the front-proxy passes on to the shards
	// (front-proxy only; a trailing * matches a prefix); dropGroups applies after it.
	// +optional
	PassOnGroups []string `json:"passOnGroups,omitempty"`
}

// OIDCConfiguration configures OpenID Connect authentication.
type OIDCConfiguration struct {
	IssuerURL string `json:"issuerURL"`
	ClientID  string `json:"clientID"`
	// ClientSecret is deprecated and unused.
	// +optional
	ClientSecret string `json:"clientSecret,omitempty"`
	// +optional
	GroupsClaim string `json:"groupsClaim,omitempty"`
	// +optional
	UsernameClaim string `json:"usernameClaim,omitempty"`
	// +optional
	GroupsPrefix string `json:"groupsPrefix,omitempty"`
	// +optional
	UsernamePrefix string `json:"usernamePrefix,omitempty"`
	// CAFileRef names a Secret key with the OIDC issuer's CA. The key defaults to ca.crt.
	// +optional
	CAFileRef *SecretKeyRef `json:"caFileRef,omitempty"`
}

// SecretKeyRef references a key of a Secret in the same namespace.
type SecretKeyRef struct {
	Name string `json:"name"`
	// +optional
	Key string `json:"key,omitempty"`
}

// AuthenticationWebhookSpec configures token webhook authentication.
type AuthenticationWebhookSpec struct {
	// ConfigSecretName names a Secret with the webhook kubeconfig under the key kubeconfig.
	ConfigSecretName string `json:"configSecretName"`
	// +optional
	CacheAuthenticationTTL *metav1.Duration `json:"cacheAuthenticationTTL,omitempty"`
	// +optional
	// +kubebuilder:validation:Enum=v1beta1;v1
	Version string `json:"version,omitempty"`
}

// TokenAuthFileSpec configures static token authentication.
type TokenAuthFileSpec struct {
	SecretName string `json:"secretName"`
	// Key in the Secret; defaults to token.csv.
	// +optional
	Key string `json:"key,omitempty"`
}

// ServiceAccountAuthentication enables kcp service account tokens across all shards.
type ServiceAccountAuthentication struct {
	Enabled bool `json:"enabled"`
}

// ObjectLimit is kcp's limit of objects per logical cluster (--logical-cluster-total-object-limit
// and --logical-cluster-object-count-scan-interval).
type ObjectLimit struct {
	// Total is the most objects, of every kind together, one logical cluster may hold; kcp
	// refuses to create more. It is checked against kcp's last count, so a burst of creations
	// between two counts can pass it. A LogicalCluster's core.kcp.io/max-total-objects
	// annotation, which only kcp's system users can set, overrides it for that logical cluster.
	// +kubebuilder:validation:Minimum=1
	Total int64 `json:"total"`

	// ScanInterval is how often each replica counts every logical cluster's objects, reading
	// all of the shard's keys in etcd. At least 10s; defaults to kcp's 1m.
	// +optional
	ScanInterval *metav1.Duration `json:"scanInterval,omitempty"`
}

// CommonShardSpec holds the fields shared by RootShard and Shard.
type CommonShardSpec struct {
	// ClusterDomain is the cluster's DNS domain, used in service FQDNs. Defaults to cluster.local.
	// +optional
	ClusterDomain string `json:"clusterDomain,omitempty"`

	// ShardBaseURL is the URL other components use to reach this shard. Defaults to
	// https://<service>.<namespace>.svc.<clusterDomain>:6443.
	// +optional
	ShardBaseURL string `json:"shardBaseURL,omitempty"`

	// Etcd configures the etcd this shard stores its data in.
	Etcd EtcdConfig `json:"etcd"`

	// +optional
	Image *ImageSpec `json:"image,omitempty"`

	// Replicas of the shard Deployment. Defaults to 2.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// PodDisruptionBudget: not in kcp-operator.
	// +optional
	PodDisruptionBudget *DisruptionBudget `json:"podDisruptionBudget,omitempty"`

	// Resources override the defaults (requests cpu 1, memory 1Gi; limits cpu 2, memory 2Gi)
	// key by key.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// +optional
	Audit *AuditSpec `json:"audit,omitempty"`

	// Monitoring composes a PodMonitor for the shard's metrics.
	// +optional
	Monitoring *Monitoring `json:"monitoring,omitempty"`

	// ObjectLimit bounds the objects each logical cluster (workspace) of this shard may hold.
	// Needs kcp v0.33 or later. Not in kcp-operator.
	// +optional
	ObjectLimit *ObjectLimit `json:"objectLimit,omitempty"`

	// Upgrade is what a change of spec.image may do: a downgrade is refused unless it allows it.
	// +optional
	Upgrade *UpgradePolicy `json:"upgrade,omitempty"`

	// HomeWorkspaces turns kcp's home workspaces off, or chooses who gets one. kcp's default,
	// when unset: on, for every authenticated user. Not in kcp-operator.
	// +optional
	HomeWorkspaces *HomeWorkspaces `json:"homeWorkspaces,omitempty"`

	// Batteries are the default objects kcp creates (--batteries-included). Defaults to
	// [workspace-types], as kcp-operator; [] creates none. Not in kcp-operator.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=2
	Batteries *[]Battery `json:"batteries,omitempty"`

	// Profiling serves Go's pprof endpoints on the pod's loopback address, for kubectl
	// port-forward. Not in kcp-operator.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Encryption encrypts resources (Secrets by default) in the shard's etcd with keys from
	// Secrets, and rotates them in a safe order. Not in kcp-operator.
	// +optional
	Encryption *Encryption `json:"encryption,omitempty"`

	// +optional
	Authorization *AuthorizationSpec `json:"authorization,omitempty"`

	// +optional
	Auth *AuthSpec `json:"auth,omitempty"`

	// KcpVirtualWorkspace names an external VirtualWorkspace serving this shard's virtual
	// workspaces; the shard then runs none in process.
	// +optional
	KcpVirtualWorkspace *corev1.LocalObjectReference `json:"kcpVirtualWorkspace,omitempty"`

	// Public exposes this shard outside the cluster under a name of its own, for clients that
	// reach it directly (virtual workspace URLs such as APIExport endpoints point there).
	// Components inside the cluster keep using shardBaseURL. Not in kcp-operator.
	// +optional
	Public *PublicEndpoint `json:"public,omitempty"`

	// +optional
	CertificateTemplates CertificateTemplateMap `json:"certificateTemplates,omitempty"`

	// +optional
	ServiceTemplate *ServiceTemplate `json:"serviceTemplate,omitempty"`

	// +optional
	DeploymentTemplate *DeploymentTemplate `json:"deploymentTemplate,omitempty"`

	// CABundleSecretRef names a Secret whose tls.crt is added to the CA bundle of the
	// external-logical-cluster-admin kubeconfig.
	// +optional
	CABundleSecretRef *corev1.LocalObjectReference `json:"caBundleSecretRef,omitempty"`

	// ClientCABundleRef names a Secret whose tls.crt holds additional trusted client CAs.
	// +optional
	ClientCABundleRef *corev1.LocalObjectReference `json:"clientCABundleRef,omitempty"`

	// ExtraArgs are appended to the kcp command line.
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

// Get returns the template for key, or nil.
func (m CertificateTemplateMap) Get(key string) *CertificateTemplate {
	t, ok := m[key]
	if !ok {
		return nil
	}
	return &t
}
