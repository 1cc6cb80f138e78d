package v1alpha1

import "strconv"

// The kcp server features kcp's Helm chart offers and kcp-operator does not: home workspaces,
// the choice of batteries, profiling and audit logs written to files. Each is off, or kcp's
// own default, unless set, so an XR without them composes what kcp-operator composes.

// HomeWorkspaces configures kcp's home workspaces: a private workspace, of which the user is
// cluster-admin, provisioned on the user's first access to ~ (kcp's --enable-home-workspaces
// and --home-workspaces-home-creator-groups). kcp turns them on for every authenticated user
// when this is unset. Not in kcp-operator.
type HomeWorkspaces struct {
	// Enabled provisions home workspaces; false turns them off.
	Enabled bool `json:"enabled"`

	// CreatorGroups are the groups whose users get a home workspace on first access.
	// Defaults to kcp's system:authenticated.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	CreatorGroups []string `json:"creatorGroups,omitempty"`
}

// Battery is one of kcp's default objects (kcp's --batteries-included) a shard may create.
// kcp's admin and user batteries write an admin kubeconfig into the pod, which nobody reads
// there, so they are not offered.
// +kubebuilder:validation:Enum=workspace-types;metrics-viewer
type Battery string

// Batteries this package offers.
const (
	// BatteryWorkspaceTypes creates the organization and team WorkspaceTypes in the root
	// workspace.
	BatteryWorkspaceTypes Battery = "workspace-types"
	// BatteryMetricsViewer creates the service account metrics in the root workspace and
	// binds it, and the user metrics-viewer, to a role that reads metrics.
	BatteryMetricsViewer Battery = "metrics-viewer"
)

// DefaultBatteries are the batteries of a shard whose batteries are unset, kcp-operator's.
var DefaultBatteries = []Battery{BatteryWorkspaceTypes}

// ProfilingPort is the port Go's profiler listens on when profiling.port is unset.
const ProfilingPort = 6060

// Profiling serves Go's pprof endpoints (--profiler-address) on the pod's loopback address
// only: reach them with kubectl port-forward, which needs the pods/portforward right in the
// namespace. Nothing else on the pod network can read a profile, and a heap profile holds
// what kcp has in memory, credentials included. Not in kcp-operator.
type Profiling struct {
	// Enabled starts the profiler.
	Enabled bool `json:"enabled"`

	// Port on 127.0.0.1 the profiler listens on. Defaults to 6060.
	// +optional
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// On reports whether profiling is asked for.
func (p *Profiling) On() bool { return p != nil && p.Enabled }

// Over is a component's own profiling p, which replaces the installation's all when set.
func (p *Profiling) Over(all *Profiling) *Profiling {
	if p != nil {
		return p
	}
	return all
}

// Address is what --profiler-address is given.
func (p *Profiling) Address() string {
	port := p.Port
	if port == 0 {
		port = ProfilingPort
	}
	return "127.0.0.1:" + strconv.Itoa(int(port))
}

// Defaults of an audit log, the Helm chart's: a day of a busy kcp's metadata-level events fits
// in one file.
const (
	DefaultAuditLogMaxAgeDays       = 10
	DefaultAuditLogMaxBackups       = 1
	DefaultAuditLogMaxSizeMegabytes = 250
)

// AuditLogSpec writes audit events as JSON lines to a file in the kcp container, which kcp
// rotates and prunes (its --audit-log-* flags). Every replica writes under a directory named
// after its pod, so replicas sharing a volume never write the same file. kcp records nothing
// without an audit policy: set spec.audit.policy too. Not in kcp-operator.
type AuditLogSpec struct {
	// Volume the files are written to. Defaults to an emptyDir volume just large enough for
	// the files kept (maxSize times maxBackups + 2): lost with the pod, for a log agent to
	// ship. A tenant's emptyDir is at most data.limits.auditLogEmptyDir (1Gi).
	// +optional
	Volume *AuditLogVolume `json:"volume,omitempty"`

	// MaxAge is how many days a rotated file is kept; 0 keeps them until maxBackups is
	// reached. Defaults to 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3660
	MaxAge *int32 `json:"maxAge,omitempty"`

	// MaxBackups is how many rotated files are kept. Defaults to 1.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	MaxBackups *int32 `json:"maxBackups,omitempty"`

	// MaxSize is the size in megabytes at which the file is rotated. Defaults to 250.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10240
	MaxSize *int32 `json:"maxSize,omitempty"`

	// Compress gzips rotated files.
	// +optional
	Compress bool `json:"compress,omitempty"`
}

// AuditLogVolume is where audit files are written instead of an emptyDir volume.
type AuditLogVolume struct {
	// ClaimName is a PersistentVolumeClaim of the XR's namespace, writable by uid/gid 65532
	// (the pod's fsGroup). With more than one replica it must be ReadWriteMany.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`
	ClaimName string `json:"claimName"`
}

// Limits are the audit log's maximum age, number of backups and size, defaults applied.
func (a *AuditLogSpec) Limits() (maxAge, maxBackups, maxSize int32) {
	get := func(p *int32, def int32) int32 {
		if p == nil {
			return def
		}
		return *p
	}
	return get(a.MaxAge, DefaultAuditLogMaxAgeDays), get(a.MaxBackups, DefaultAuditLogMaxBackups), get(a.MaxSize, DefaultAuditLogMaxSizeMegabytes)
}
