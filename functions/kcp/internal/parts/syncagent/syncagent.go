// Package syncagent renders what kcp's api-syncagent v0.7.0 needs, one factory per object:
// its flags, its ClusterRole in the provider workspace, its RBAC in the service cluster,
// one PublishedResource per published resource, and the permission claims it adds to its
// APIExport. Everything here follows from a PublishedAPI's spec alone, so that the agent's
// rights grow with what is published and nothing else.
//
// Facts from api-syncagent v0.7.0 (cmd/api-syncagent/options.go, docs/getting-started.md,
// internal/controller/apiexport): the agent is told an APIExportEndpointSlice (kcp v0.28+
// makes one of the export's name) and a kubeconfig for the export's workspace; it creates
// APIResourceSchemas and writes them, with a permission claim for events, and for namespaces
// and each related resource when a resource has related objects, into the APIExport.
package syncagent

import (
	"slices"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// Paths and ports inside the agent's container.
const (
	// DirKCPKubeconfig is where the agent's kubeconfig Secret is mounted.
	DirKCPKubeconfig = "/etc/api-syncagent/kcp"
	// KubeconfigKey is the Secret key of the kubeconfig, as Kubeconfig writes it.
	KubeconfigKey = "kubeconfig"
	// MetricsPort and HealthPort are the agent's HTTP listeners.
	MetricsPort = 8085
	HealthPort  = 8086
)

// Agent is what the agent's flags say.
type Agent struct {
	// Name is the agent's name (names.PublishedAPI.AgentName).
	Name string
	// Namespace is the namespace it runs in, in the service cluster.
	Namespace string
	// Export is the APIExport (and its endpoint slice).
	Export string
	// Selector is the label that marks its PublishedResources, key=value.
	Selector string
}

// Args are the agent's flags. Leader election is always on: with one replica it costs a
// Lease, and a second replica started by a rollout never syncs beside the first.
func Args(a Agent) []string {
	return []string{
		"--namespace=" + a.Namespace,
		"--agent-name=" + a.Name,
		"--apiexportendpointslice-ref=" + a.Export,
		"--kcp-kubeconfig=" + DirKCPKubeconfig + "/" + KubeconfigKey,
		"--published-resource-selector=" + a.Selector,
		"--enable-leader-election",
		"--metrics-address=0.0.0.0:8085",
		"--health-address=0.0.0.0:8086",
	}
}

// rule is an RBAC policy rule, as the manifests carry it.
func rule(group string, resources, verbs []string, names ...string) map[string]any {
	r := map[string]any{"apiGroups": []any{group}, "resources": strs(resources), "verbs": strs(verbs)}
	if len(names) > 0 {
		r["resourceNames"] = strs(names)
	}
	return r
}

func strs(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

// Verbs the agent uses on what it manages.
var (
	verbsRead   = []string{"get", "list", "watch"}
	verbsManage = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// KCPRules are the agent's rights in the provider workspace: reach it, read its
// LogicalCluster, manage its own APIExport (and its content, the virtual workspace of the
// consumers' objects), watch the endpoint slices, create schemas and events. Nothing lets it
// change another export.
//
// The endpoint slices are read without resourceNames: api-syncagent v0.7.0 reads its slice,
// which kcp makes in the export's workspace, through the cached client of that workspace
// (cmd/api-syncagent's managedKcpCluster, given to discovery.NewResourceProber), whose cache
// narrows only APIExports to one name, so its informer lists every endpoint slice of the
// workspace. Limited to the export's name, kcp refuses that list ("cannot list resource
// apiexportendpointslices ... at the cluster scope"), the prober never learns that the API is
// bound and no object is ever synced (seen with kcp v0.32.3). A slice holds the URLs of its
// export's virtual workspace, not the consumers' objects.
func KCPRules(export string) []any {
	return []any{
		map[string]any{"nonResourceURLs": []any{"/"}, "verbs": []any{"access"}},
		rule("core.kcp.io", []string{"logicalclusters"}, []string{"get"}, "cluster"),
		rule("apis.kcp.io", []string{"apiexports"}, []string{"get", "list", "watch", "patch", "update"}, export),
		rule("apis.kcp.io", []string{"apiexports/content"}, []string{"*"}, export),
		rule("apis.kcp.io", []string{"apiexportendpointslices"}, verbsRead),
		rule("apis.kcp.io", []string{"apiresourceschemas"}, []string{"get", "list", "watch", "create"}),
		rule("", []string{"events"}, []string{"get", "create", "patch", "update"}),
	}
}

// ClusterRole is the manifest of a ClusterRole.
func ClusterRole(name string, labels map[string]string, rules []any) map[string]any {
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": inkcp.ObjectMeta(name, "", labels),
		"rules":    rules,
	}
}

// Role is the manifest of a Role in namespace.
func Role(name, namespace string, labels map[string]string, rules []any) map[string]any {
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": inkcp.ObjectMeta(name, namespace, labels),
		"rules":    rules,
	}
}

// Binding is the manifest of a ClusterRoleBinding (namespace empty) or RoleBinding of role
// (of the same kind) to ServiceAccount sa of saNamespace.
func Binding(name, namespace string, labels map[string]string, role, sa, saNamespace string) map[string]any {
	kind, roleKind := "ClusterRoleBinding", "ClusterRole"
	if namespace != "" {
		kind, roleKind = "RoleBinding", "Role"
	}
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
		"metadata": inkcp.ObjectMeta(name, namespace, labels),
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": role},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": saNamespace}},
	}
}

// ServiceAccount is the manifest of the agent's ServiceAccount.
func ServiceAccount(name, namespace string, labels map[string]string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": inkcp.ObjectMeta(name, namespace, labels)}
}

