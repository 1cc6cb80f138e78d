// Package names is the naming and labelling scheme of every object the function composes.
//
// Names follow kcp-operator v0.9.0 exactly, so that tooling, runbooks and tests written for
// kcp-operator find the same Deployments, Services, Secrets and Certificates.
package names

import (
	"crypto/sha256"
	"encoding/hex"
)

// Components, the value of the app.kubernetes.io/component label.
const (
	ComponentRootShard      = "rootshard"
	ComponentRootShardProxy = "rootshard-proxy"
	ComponentShard          = "shard"
	ComponentFrontProxy     = "front-proxy"
	ComponentCacheServer    = "cache-server"
	ComponentVirtualWS      = "virtual-workspace"
	ComponentSyncAgent      = "api-syncagent"
	// ComponentEncryptionRewrite is a Job rewriting a shard's encrypted objects: not the
	// shard's component, so that its Service never selects the Job's pod.
	ComponentEncryptionRewrite = "encryption-rewrite"
)

// Label keys.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelComponent = "app.kubernetes.io/component"

	// ManagedBy differs from kcp-operator's "kcp-operator" on purpose: these objects are
	// managed by Crossplane through this package, and the value must not mislead anyone.
	ManagedBy = "configuration-kcp"

	// Ownership labels, kept identical to kcp-operator's so Secrets can be selected the same way.
	LabelOwnerRootShard   = "operator.kcp.io/rootshard"
	LabelOwnerShard       = "operator.kcp.io/shard"
	LabelOwnerFrontProxy  = "operator.kcp.io/front-proxy"
	LabelOwnerCacheServer = "operator.kcp.io/cache-server"
	LabelOwnerVirtualWS   = "operator.kcp.io/virtual-workspace"

	// LabelReference marks a reference Secret (Reference) with the kind that publishes it,
	// so that what syncs references elsewhere can select them.
	LabelReference = "kcp.crossplane.io/reference"
)

// Annotation keys the function writes on pod templates.
const (
	// AnnotationCertificateRevisions lists the cert-manager revision of every certificate a
	// pod mounts; a renewal changes it and rolls the pods.
	AnnotationCertificateRevisions = "kcp.crossplane.io/certificate-revisions"
	// AnnotationConfigHash is a hash of the composed Secrets and ConfigMaps a pod mounts.
	AnnotationConfigHash = "kcp.crossplane.io/config-hash"
	// AnnotationEncryption is the encryption configuration the pods run (its resources and
	// key IDs, never the keys), read back to know when a rotation step has rolled out.
	AnnotationEncryption = "kcp.crossplane.io/encryption"
	// AnnotationEncryptionRewritten, on the composed encryption configuration Secret, is the
	// key (and resources) every encrypted object was last rewritten with.
	AnnotationEncryptionRewritten = "kcp.crossplane.io/encryption-rewritten"
)

// EncryptionConfig is the Secret holding a kcp server's EncryptionConfiguration.
func EncryptionConfig(server string) string { return server + "-encryption-config" }

// EncryptionRewrite is the Job that rewrites a kcp server's encrypted objects with the key
// and resources of the given state (a digest of them: a Job runs once).
func EncryptionRewrite(server, state string) string {
	sum := sha256.Sum256([]byte(state))
	return EncryptionRewritePrefix(server) + hex.EncodeToString(sum[:])[:8]
}

// EncryptionRewritePrefix begins the name of every rewrite Job of a kcp server.
func EncryptionRewritePrefix(server string) string { return server + "-encryption-rewrite-" }

// Labels returns the resource labels kcp-operator puts on an instance's objects.
func Labels(instance, component string) map[string]string {
	return map[string]string{
		LabelManagedBy: ManagedBy,
		LabelName:      "kcp",
		LabelInstance:  instance,
		LabelComponent: component,
	}
}

// CertPublicServer is the certificate kind of a component's second serving certificate,
// for its public names, from the issuer its publicServerCertificate names. Not
// "public-server": that is the server certificate of a shard named <rs>-public.
const CertPublicServer = "public-serving"

// CertMonitoring is the certificate kind of the client certificate a component's PodMonitor
// scrapes its metrics with.
const CertMonitoring = "monitoring"

// DefaultClusterDomain is used when spec.clusterDomain is empty.
const DefaultClusterDomain = "cluster.local"

// ServiceFQDN is the in-cluster DNS name of a Service.
func ServiceFQDN(service, namespace, clusterDomain string) string {
	if clusterDomain == "" {
		clusterDomain = DefaultClusterDomain
	}
	return service + "." + namespace + ".svc." + clusterDomain
}

// CA kinds of a RootShard's intermediate certificate authorities, in kcp-operator's order.
const (
	CAServer              = "server"
	CAClient              = "client"
	CARequestHeaderClient = "requestheader-client"
	CAServiceAccount      = "service-account"
)

// IntermediateCAs lists the four intermediate CAs below a RootShard's root CA.
var IntermediateCAs = []string{CAServer, CAClient, CARequestHeaderClient, CAServiceAccount}

// RootShard names the objects of one RootShard.
type RootShard string

// RootCA is the root CA Certificate, Issuer and Secret.
func (r RootShard) RootCA() string { return string(r) + "-ca" }

