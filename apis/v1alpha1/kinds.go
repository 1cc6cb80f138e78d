package v1alpha1

// The kinds of XR this package defines, one per XRD under apis/. Everything that names a kind
// (the function's table of kinds, the references between XRs, the docs' lists) uses these;
// TestKindsAreTheXRDs holds them to the XRDs.
const (
	KindRootShard              = "RootShard"
	KindShard                  = "Shard"
	KindCacheServer            = "CacheServer"
	KindFrontProxy             = "FrontProxy"
	KindVirtualWorkspace       = "VirtualWorkspace"
	KindKubeconfig             = "Kubeconfig"
	KindWorkspace              = "Workspace"
	KindKcpInstallation        = "KcpInstallation"
	KindClaimedKcpInstallation = "ClaimedKcpInstallation"
	KindCertificateSet         = "CertificateSet"
	KindTenant                 = "Tenant"
	KindTenantRequest          = "TenantRequest"
	KindPublishedAPI           = "PublishedAPI"
)

// Kinds lists every kind of XR, kcp-operator's six first, then what this package adds.
var Kinds = []string{
	KindRootShard, KindShard, KindCacheServer, KindFrontProxy, KindVirtualWorkspace, KindKubeconfig,
	KindWorkspace, KindKcpInstallation, KindClaimedKcpInstallation, KindCertificateSet, KindTenant, KindTenantRequest,
	KindPublishedAPI,
}

// ClaimKinds maps the kind of an XR that has a claim to the claim's kind.
var ClaimKinds = map[string]string{KindClaimedKcpInstallation: "KcpInstallationClaim"}
