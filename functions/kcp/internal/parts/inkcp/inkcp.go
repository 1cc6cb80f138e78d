// Package inkcp renders what acts in an API server other than the host cluster's:
// provider-kubernetes (kubernetes.m.crossplane.io) ProviderConfigs, and Objects wrapping a
// ClusterRoleBinding, a kcp Shard or a kcp Workspace in kcp, or a workload placed in another
// cluster. Crossplane applies the Objects; provider-kubernetes creates, observes and deletes
// their manifests there.
//
// The objects are unstructured: provider-kubernetes' Go module pulls in cloud SDKs the
// function has no use for, and the few fields written here are stable API.
package inkcp

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// APIVersion of provider-kubernetes' namespaced kinds, the ones that fit namespaced XRs.
const APIVersion = "kubernetes.m.crossplane.io/v1alpha1"

// Kinds of provider-kubernetes.
const (
	KindObject         = "Object"
	KindProviderConfig = "ProviderConfig"
)

// Management policies of an Object. Crossplane deletes what a function stops composing; the
// policies decide whether provider-kubernetes then deletes the manifest in kcp too.
var (
	// PoliciesAll creates, updates and deletes: for bindings, which go with their owner.
	PoliciesAll = []string{"*"}
	// PoliciesKeep creates and updates but never deletes: for a workspace, whose data
	// outlives its XR unless the user opts in.
	PoliciesKeep = []string{"Observe", "Create", "Update", "LateInitialize"}
	// PoliciesObserve only reads.
	PoliciesObserve = []string{"Observe"}
	// PoliciesObserveUpdate reads, and applies its manifest's fields, never deleting: a kcp
	// Shard object is kcp's own, written by the shard, and provider-kubernetes' server-side
	// apply owns only the fields the manifest names, so every other field, the user's labels
	// included, stays as it is. It creates an object that is missing all the same
	// (crossplane-runtime calls Update when Create is not allowed, and the apply creates):
	// compose it only for an object the Object has just seen (rootshard's
	// registrationPolicies).
	PoliciesObserveUpdate = []string{"Observe", "Update"}
	// PoliciesObserveDelete reads, and deletes once the Object is deleted: a shard's
	// registration that is to go.
	PoliciesObserveDelete = []string{"Observe", "Delete"}
)

// Object is a provider-kubernetes Object: manifest applied in the workspace that
// providerConfig reaches.
type Object struct {
	Name, Namespace string
	Labels          map[string]string
	Annotations     map[string]string
	// ProviderConfigKind is ProviderConfig (the default) or ClusterProviderConfig.
	ProviderConfigKind string
	ProviderConfig     string
	Policies           []string
	Manifest           map[string]any
	// References copy fields of objects on the control plane into the manifest.
	References []Reference
}

// Reference copies field FieldPath of an object in the Object's own cluster (the control
// plane) into the manifest at the same path, when provider-kubernetes applies it. The
// function never sees the copied value: a Secret's key travels from cert-manager's Secret
// to the other cluster without passing through the desired state.
type Reference struct {
	APIVersion, Kind, Namespace, Name string
	FieldPath                         string
}

// Unstructured renders the Object.
func (o Object) Unstructured() *resource.Unstructured {
	u := resource.NewUnstructured()
	u.SetAPIVersion(APIVersion)
	u.SetKind(KindObject)
	u.SetName(o.Name)
	u.SetNamespace(o.Namespace)
	if len(o.Labels) > 0 {
		u.SetLabels(o.Labels)
	}
	if len(o.Annotations) > 0 {
		u.SetAnnotations(o.Annotations)
	}
	policies := make([]any, len(o.Policies))
	for i, p := range o.Policies {
		policies[i] = p
	}
	kind := o.ProviderConfigKind
	if kind == "" {
		kind = KindProviderConfig
	}
	spec := map[string]any{
		"managementPolicies": policies,
		"providerConfigRef":  map[string]any{"kind": kind, "name": o.ProviderConfig},
		"forProvider":        map[string]any{"manifest": o.Manifest},
	}
	if len(o.References) > 0 {
		refs := make([]any, len(o.References))
		for i, r := range o.References {
			refs[i] = map[string]any{"patchesFrom": map[string]any{
				"apiVersion": r.APIVersion, "kind": r.Kind, "namespace": r.Namespace, "name": r.Name, "fieldPath": r.FieldPath,
			}}
		}
		spec["references"] = refs
	}
	u.Object["spec"] = spec
	return u
}

