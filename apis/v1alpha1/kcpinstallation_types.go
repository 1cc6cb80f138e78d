package v1alpha1

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KcpInstallation is a whole kcp installation as one object: a RootShard, optional Shards and
// CacheServer, one or more FrontProxies and an admin Kubeconfig, composed as the per-kind XRs
// of this package in the installation's namespace. A tenant creates one and reads the
// kubeconfig Secret named in its status.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={kcp}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.url"
// +kubebuilder:printcolumn:name="Kubeconfig",type="string",JSONPath=".status.kubeconfigSecret"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
type KcpInstallation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KcpInstallationSpec   `json:"spec"`
	Status KcpInstallationStatus `json:"status,omitempty"`
}

// MaxInstallationReplicas bounds every replicas field of a KcpInstallation (the XRD's
// Maximum says the same): a tenant's installation runs on the platform's nodes, and a
// replica count of thousands would take them from every other team.
const MaxInstallationReplicas = 10

// KcpInstallationSpec describes an installation. Only external.hostname and certificates
// are required; everything else has a default (etcd is managed unless set).
type KcpInstallationSpec struct {
	// External is the public address of the installation: the RootShard's external address
	// and, unless a front-proxy sets its own, the first front-proxy's.
	External InstallationExternal `json:"external"`

	// Certificates selects where the installation's root CA comes from.
	Certificates Certificates `json:"certificates"`

	// Etcd is where the root shard, and every shard that does not set its own, store their
	// data: an etcd cluster the installation composes (managed, the default), an external
	// one, or, for development only, kcp's embedded etcd.
	// +optional
	Etcd *InstallationEtcd `json:"etcd,omitempty"`

	// Image is the kcp image of every component. Defaults to the kcp version this package
	// was tested with.
	// +optional
	Image *ImageSpec `json:"image,omitempty"`

	// ClusterDomain is the cluster's DNS domain. Defaults to cluster.local.
	// +optional
	ClusterDomain string `json:"clusterDomain,omitempty"`

	// RootShard tunes the root shard.
	// +optional
	RootShard *InstallationRootShard `json:"rootShard,omitempty"`

	// Shards are additional shards, each composed as the Shard <installation>-<name>.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	Shards []InstallationShard `json:"shards,omitempty"`

	// CacheServer, when set, composes a CacheServer (<installation>-cache) that every shard
	// uses, storing in the installation's etcd; otherwise the root shard serves as the cache.
	// +optional
	CacheServer *InstallationCacheServer `json:"cacheServer,omitempty"`

	// FrontProxies are the installation's entry points, each composed as the FrontProxy
	// <installation>-<name>. Defaults to one named front-proxy at spec.external, exposed
	// through a LoadBalancer Service.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=10
	FrontProxies []InstallationFrontProxy `json:"frontProxies,omitempty"`

	// Admin is the admin kubeconfig, issued for the first front-proxy.
	// +optional
	Admin *InstallationAdmin `json:"admin,omitempty"`

	// Auth configures how the root shard and every shard authenticate requests sent to them
	// directly (OIDC, service accounts, a webhook; client certificates are always accepted).
	// Front-proxies have their own, in frontProxies[].auth.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.oidc) || (has(self.serviceAccount) && self.serviceAccount.enabled)",message="OIDC requires ServiceAccount auth to be enabled."
	Auth *AuthSpec `json:"auth,omitempty"`

	// Audit configures the audit log of the root shard and every shard.
	// +optional
	Audit *AuditSpec `json:"audit,omitempty"`

	// Authorization adds an authorization webhook to the root shard and every shard.
	// +optional
	Authorization *AuthorizationSpec `json:"authorization,omitempty"`

	// Scheduling of every component's pods (root shard, shards, front-proxies, cache server,
	// managed etcd); a component's own scheduling overrides it field by field. Without it
	// each component's replicas spread across nodes and zones where the scheduler can.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Monitoring composes a PodMonitor for the root shard, every shard and every front-proxy.
	// +optional
	Monitoring *Monitoring `json:"monitoring,omitempty"`

	// ObjectLimit bounds the objects each logical cluster (workspace) of the root shard and
	// every shard may hold. Needs kcp v0.33 or later.
	// +optional
	ObjectLimit *ObjectLimit `json:"objectLimit,omitempty"`

	// Upgrade is what a change of spec.image may do. Every change of image rolls out in
	// kcp's order, the root shard first and the front-proxies last; a downgrade is refused
	// unless this allows it.
	// +optional
	Upgrade *UpgradePolicy `json:"upgrade,omitempty"`

	// HomeWorkspaces of the root shard and every shard, which must agree for a user's ~ to
	// resolve wherever it lands. kcp's default, when unset: on, for every authenticated user.
	// +optional
	HomeWorkspaces *HomeWorkspaces `json:"homeWorkspaces,omitempty"`

	// Batteries are the default objects the root shard and every shard create. Defaults to
	// [workspace-types]; [] creates none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=2
	Batteries *[]Battery `json:"batteries,omitempty"`

	// Profiling of every kcp component (root shard, shards, front-proxies, virtual workspace
	// servers); a component's own profiling replaces it. In a namespace the platform's policy
	// does not allow it for (data.features.profiling), it is refused.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Encryption at rest of the root shard and every shard, each with the same keys and each
	// rotating on its own: the RootShard and each Shard report theirs in status.encryption.
	// A team may set it on its own installation, and the platform's policy does not decide it:
	// at most 4 keys and 16 resources, read from Secrets of the installation's namespace only
	// (TestCompose/KeyOfAnotherTeam); it touches no certificate or identity, and its rewrite
	// Job uses the shard's own client certificate against the shard's own Service. Its
	// rewriteImages run with that certificate, in the installation's namespace, which holds
	// the certificate's Secret anyway, under Pod Security restricted.
	// +optional
	Encryption *Encryption `json:"encryption,omitempty"`
}

