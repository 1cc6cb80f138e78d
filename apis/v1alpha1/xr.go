package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// XR is a typed XR of one of this package's kinds. The function's packages hand XRs to each
// other as XR, never as any, so that a map or an unrelated object cannot stand for one. Only
// this package's XR types have its method, so only they satisfy it; TestEveryKindIsAnXR holds
// every kind of Kinds to it.
type XR interface {
	metav1.Object
	isXR()
}

// Spec is the spec of an XR of one of this package's kinds: what the function composes an XR
// with (its builder's XR) and what its checks walk (check.Budget, check.Templates). Only this
// package's spec types have its method, so only they, and structs that embed one, satisfy it.
type Spec interface {
	isSpec()
}

func (*RootShard) isXR()              {}
func (*Shard) isXR()                  {}
func (*CacheServer) isXR()            {}
func (*FrontProxy) isXR()             {}
func (*VirtualWorkspace) isXR()       {}
func (*Kubeconfig) isXR()             {}
func (*Workspace) isXR()              {}
func (*KcpInstallation) isXR()        {}
func (*ClaimedKcpInstallation) isXR() {}
func (*CertificateSet) isXR()         {}
func (*Tenant) isXR()                 {}
func (*TenantRequest) isXR()          {}
func (*PublishedAPI) isXR()           {}

func (RootShardSpec) isSpec()        {}
func (ShardSpec) isSpec()            {}
func (CacheServerSpec) isSpec()      {}
func (FrontProxySpec) isSpec()       {}
func (VirtualWorkspaceSpec) isSpec() {}
func (KubeconfigSpec) isSpec()       {}
func (WorkspaceSpec) isSpec()        {}
func (KcpInstallationSpec) isSpec()  {}
func (CertificateSetSpec) isSpec()   {}
func (TenantSpec) isSpec()           {}
func (TenantRequestSpec) isSpec()    {}
func (PublishedAPISpec) isSpec()     {}
