package names

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// What acts inside kcp goes through provider-kubernetes: a RootShard composes one
// ProviderConfig per workspace that something of its installation acts in, and the
// Kubeconfigs, Shards and Workspaces compose provider-kubernetes Objects that use them.
const (
	// LabelInKCPRootShard marks every provider-kubernetes Object that acts inside the kcp of
	// a RootShard; the RootShard lists them to know which workspaces need credentials.
	LabelInKCPRootShard = "kcp.crossplane.io/root-shard"
	// AnnotationWorkspace is the workspace path an Object acts in.
	AnnotationWorkspace = "kcp.crossplane.io/workspace"

	// RootWorkspace is kcp's root workspace, where shards register.
	RootWorkspace = "root"
)

// WorkspaceKey turns a workspace path into a name part: a path is workspace names (DNS
// labels, which hold no dots) joined by colons, so replacing each colon by a dot is
// reversible, and the result is a valid Secret key and object name part.
func WorkspaceKey(path string) string { return strings.ReplaceAll(path, ":", ".") }

// AccessKubeconfig is the Secret holding, under one key per workspace (WorkspaceKey), the
// kubeconfigs provider-kubernetes uses to act in the RootShard's kcp as kcp-operator does:
// with the <rs>-kcp-operator client certificate (group system:kcp:admin), through the
// RootShard's internal proxy.
func (r RootShard) AccessKubeconfig() string { return string(r) + "-kcp-operator-kubeconfig" }

// ProviderConfig is the provider-kubernetes ProviderConfig that acts in workspace path.
func (r RootShard) ProviderConfig(path string) string {
	return string(r) + "-kcp-operator." + WorkspaceKey(path)
}

// Registration is the Object through which the RootShard observes, and deregisters, the kcp
// Shard object of its Shard shard.
func (r RootShard) Registration(shard string) string {
	return string(r) + "-registration-" + shard
}

// ProxyWorkspaceURL is the URL of workspace path through the RootShard's internal proxy.
func ProxyWorkspaceURL(rs *v1alpha1.RootShard, path string) string {
	return ServiceURL(RootShard(rs.GetName()).Proxy(), rs.GetNamespace(), rs.Spec.ClusterDomain) + "/clusters/" + path
}

// Binding is the Object that holds the ClusterRoleBinding an XR of kind ownerKind (Kubeconfig
// or Workspace) named owner puts in workspace path for clusterRole. Role names may hold
// colons and capitals, which object names may not, the same role may be bound in two
// workspaces while a Kubeconfig moves, and a Kubeconfig and a Workspace may share a name, so
// the name ends in a hash of all three.
func Binding(ownerKind, owner, path, clusterRole string) string {
	sum := sha256.Sum256([]byte(ownerKind + "\x00" + path + "\x00" + clusterRole))
	return owner + "-binding-" + hex.EncodeToString(sum[:5])
}

// KubeconfigBinding is the name kcp-operator gives the ClusterRoleBinding of clusterRole for
// the Kubeconfig with UID uid.
func KubeconfigBinding(uid, clusterRole string) string { return uid + ":" + clusterRole }

// Workspace names the objects of a Workspace XR.
type Workspace string

// Object is the Object holding the kcp Workspace.
func (w Workspace) Object() string { return string(w) + "-workspace" }

// WorkspaceBinding is the name of the ClusterRoleBinding a Workspace XR puts in its workspace
// for clusterRole.
func WorkspaceBinding(clusterRole string) string { return "kcp.crossplane.io:" + clusterRole }

// Labels of what a Workspace XR composes: its Objects carry the XR's name, and the
// ClusterRoleBindings they put in kcp its UID, as operator.kcp.io/kubeconfig marks a
// Kubeconfig's.
const (
	LabelWorkspaceXR    = "kcp.crossplane.io/workspace-xr"
	LabelWorkspaceXRUID = "kcp.crossplane.io/workspace-xr-uid"
)

// workspacePath is a kcp workspace path: workspace names (DNS labels) joined by colons.
var workspacePath = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// ValidateWorkspacePath reports why path is not a kcp workspace path.
func ValidateWorkspacePath(path string) error {
	if !workspacePath.MatchString(path) {
		return errors.New("must be a kcp workspace path: workspace names (lowercase letters, digits and '-') joined by ':', such as root or root:team-a")
	}
	return nil
}