// InstallationExternal is the public address of an installation.
type InstallationExternal struct {
	// Hostname is the public hostname, without scheme or port.
	// +kubebuilder:validation:MinLength=1
	Hostname string `json:"hostname"`

	// Port is the public port. Defaults to 6443.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port uint32 `json:"port,omitempty"`

	// PrivateHostname is where kcp's own components reach the installation from inside the
	// cluster (a shard calls a front-proxy to schedule a workspace). Only in spec.external.
	// Defaults to the first front-proxy's in-cluster Service, so that traffic stays in the
	// cluster and is verified against the installation's CA even when the public name serves
	// a certificate from a public issuer.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PrivateHostname string `json:"privateHostname,omitempty"`

	// PrivatePort goes with PrivateHostname. Defaults to the first front-proxy's Service port
	// when PrivateHostname is defaulted, else to Port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	PrivatePort *uint32 `json:"privatePort,omitempty"`
}

// InstallationPublic exposes a shard of an installation outside the cluster under a name
// of its own (kcp's public-shards topology).
type InstallationPublic struct {
	PublicEndpoint `json:",inline"`

	// ServiceType of the shard's Service. Defaults to LoadBalancer, which exposes port 6443:
	// leave port at 6443 with it.
	// +optional
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	ServiceType corev1.ServiceType `json:"serviceType,omitempty"`
}

// InstallationEtcd is a managed etcd cluster, an external one, or kcp's embedded etcd.
// +kubebuilder:validation:XValidation:rule="(has(self.managed) ? 1 : 0) + (has(self.external) ? 1 : 0) + (has(self.embedded) && self.embedded ? 1 : 0) <= 1",message="set one of etcd.managed, etcd.external and etcd.embedded."
type InstallationEtcd struct {
	// Managed composes an etcd cluster for the installation: a StatefulSet with a volume per
	// member, its Services and its TLS (dedicated client and peer CAs issued by the
	// installation's root CA). Every shard stores its data in it under its own key prefix.
	// The default when external is not set.
	// +optional
	Managed *ManagedEtcd `json:"managed,omitempty"`

	// External is an etcd the installation does not manage, as in a RootShard's spec.etcd.
	// +optional
	External *EtcdConfig `json:"external,omitempty"`

	// Embedded runs kcp's own etcd inside the root shard's pod, on an emptyDir: a throwaway
	// kcp for development and tests, never for production. Everything kcp stores is lost
	// whenever the pod restarts or moves. One root shard of one replica: no shards, and a
	// cache server only with its own storage.
	// +optional
	Embedded bool `json:"embedded,omitempty"`
}

// IsManaged reports whether the installation composes its etcd: the default, when neither
// an external nor kcp's embedded etcd is set.
func (e *InstallationEtcd) IsManaged() bool {
	return e == nil || (e.External == nil && !e.Embedded)
}

