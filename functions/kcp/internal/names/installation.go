package names

import "github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"

// Installation names the XRs one KcpInstallation composes, and the admin kubeconfig Secret
// a KcpInstallationClaim reports before its installation says anything.
type Installation string

// RootShard is the installation's RootShard, named like the installation.
func (i Installation) RootShard() string { return string(i) }

// CacheServer is the installation's CacheServer.
func (i Installation) CacheServer() string { return string(i) + "-cache" }

// Shard is the installation's Shard of spec.shards[].name shard.
func (i Installation) Shard(shard string) string { return string(i) + "-" + shard }

// VirtualWorkspace is the VirtualWorkspace serving the virtual workspaces of the root shard
// (component "") or of a shard.
func (i Installation) VirtualWorkspace(shard string) string {
	if shard == "" {
		return string(i) + "-vw"
	}
	return i.Shard(shard) + "-vw"
}

// FrontProxy is the installation's FrontProxy of spec.frontProxies[].name proxy.
func (i Installation) FrontProxy(proxy string) string { return string(i) + "-" + proxy }

// AdminKubeconfig is the installation's admin Kubeconfig XR.
func (i Installation) AdminKubeconfig() string { return string(i) + "-admin" }

// AdminKubeconfigSecret is the Secret holding the admin kubeconfig: spec.admin.secretName,
// else <installation>-admin-kubeconfig.
func (i Installation) AdminKubeconfigSecret(admin *v1alpha1.InstallationAdmin) string {
	if admin != nil && admin.SecretName != "" {
		return admin.SecretName
	}
	return string(i) + "-admin-kubeconfig"
}
