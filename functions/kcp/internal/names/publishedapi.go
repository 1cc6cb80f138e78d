package names

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// PublishedAPI names the objects of one PublishedAPI XR (docs/publishing-apis.md).
type PublishedAPI string

// AgentImage is the api-syncagent image a PublishedAPI runs by default: the release this
// package is tested with (make e2e KCP_BIN=...).
const AgentImage = "ghcr.io/kcp-dev/api-syncagent:v0.7.0"

// LabelPublishedAPI marks what a PublishedAPI composes in the service cluster and in kcp.
const LabelPublishedAPI = "kcp.crossplane.io/published-api"

// Kubeconfig is the Kubeconfig XR whose certificate the agent reaches kcp with, and whose
// Secret it mounts.
func (p PublishedAPI) Kubeconfig() string { return string(p) + "-syncagent" }

// KubeconfigSecret is the Secret that Kubeconfig writes.
func (p PublishedAPI) KubeconfigSecret() string { return string(p) + "-syncagent-kubeconfig" }

// Deployment is the agent's Deployment, Service, PodDisruptionBudget and ServiceAccount.
func (p PublishedAPI) Deployment() string { return string(p) + "-syncagent" }

// Export is the Object holding the APIExport.
func (p PublishedAPI) Export() string { return string(p) + "-apiexport" }

// KCPRole is the Object holding the agent's ClusterRole in the provider workspace.
func (p PublishedAPI) KCPRole() string { return string(p) + "-syncagent-kcp-role" }

// Resource is the PublishedResource of entry name of spec.resources, and its Object.
func (p PublishedAPI) Resource(name string) string { return string(p) + "-" + name }

// ServiceRBAC is the Object holding the agent's RBAC object of kind (ClusterRole,
// ClusterRoleBinding, Role, RoleBinding, ServiceAccount) in the service cluster.
func (p PublishedAPI) ServiceRBAC(kind string) string {
	return string(p) + "-syncagent." + strings.ToLower(kind)
}

// AgentName is the agent's name: in kcp (the APIExport's agent annotation) and on every
// object it creates in the service cluster (its owner label). It must be a DNS-1035 label
// and unique in the service cluster, where PublishedAPIs of several namespaces may sync:
// syncagent-<namespace>-<name>, or, when longer than 63, shortened and a hash of both added.
func (p PublishedAPI) AgentName(namespace string) string {
	n := "syncagent-" + namespace + "-" + string(p)
	if len(n) <= 63 {
		return n
	}
	sum := sha256.Sum256([]byte(namespace + "/" + string(p)))
	return strings.TrimRight(n[:52], "-") + "-" + hex.EncodeToString(sum[:5])
}

// AgentRole is the agent's ClusterRole in kcp (the provider workspace) and in the service
// cluster, and the Role in its namespace there.
func AgentRole(agentName string) string { return "kcp.crossplane.io:" + agentName }