// ManagedEtcd is the etcd cluster an installation composes.
type ManagedEtcd struct {
	// Replicas is the number of etcd members: 1 (no fault tolerance) or 3. Defaults to 1.
	// Changing it after creation is not supported: etcd membership is fixed at bootstrap.
	// +optional
	// +kubebuilder:validation:Enum=1;3
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="etcd.managed.replicas cannot change after creation: etcd membership is fixed when the cluster bootstraps."
	Replicas int32 `json:"replicas,omitempty"`

	// Storage is each member's volume.
	// +optional
	Storage *ManagedEtcdStorage `json:"storage,omitempty"`

	// Image is the etcd image. Defaults to the etcd version this package was tested with.
	// +optional
	Image string `json:"image,omitempty"`

	// Resources of the etcd container; none unless set.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// VolumeDeletionPolicy says what happens to the members' volumes (and so to kcp's data)
	// when the installation is deleted: Retain (the default) keeps the PersistentVolumeClaims,
	// so an installation re-created with the same name finds its data again; Delete removes
	// them with the StatefulSet.
	// +optional
	// +kubebuilder:validation:Enum=Retain;Delete
	VolumeDeletionPolicy string `json:"volumeDeletionPolicy,omitempty"`

	// Scheduling of the etcd members, over spec.scheduling field by field. The backup
	// CronJob's pods are scheduled the same way.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Profiling of the members, instead of spec.profiling: etcd serves Go's pprof endpoints
	// on its client port, to clients with the cluster's client certificate, so port does not
	// apply.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Backup takes snapshots of the cluster on a schedule into a PersistentVolumeClaim of the
	// installation's namespace: a CronJob <cluster>-backup runs etcdctl snapshot save with
	// the cluster's client certificate, then keeps the newest retention snapshots. None
	// unless set. docs/day-two.md shows how to restore one.
	// +optional
	Backup *ManagedEtcdBackup `json:"backup,omitempty"`

	// Restore replaces the cluster's data with a snapshot of its backups (docs/day-two.md);
	// status.restores says each step. What kcp stored since is lost. Remove it once Restored.
	// +optional
	Restore *ManagedEtcdRestore `json:"restore,omitempty"`
}

// ManagedEtcdRestore names the snapshot a managed etcd cluster is restored from.
type ManagedEtcdRestore struct {
	// Snapshot is the file in the backup volume: <cluster>/<file>.db.
	// +kubebuilder:validation:MinLength=4
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?/[A-Za-z0-9][A-Za-z0-9._-]*\.db$`
	Snapshot string `json:"snapshot"`
}

// ManagedEtcdBackup is the schedule, destination and retention of a managed etcd cluster's
// snapshots.
type ManagedEtcdBackup struct {
	// Schedule is when a snapshot is taken, in cron syntax (five fields, or @hourly, @daily
	// and the like), in UTC. Defaults to "0 */6 * * *": every six hours. A tenant's runs
	// are at least data.limits.backupInterval (1h) apart.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="backup.schedule cannot carry a time zone (TZ= or CRON_TZ=): the schedule is in UTC."
	Schedule string `json:"schedule,omitempty"`

	// Retention is how many snapshots are kept: after each successful snapshot the oldest
	// beyond this number are deleted from the volume. Defaults to 7.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Retention *int32 `json:"retention,omitempty"`

	// Volume is where the snapshots are written, under a directory named like the cluster.
	Volume ManagedEtcdBackupVolume `json:"volume"`

	// Image is the image whose POSIX shell (sh, mkdir, ls, tail, rm) prepares the directory and
	// prunes old snapshots. Defaults to a pinned busybox. The snapshot itself is taken with
	// the etcdctl of the cluster's own etcd image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`
}

// ManagedEtcdBackupVolume is the destination of the snapshots. Only a PersistentVolumeClaim
// of the installation's namespace can be named: to keep snapshots in object storage, use a
// claim bound through an object-storage CSI driver (an S3 or GCS bucket mounted as a
// volume).
type ManagedEtcdBackupVolume struct {
	// ClaimName is the PersistentVolumeClaim, in the installation's namespace, the snapshots
	// are written to. It must exist and be writable by uid/gid 65532 (the pod's fsGroup), and
	// ReadWriteMany if other pods mount it while a backup runs.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`
	ClaimName string `json:"claimName"`
}