// CA is an intermediate CA Certificate, Issuer and Secret, e.g. <rs>-server-ca.
func (r RootShard) CA(kind string) string { return string(r) + "-" + kind + "-ca" }

// Cert is a leaf certificate and its Secret, e.g. <rs>-server.
func (r RootShard) Cert(kind string) string { return string(r) + "-" + kind }

// Deployment and Service of the root shard.
func (r RootShard) Deployment() string { return string(r) + "-kcp" }

// LogicalClusterAdminKubeconfig is the Secret kcp reads for --logical-cluster-admin-kubeconfig.
func (r RootShard) LogicalClusterAdminKubeconfig() string {
	return string(r) + "-logical-cluster-admin-kubeconfig"
}

// ExternalLogicalClusterAdminKubeconfig is the Secret for --external-logical-cluster-admin-kubeconfig.
func (r RootShard) ExternalLogicalClusterAdminKubeconfig() string {
	return string(r) + "-external-logical-cluster-admin-kubeconfig"
}

// MergedCABundle is the server CA plus spec.caBundleSecretRef.
func (r RootShard) MergedCABundle() string { return string(r) + "-merged-ca-bundle" }

// MergedClientCA is the client CA plus spec.clientCABundleRef.
func (r RootShard) MergedClientCA() string { return string(r) + "-merged-client-ca" }

// Proxy is the root shard's internal proxy Deployment and Service.
func (r RootShard) Proxy() string { return string(r) + "-proxy" }

// ProxyCert is a certificate of the internal proxy: server, kubeconfig or requestheader.
func (r RootShard) ProxyCert(kind string) string { return string(r) + "-proxy-" + kind }

// ProxyConfig is the internal proxy's path-mapping ConfigMap.
func (r RootShard) ProxyConfig() string { return string(r) + "-proxy-config" }

// ProxyDynamicKubeconfig is the internal proxy's kubeconfig Secret.
func (r RootShard) ProxyDynamicKubeconfig() string { return string(r) + "-proxy-dynamic-kubeconfig" }

// ProxyMergedClientCA is the internal proxy's client CA bundle.
func (r RootShard) ProxyMergedClientCA() string { return string(r) + "-proxy-merged-client-ca" }

// ProxyMergedCABundle is the internal proxy's backend CA bundle (with caBundleSecretRef).
func (r RootShard) ProxyMergedCABundle() string { return string(r) + "-proxy-merged-ca-bundle" }

// Shard names the objects of one Shard.
type Shard string

// Deployment and Service of the shard.
func (s Shard) Deployment() string { return string(s) + "-shard-kcp" }

// ClientKubeconfig is the kubeconfig the shard uses to reach the root shard (and the cache
// when the root shard serves it).
func (s Shard) ClientKubeconfig() string { return string(s) + "-client-kubeconfig" }

// Cert is a leaf certificate and its Secret, e.g. <sh>-server.
func (s Shard) Cert(kind string) string { return string(s) + "-" + kind }

// LogicalClusterAdminKubeconfig is the Secret for --logical-cluster-admin-kubeconfig.
func (s Shard) LogicalClusterAdminKubeconfig() string {
	return string(s) + "-logical-cluster-admin-kubeconfig"
}

// ExternalLogicalClusterAdminKubeconfig is the Secret for --external-logical-cluster-admin-kubeconfig.
func (s Shard) ExternalLogicalClusterAdminKubeconfig() string {
	return string(s) + "-external-logical-cluster-admin-kubeconfig"
}

// MergedCABundle is the server CA plus the shard's caBundleSecretRef.
func (s Shard) MergedCABundle() string { return string(s) + "-merged-ca-bundle" }

// MergedClientCA is the client CA plus the RootShard's and the shard's clientCABundleRef.
func (s Shard) MergedClientCA() string { return string(s) + "-merged-client-ca" }

// CacheServer names the objects of one CacheServer that its consumers mount.
type CacheServer string

// Kubeconfig is the Secret with the kubeconfig shards use to reach the cache server.
func (c CacheServer) Kubeconfig() string { return string(c) + "-kubeconfig" }

// CA is the cache server's own root CA Secret.
func (c CacheServer) CA() string { return string(c) + "-ca" }

// ClientCertificate is the client certificate Secret shards present to the cache server.
func (c CacheServer) ClientCertificate() string { return string(c) + "-client-certificate" }

// ServerCertificate is the cache server's serving certificate and its Secret.
func (c CacheServer) ServerCertificate() string { return string(c) + "-server" }

// Deployment and Service of the cache server.
func (c CacheServer) Deployment() string { return string(c) + "-cache-server" }

// VirtualWorkspace names the objects of one VirtualWorkspace.
type VirtualWorkspace string

// Deployment and Service of the virtual workspace server.
func (v VirtualWorkspace) Deployment() string { return string(v) + "-virtual-workspace" }

// Cert is a leaf certificate and its Secret: <vw>-server or <vw>-client.
func (v VirtualWorkspace) Cert(kind string) string { return string(v) + "-" + kind }

// MergedClientCA is the RootShard's client CA plus the RootShard's and the virtual
// workspace's clientCABundleRef.
func (v VirtualWorkspace) MergedClientCA() string { return string(v) + "-merged-client-ca" }