// relatedResource is the plural of a related kind.
func relatedResource(kind string) string {
	if kind == "ConfigMap" {
		return "configmaps"
	}
	return "secrets"
}

// ServiceRules are the agent's cluster-wide rights in the service cluster: read CRDs (it
// reads the published ones' schemas) and its PublishedResources (and write their status),
// create the namespaces it syncs into, record events, read Secrets, and manage exactly the
// published resources and the kinds of their related objects. The agent watches what it
// syncs in every namespace, so these are cluster-wide; nothing else is named.
//
// Secrets are read everywhere even without a related Secret: v0.7.0 keeps each object's
// last synced state in a Secret obj-state-* of its own namespace and reads it through its
// manager's cache, which watches Secrets of every namespace (cmd/api-syncagent/main.go sets
// no cache restriction). It writes them only in its namespace (NamespaceRules).
func ServiceRules(resources []v1alpha1.PublishedAPIResource) []any {
	rules := []any{
		rule("apiextensions.k8s.io", []string{"customresourcedefinitions"}, verbsRead),
		rule("syncagent.kcp.io", []string{"publishedresources"}, verbsRead),
		rule("syncagent.kcp.io", []string{"publishedresources/status"}, []string{"get", "patch", "update"}),
		rule("", []string{"namespaces"}, []string{"get", "list", "watch", "create"}),
		rule("", []string{"events"}, []string{"create", "patch"}),
	}
	related := RelatedResources(resources)
	if !slices.Contains(related, "secrets") {
		rules = append(rules, rule("", []string{"secrets"}, verbsRead))
	}
	byGroup := map[string][]string{}
	for _, r := range resources {
		byGroup[r.Group] = append(byGroup[r.Group], r.Plural, r.Plural+"/status")
	}
	for _, g := range sortedKeys(byGroup) {
		res := byGroup[g]
		slices.Sort(res)
		rules = append(rules, rule(g, slices.Compact(res), verbsManage))
	}
	if len(related) > 0 {
		rules = append(rules, rule("", related, verbsManage))
	}
	return rules
}

// NamespaceRules are the agent's rights in its own namespace: its leader election Lease and
// the Secrets holding each synced object's last state.
func NamespaceRules() []any {
	return []any{
		rule("coordination.k8s.io", []string{"leases"}, verbsManage),
		rule("", []string{"secrets"}, verbsManage),
	}
}

// RelatedResources are the plural core resources of every related object, sorted, once.
func RelatedResources(resources []v1alpha1.PublishedAPIResource) []string {
	var out []string
	for _, r := range resources {
		for _, rel := range r.Related {
			out = append(out, relatedResource(rel.Kind))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Claims are the permission claims the agent writes into its APIExport: events always;
// namespaces and each related resource when some resource has related objects. The agent
// asks every verb of each (v1alpha1's "all", kcp's "*").
func Claims(resources []v1alpha1.PublishedAPIResource) []v1alpha1.APIPermissionClaim {
	all := []string{"*"}
	claims := []v1alpha1.APIPermissionClaim{{Resource: "events", Verbs: all}}
	if related := RelatedResources(resources); len(related) > 0 {
		claims = append(claims, v1alpha1.APIPermissionClaim{Resource: "namespaces", Verbs: all})
		for _, r := range related {
			claims = append(claims, v1alpha1.APIPermissionClaim{Resource: r, Verbs: all})
		}
	}
	slices.SortFunc(claims, func(a, b v1alpha1.APIPermissionClaim) int {
		if a.Resource < b.Resource {
			return -1
		}
		if a.Resource > b.Resource {
			return 1
		}
		return 0
	})
	return claims
}

// PublishedResource is the manifest of the PublishedResource for r, labelled for the agent
// that serves it (its --published-resource-selector). The agent's defaults name the copies
// in the service cluster: one namespace per workspace, names hashed, so no two consumers
// collide and none can choose where its objects land.
func PublishedResource(name string, labels map[string]string, r v1alpha1.PublishedAPIResource) map[string]any {
	spec := map[string]any{
		"resource": map[string]any{"apiGroup": r.Group, "kind": r.Kind, "versions": strs(r.Versions)},
	}
	if p := r.Projection; p != nil {
		proj := map[string]any{}
		if p.Kind != "" {
			proj["kind"] = p.Kind
		}
		if p.Plural != "" {
			proj["plural"] = p.Plural
		}
		if len(p.ShortNames) > 0 {
			proj["shortNames"] = strs(p.ShortNames)
		}
		if len(proj) > 0 {
			spec["projection"] = proj
		}
	}
	if len(r.Related) > 0 {
		related := make([]any, 0, len(r.Related))
		for _, rel := range r.Related {
			object := map[string]any{}
			if rel.NamePath != "" {
				object["reference"] = map[string]any{"path": rel.NamePath}
			} else {
				object["template"] = map[string]any{"template": rel.NameTemplate}
			}
			origin := "service"
			if rel.Origin == v1alpha1.RelatedOriginKCP {
				origin = "kcp"
			}
			related = append(related, map[string]any{
				"identifier": rel.Identifier,
				"origin":     origin,
				"resource":   relatedResource(rel.Kind),
				"version":    "v1",
				"object":     object,
				// The copy goes with its object: a consumer's deleted object leaves no
				// connection Secret behind in its workspace.
				"cleanup": true,
			})
		}
		spec["related"] = related
	}
	return map[string]any{
		"apiVersion": "syncagent.kcp.io/v1alpha1", "kind": "PublishedResource",
		"metadata": inkcp.ObjectMeta(name, "", labels),
		"spec":     spec,
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