// ManagedEtcdStorage is the volume of each etcd member.
type ManagedEtcdStorage struct {
	// Size of each member's volume. Defaults to 8Gi.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// StorageClassName of each member's volume. Defaults to the cluster's default class.
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`
}

// InstallationRootShard tunes the root shard of an installation.
type InstallationRootShard struct {
	// Replicas of the root shard Deployment. Defaults to 2, at most 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Replicas *int32 `json:"replicas,omitempty"`

	// Resources of the kcp container; none unless set.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// ShardBaseURL is the URL kcp's components reach the root shard at. Defaults to the
	// in-cluster Service; to make the root shard public, set public instead and keep
	// in-cluster traffic in the cluster.
	// +optional
	ShardBaseURL string `json:"shardBaseURL,omitempty"`

	// Public exposes the root shard outside the cluster under a name of its own.
	// +optional
	Public *InstallationPublic `json:"public,omitempty"`

	// VirtualWorkspace runs the root shard's virtual workspaces in a server of their own, the
	// VirtualWorkspace <installation>-vw, instead of inside the root shard.
	// +optional
	VirtualWorkspace *InstallationVirtualWorkspace `json:"virtualWorkspace,omitempty"`

	// Scheduling of this component's pods, over spec.scheduling field by field.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Profiling of this component, instead of spec.profiling.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Extra adds arguments, volumes and log verbosity to this component's container.
	// +optional
	Extra *ComponentExtra `json:"extra,omitempty"`
}

// InstallationServerCertificate has the certificate a front-proxy serves for its public
// hostname issued by another issuer than the installation's CA, typically a public one
// (ACME), for clients that should not need the installation's CA. The certificate from the
// installation's CA keeps serving the front-proxy's in-cluster names.
type InstallationServerCertificate struct {
	// IssuerRef is the cert-manager Issuer or ClusterIssuer of the serving certificate.
	IssuerRef ObjectReference `json:"issuerRef"`

	// DNSNames are the certificate's names, complete: a public issuer validates every name,
	// so the in-cluster names are left out. Defaults to the front-proxy's external hostname.
	// +optional
	DNSNames []string `json:"dnsNames,omitempty"`

	// CABundleSecretRef names a Secret whose tls.crt holds the issuer's CA, added to the admin
	// kubeconfig when the issuer is not in clients' system trust store.
	// +optional
	CABundleSecretRef *corev1.LocalObjectReference `json:"caBundleSecretRef,omitempty"`
}

// InstallationShard is one additional shard.
// +kubebuilder:validation:XValidation:rule="!(has(self.etcd) && has(self.managedEtcd))",message="set either etcd (external) or managedEtcd for a shard, not both."
type InstallationShard struct {
	// Name of the shard within the installation.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=20
	Name string `json:"name"`

	// Replicas of the shard Deployment. Defaults to 2, at most 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Replicas *int32 `json:"replicas,omitempty"`

	// Resources of the kcp container; none unless set.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// Etcd is an external etcd for this shard alone, instead of the installation's.
	// +optional
	Etcd *EtcdConfig `json:"etcd,omitempty"`

	// ManagedEtcd composes an etcd cluster for this shard alone (<installation>-<shard>-etcd),
	// instead of storing it in the installation's etcd: for a shard whose load or data must
	// not share the others' etcd.
	// +optional
	ManagedEtcd *ManagedEtcd `json:"managedEtcd,omitempty"`

	// ShardBaseURL is the URL kcp's components reach this shard at. Defaults to the
	// in-cluster Service.
	// +optional
	ShardBaseURL string `json:"shardBaseURL,omitempty"`

	// Public exposes this shard outside the cluster under a name of its own.
	// +optional
	Public *InstallationPublic `json:"public,omitempty"`

	// VirtualWorkspace runs this shard's virtual workspaces in a server of their own, the
	// VirtualWorkspace <installation>-<name>-vw, instead of inside the shard.
	// +optional
	VirtualWorkspace *InstallationVirtualWorkspace `json:"virtualWorkspace,omitempty"`

	// Scheduling of this component's pods, over spec.scheduling field by field.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Profiling of this component, instead of spec.profiling.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Extra adds arguments, volumes and log verbosity to this component's container.
	// +optional
	Extra *ComponentExtra `json:"extra,omitempty"`
}

// InstallationVirtualWorkspace is a virtual workspace server outside a shard (kcp's
// --shard-virtual-workspace-url): the shard then serves no virtual workspaces itself and
// advertises this server's address to clients.
type InstallationVirtualWorkspace struct {
	// External is the address clients reach the virtual workspaces at; the server's
	// certificate names its hostname.
	External InstallationExternal `json:"external"`

	// Replicas of the server. Defaults to 2, at most 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Replicas *int32 `json:"replicas,omitempty"`

	// Resources of the server's container; none unless set.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// Scheduling of the server's pods, over spec.scheduling field by field.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Profiling of this server, instead of spec.profiling.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Extra adds arguments, volumes and log verbosity to the server's container.
	// +optional
	Extra *ComponentExtra `json:"extra,omitempty"`
}

// InstallationCacheServer configures the installation's cache server.
// +kubebuilder:validation:XValidation:rule="!(has(self.etcd) && has(self.embedded) && self.embedded)",message="set either cacheServer.etcd or cacheServer.embedded, not both."
type InstallationCacheServer struct {
	// Etcd is the cache server's etcd. Defaults to the installation's etcd (managed or
	// external) under a key prefix of the cache's own: /cache, or <prefix>-cache beside an
	// external etcd's prefix. kcp v0.32.3 and earlier ignore the prefix and store under
	// /cache, so there a new cache server in an etcd shared through a prefix is refused.
	// +optional
	Etcd *EtcdConfig `json:"etcd,omitempty"`

	// Embedded keeps the cache in an embedded etcd on an emptyDir volume instead, lost
	// whenever its pod restarts (the shards then replicate into it again): for development.
	// +optional
	Embedded bool `json:"embedded,omitempty"`

	// Replicas of the cache server. Defaults to 2, at most 10; an embedded cache is one
	// pod's own, so it runs exactly 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Replicas *int32 `json:"replicas,omitempty"`

	// Scheduling of this component's pods, over spec.scheduling field by field.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Extra adds arguments, volumes and log verbosity to this component's container.
	// +optional
	Extra *ComponentExtra `json:"extra,omitempty"`
}

// InstallationFrontProxy is one entry point of an installation.
type InstallationFrontProxy struct {
	// Name of the front-proxy within the installation.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=20
	Name string `json:"name"`

	// External is this front-proxy's public address. Defaults to spec.external for the
	// first front-proxy; required for the others.
	// +optional
	External *InstallationExternal `json:"external,omitempty"`

	// ServiceType of the front-proxy's Service. Defaults to LoadBalancer, or to ClusterIP
	// when exposure is set.
	// +optional
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	ServiceType corev1.ServiceType `json:"serviceType,omitempty"`

	// Service sets what the front-proxy's Service carries beyond its type: a cloud load
	// balancer's settings. Not with exposure, whose Service is ClusterIP. In a tenant's
	// namespace, annotations, loadBalancerIP, loadBalancerClass and nodePort need the
	// platform's policy (data.features.loadBalancers): each spends or claims what the
	// platform's cloud account or nodes hold.
	// +optional
	Service *FrontProxyService `json:"service,omitempty"`

	// Exposure reaches the front-proxy through the cluster's Gateway or Ingress controller
	// instead of a Service of its own: TLS passes through to the front-proxy, which keeps
	// terminating it (kcp authenticates clients by their certificates). external.hostname
	// and external.port are the address clients use there.
	// +optional
	Exposure *FrontProxyExposure `json:"exposure,omitempty"`

	// Auth configures how this front-proxy authenticates users (client certificates are
	// always accepted).
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.oidc) || (has(self.serviceAccount) && self.serviceAccount.enabled)",message="OIDC requires ServiceAccount auth to be enabled."
	Auth *AuthSpec `json:"auth,omitempty"`

	// Replicas of the front-proxy. Defaults to 2, at most 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Replicas *int32 `json:"replicas,omitempty"`

	// Resources of the front-proxy container; none unless set.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// ServerCertificate, when set, has this front-proxy's serving certificate issued by
	// another issuer than the installation's CA. Defaults to the installation's CA.
	// +optional
	ServerCertificate *InstallationServerCertificate `json:"serverCertificate,omitempty"`

	// Scheduling of this component's pods, over spec.scheduling field by field.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Profiling of this component, instead of spec.profiling.
	// +optional
	Profiling *Profiling `json:"profiling,omitempty"`

	// Extra adds arguments, volumes and log verbosity to this component's container.
	// +optional
	Extra *ComponentExtra `json:"extra,omitempty"`
}

// FrontProxyService is what a front-proxy's Service carries beyond its type.
type FrontProxyService struct {
	// Annotations of the Service, such as a cloud load balancer's settings.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Annotations map[string]string `json:"annotations,omitempty"`

	// LoadBalancerIP asks the load balancer for this address (type LoadBalancer only).
	// Kubernetes deprecates the field, which many load balancer implementations still read;
	// others take an annotation instead.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`

	// LoadBalancerClass picks a load balancer implementation other than the cluster's
	// default (type LoadBalancer only). Kubernetes refuses to change it once the Service
	// exists: the change is reported on the FrontProxy and the Service keeps serving.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	LoadBalancerClass string `json:"loadBalancerClass,omitempty"`

	// NodePort is the port the Service opens on every node (type NodePort or LoadBalancer),
	// within the cluster's node port range (30000-32767 unless the cluster sets another).
	// Kubernetes picks one when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	NodePort int32 `json:"nodePort,omitempty"`

	// ExternalTrafficPolicy is Kubernetes' (type NodePort or LoadBalancer): Local keeps the
	// client's address and sends traffic only to nodes running a front-proxy pod; Cluster,
	// the default, spreads it over every node.
	// +optional
	// +kubebuilder:validation:Enum=Cluster;Local
	ExternalTrafficPolicy corev1.ServiceExternalTrafficPolicy `json:"externalTrafficPolicy,omitempty"`
}