// ProviderConfig is a namespaced provider-kubernetes ProviderConfig whose credentials are the
// kubeconfig under key in Secret secret of its own namespace.
func ProviderConfig(name, namespace string, labels map[string]string, secret, key string) *resource.Unstructured {
	u := resource.NewUnstructured()
	u.SetAPIVersion(APIVersion)
	u.SetKind(KindProviderConfig)
	u.SetName(name)
	u.SetNamespace(namespace)
	if len(labels) > 0 {
		u.SetLabels(labels)
	}
	u.Object["spec"] = map[string]any{
		"credentials": map[string]any{
			"source":    "Secret",
			"secretRef": map[string]any{"namespace": namespace, "name": secret, "key": key},
		},
	}
	return u
}

// Subject of a ClusterRoleBinding.
type Subject struct {
	// Kind is Group or User.
	Kind, Name string
}

// ClusterRoleBinding is the manifest of a binding of clusterRole to subjects, named name.
func ClusterRoleBinding(name string, labels map[string]string, clusterRole string, subjects []Subject) map[string]any {
	subs := make([]any, len(subjects))
	for i, s := range subjects {
		subs[i] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": s.Kind, "name": s.Name}
	}
	meta := ObjectMeta(name, "", labels)
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRoleBinding",
		"metadata":   meta,
		"roleRef":    map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": clusterRole},
		"subjects":   subs,
	}
}

// UnschedulableAnnotation on a kcp Shard object keeps kcp's workspace scheduler from
// choosing the shard for a new workspace (kcp v0.32.3 and main: its value does not matter,
// only its presence). Its removal requeues the workspaces kcp could not schedule.
const UnschedulableAnnotation = "experimental.core.kcp.io/unschedulable"

// Shard is the manifest of kcp's Shard object name: what identifies it and, when
// unschedulable says why, the UnschedulableAnnotation.
func Shard(name, unschedulable string) map[string]any {
	meta := map[string]any{"name": name}
	if unschedulable != "" {
		meta["annotations"] = map[string]any{UnschedulableAnnotation: unschedulable}
	}
	return map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard", "metadata": meta}
}

// WorkspaceType names a kcp WorkspaceType.
type WorkspaceType struct{ Name, Path string }

// Workspace is the manifest of a kcp Workspace name, of type typ when set.
func Workspace(name string, labels map[string]string, typ *WorkspaceType) map[string]any {
	meta := ObjectMeta(name, "", labels)
	m := map[string]any{"apiVersion": "tenancy.kcp.io/v1alpha1", "kind": "Workspace", "metadata": meta}
	if typ != nil {
		t := map[string]any{"name": typ.Name}
		if typ.Path != "" {
			t["path"] = typ.Path
		}
		m["spec"] = map[string]any{"type": t}
	}
	return m
}

// APIExport is the manifest of an empty APIExport named name: api-syncagent writes its
// schemas and permission claims, so the manifest names no field the agent owns and the
// Object's server-side apply never takes them back.
func APIExport(name string, labels map[string]string) map[string]any {
	return map[string]any{"apiVersion": "apis.kcp.io/v1alpha2", "kind": "APIExport", "metadata": ObjectMeta(name, "", labels), "spec": map[string]any{}}
}

// Claim is a permission claim an APIBinding accepts.
type Claim struct {
	Group, Resource string
	Verbs           []string
}

// APIBinding is the manifest of an APIBinding named name to export exportName of workspace
// path, accepting exactly claims, each for every object of its resource.
func APIBinding(name string, labels map[string]string, path, exportName string, claims []Claim) map[string]any {
	spec := map[string]any{"reference": map[string]any{"export": map[string]any{"path": path, "name": exportName}}}
	if len(claims) > 0 {
		accepted := make([]any, len(claims))
		for i, c := range claims {
			verbs := make([]any, len(c.Verbs))
			for j, v := range c.Verbs {
				verbs[j] = v
			}
			accepted[i] = map[string]any{
				"group": c.Group, "resource": c.Resource, "verbs": verbs,
				"selector": map[string]any{"matchAll": true}, "state": "Accepted",
			}
		}
		spec["permissionClaims"] = accepted
	}
	return map[string]any{"apiVersion": "apis.kcp.io/v1alpha2", "kind": "APIBinding", "metadata": ObjectMeta(name, "", labels), "spec": spec}
}

// ObjectMeta is the metadata of a manifest: its name, its namespace unless "" (a
// cluster-scoped object), and its labels, if any.
func ObjectMeta(name, namespace string, labels map[string]string) map[string]any {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	if len(labels) > 0 {
		l := make(map[string]any, len(labels))
		for k, v := range labels {
			l[k] = v
		}
		meta["labels"] = l
	}
	return meta
}