// InstallationAdmin is the installation's admin kubeconfig.
type InstallationAdmin struct {
	// Username is the client certificate's common name. Defaults to kcp-admin.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Username string `json:"username,omitempty"`

	// Groups are the client certificate's organizations. Defaults to system:kcp:admin.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Groups []string `json:"groups,omitempty"`

	// Validity is the certificate's lifetime. Defaults to 8760h.
	// +optional
	Validity *metav1.Duration `json:"validity,omitempty"`

	// SecretName is the Secret the kubeconfig is written to. Defaults to
	// <installation>-admin-kubeconfig.
	// +optional
	SecretName string `json:"secretName,omitempty"`
}

// KcpInstallationStatus is what a tenant reads about an installation.
type KcpInstallationStatus struct {
	// Phase is Provisioning until every component is ready, then Running.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// URL is the first front-proxy's public URL, the server of the admin kubeconfig.
	// +optional
	URL string `json:"url,omitempty"`

	// KubeconfigSecret names the Secret, in this namespace, holding the admin kubeconfig
	// under the key kubeconfig.
	// +optional
	KubeconfigSecret string `json:"kubeconfigSecret,omitempty"`

	// Components lists every composed XR and whether it is ready.
	// +optional
	Components []InstallationComponent `json:"components,omitempty"`

	// Image is the kcp image every component runs, once all have rolled out to the same one.
	// +optional
	Image string `json:"image,omitempty"`

	// Upgrade says, while components run another image than spec.image, which step of the
	// upgrade is under way and what it waits for.
	// +optional
	Upgrade *InstallationUpgrade `json:"upgrade,omitempty"`

	// Backups lists, for every managed etcd cluster with backup set, when its backup
	// CronJob last ran and last succeeded.
	// +optional
	Backups []InstallationBackup `json:"backups,omitempty"`

	// Restores lists, for every managed etcd cluster with restore set, where its restore
	// stands.
	// +optional
	Restores []InstallationRestore `json:"restores,omitempty"`
}

// RestorePhase is where a restore stands.
type RestorePhase string

// The steps of a restore, in order, and its two ends.
const (
	// RestoreChecking: a Job reads the snapshot (etcdutl snapshot status); nothing is stopped.
	RestoreChecking RestorePhase = "Checking"
	// RestoreStopping: kcp and etcd are scaled to zero; the members' volumes are left alone
	// until every member has stopped.
	RestoreStopping RestorePhase = "Stopping"
	// RestoreRestoring: a Job per member restores the snapshot into its volume.
	RestoreRestoring RestorePhase = "Restoring"
	// RestoreStarting: etcd, then kcp's servers, then the front-proxies start again.
	RestoreStarting RestorePhase = "Starting"
	// RestoreRestored: every component is Ready on the restored data.
	RestoreRestored RestorePhase = "Restored"
	// RestoreCheckFailed: the snapshot could not be read; nothing was stopped for it.
	RestoreCheckFailed RestorePhase = "CheckFailed"
	// RestoreFailed: a member could not be restored; kcp and etcd stay stopped, and the
	// message names the Job.
	RestoreFailed RestorePhase = "Failed"
)

// InstallationRestore is the state of one managed etcd cluster's restore.
type InstallationRestore struct {
	// Cluster is the etcd cluster (its StatefulSet's name).
	Cluster string `json:"cluster"`

	// Snapshot is the file restored, as spec names it.
	Snapshot string `json:"snapshot"`

	// Phase is the step the restore is at: Checking, Stopping, Restoring, Starting,
	// Restored, or CheckFailed or Failed.
	Phase RestorePhase `json:"phase"`

	// Message says what the step waits for, or why the restore failed.
	// +optional
	Message string `json:"message,omitempty"`
}

// InstallationBackup is the state of one managed etcd cluster's backups, as its CronJob
// reports it.
type InstallationBackup struct {
	// Cluster is the etcd cluster (its StatefulSet's name).
	Cluster string `json:"cluster"`

	// CronJob takes the cluster's snapshots.
	CronJob string `json:"cronJob"`

	// LastScheduleTime is when a backup Job was last started.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// LastSuccessfulTime is when a backup Job last completed: the newest snapshot kept is
	// from then. Unset until a backup has succeeded.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
}

// InstallationComponent is the readiness of one composed XR.
type InstallationComponent struct {
	// Kind and Name of the composed XR.
	Kind string `json:"kind"`
	Name string `json:"name"`

	// Ready is true once the XR is Ready.
	Ready bool `json:"ready"`

	// Message is what the XR says while it is not ready.
	// +optional
	Message string `json:"message,omitempty"`
}

// ComponentExtra is what a component's container gets beyond what the installation
// generates, as in the per-kind XRs' fields of the same names.
type ComponentExtra struct {
	// Args are appended to the generated arguments; a flag given twice takes the last value.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	Args []string `json:"args,omitempty"`

	// Volumes are added to the pod; their names must not clash with the generated ones. Only
	// the volume types Pod Security "restricted" admits are offered: configMap, csi,
	// downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected and secret.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Volumes []InstallationVolume `json:"volumes,omitempty"`

	// VolumeMounts are added to the container.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`

	// Logging sets the log verbosity.
	// +optional
	Logging *LoggingSpec `json:"logging,omitempty"`

	// PodDisruptionBudget of the component, when it runs more than one replica.
	// +optional
	PodDisruptionBudget *DisruptionBudget `json:"podDisruptionBudget,omitempty"`

	// PodLabels are added to the pods; the package's own win.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	PodLabels map[string]string `json:"podLabels,omitempty"`

	// PodAnnotations are added to the pods; the package's own win.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`

	// HostAliases are added to the pods' /etc/hosts; in a tenant's namespace none may name
	// what kcp dials (a Service, the installation's public names, its etcd).
	// +optional
	// +listType=map
	// +listMapKey=ip
	// +kubebuilder:validation:MaxItems=16
	HostAliases []corev1.HostAlias `json:"hostAliases,omitempty"`

	// SecurityContext sets the user and groups the pods run as; they stay within Pod
	// Security "restricted" whatever it says.
	// +optional
	SecurityContext *PodSecurity `json:"securityContext,omitempty"`
}

// Pod is t, the component's deployment template, with what x adds to its pods: labels,
// annotations, host aliases and the user and groups they run as. t itself is not changed.
func (x *ComponentExtra) Pod(t *DeploymentTemplate) *DeploymentTemplate {
	if x == nil || (len(x.PodLabels) == 0 && len(x.PodAnnotations) == 0 && len(x.HostAliases) == 0 && x.SecurityContext == nil) {
		return t
	}
	out := DeploymentTemplate{}
	if t != nil {
		out = *t
	}
	spec := DeploymentSpecTemplate{}
	if out.Spec != nil {
		spec = *out.Spec
	}
	pod := PodTemplateSpec{}
	if spec.Template != nil {
		pod = *spec.Template
	}
	meta := PodMetadataTemplate{}
	if pod.Metadata != nil {
		meta = *pod.Metadata
	}
	meta.Labels, meta.Annotations = merged(meta.Labels, x.PodLabels), merged(meta.Annotations, x.PodAnnotations)
	if meta.Labels != nil || meta.Annotations != nil {
		pod.Metadata = &meta
	}
	if len(x.HostAliases) > 0 || x.SecurityContext != nil {
		podSpec := PodSpecTemplate{}
		if pod.Spec != nil {
			podSpec = *pod.Spec
		}
		if len(x.HostAliases) > 0 {
			podSpec.HostAliases = x.HostAliases
		}
		if x.SecurityContext != nil {
			podSpec.SecurityContext = x.SecurityContext
		}
		pod.Spec = &podSpec
	}
	spec.Template = &pod
	out.Spec = &spec
	return &out
}

// merged is a copy of base with extra's keys over it; nil when both are empty.
func merged(base, extra map[string]string) map[string]string {
	if len(base) == 0 && len(extra) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(extra))
	maps.Copy(out, base)
	maps.Copy(out, extra)
	return out
}

// InstallationVolume is a volume of a type Pod Security "restricted" admits.
type InstallationVolume struct {
	Name string `json:"name"`

	InstallationVolumeSource `json:",inline"`
}

// InstallationVolumeSource is the part of corev1.VolumeSource an installation may use: the
// same fields, with the same names and types (TestInstallationVolumeSourceIsCore), for the
// types Pod Security "restricted" admits. The schema offers no other (hostPath, nfs, an
// in-tree cloud disk, ...), which keeps six copies of every other type out of the
// KcpInstallation's schema (docs/performance.md, "What the CRDs cost the API server"):
// kubectl refuses one as an unknown field, and a client that does not ask for strict field
// validation sees it dropped, which leaves the volume without a type; the function refuses
// such a volume, naming it (check.UntypedVolumes). Undocumented fields: a description would be
// repeated in every copy.
type InstallationVolumeSource struct {
	// +optional
	ConfigMap *corev1.ConfigMapVolumeSource `json:"configMap,omitempty"`
	// +optional
	CSI *corev1.CSIVolumeSource `json:"csi,omitempty"`
	// +optional
	DownwardAPI *corev1.DownwardAPIVolumeSource `json:"downwardAPI,omitempty"`
	// +optional
	EmptyDir *corev1.EmptyDirVolumeSource `json:"emptyDir,omitempty"`
	// +optional
	Ephemeral *corev1.EphemeralVolumeSource `json:"ephemeral,omitempty"`
	// +optional
	PersistentVolumeClaim *corev1.PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	// +optional
	Projected *corev1.ProjectedVolumeSource `json:"projected,omitempty"`
	// +optional
	Secret *corev1.SecretVolumeSource `json:"secret,omitempty"`
}

// Volume is v as a Kubernetes volume.
func (v InstallationVolume) Volume() corev1.Volume {
	s := v.InstallationVolumeSource
	return corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
		ConfigMap: s.ConfigMap, CSI: s.CSI, DownwardAPI: s.DownwardAPI, EmptyDir: s.EmptyDir,
		Ephemeral: s.Ephemeral, PersistentVolumeClaim: s.PersistentVolumeClaim, Projected: s.Projected, Secret: s.Secret,
	}}
}

// CoreVolumes is x's volumes as Kubernetes volumes; nil when it has none (or x is nil).
func (x *ComponentExtra) CoreVolumes() []corev1.Volume {
	if x == nil || x.Volumes == nil {
		return nil
	}
	out := make([]corev1.Volume, len(x.Volumes))
	for i, v := range x.Volumes {
		out[i] = v.Volume()
	}
	return out
}

// FrontProxyExposure is how clients outside the cluster reach a front-proxy.
// +kubebuilder:validation:XValidation:rule="has(self.gateway) != has(self.ingress)",message="set exactly one of exposure.gateway and exposure.ingress."
type FrontProxyExposure struct {
	// Gateway attaches a Gateway API TLSRoute for external.hostname to a Gateway listener in
	// TLS Passthrough mode. A Gateway in another namespace must be allowed for this
	// namespace by the platform's policy (EnvironmentConfig kcp-self-service, data.gateways)
	// and must allow routes from it.
	// +optional
	Gateway *GatewayExposure `json:"gateway,omitempty"`

	// Ingress composes an Ingress for external.hostname with TLS passthrough, for
	// controllers that pass TLS through on port 443.
	// +optional
	Ingress *IngressExposure `json:"ingress,omitempty"`
}

// GatewayExposure names the Gateway a front-proxy's TLSRoute attaches to.
type GatewayExposure struct {
	// Name of the Gateway.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Gateway. Defaults to the installation's.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// SectionName is the Gateway's listener (protocol TLS, mode Passthrough). Defaults to
	// every listener that accepts the route.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SectionName string `json:"sectionName,omitempty"`
}

// IngressController is an Ingress controller whose TLS passthrough this package knows.
// +kubebuilder:validation:Enum=IngressNginx;HAProxy
type IngressController string

// Ingress controllers with TLS passthrough.
const (
	// IngressNginx is kubernetes/ingress-nginx, started with --enable-ssl-passthrough.
	IngressNginx IngressController = "IngressNginx"
	// HAProxy is haproxytech/kubernetes-ingress.
	HAProxy IngressController = "HAProxy"
)

// IngressExposure is the Ingress of a front-proxy.
type IngressExposure struct {
	// Controller decides the annotations that turn on TLS passthrough.
	Controller IngressController `json:"controller"`

	// ClassName is the Ingress's class. Defaults to the cluster's default class.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ClassName string `json:"className,omitempty"`
}
