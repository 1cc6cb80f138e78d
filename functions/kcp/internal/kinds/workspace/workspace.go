// Package workspace composes a Workspace: a kcp workspace under a parent path of the
// installation a RootShard runs, and ClusterRoleBindings and APIBindings inside it, each a provider-kubernetes
// Object acting in kcp through the RootShard's ProviderConfig for the workspace it acts in.
//
// The workspace's Object never deletes the workspace unless spec.deletionPolicy is Delete: a
// workspace holds its users' data, which must not go because an XR did.
package workspace

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// Conditions of a Workspace.
const (
	// TypeWorkspaceReady says whether kcp reports the workspace Ready.
	TypeWorkspaceReady = "WorkspaceReady"
	// TypeBindingsReady says whether spec.clusterRoleBindings are all in the workspace.
	TypeBindingsReady = "BindingsReady"

	ReasonReady   = "Ready"
	ReasonPending = "Pending"
	ReasonBound   = "Bound"
	ReasonBinding = "Binding"
)

// phaseReady is kcp's phase of a workspace that serves.
const phaseReady = "Ready"

// keyWorkspace is the composition resource name of the workspace's Object.
const keyWorkspace resource.Name = "workspace"

// Parent is spec.parent, else root.
func Parent(ws *v1alpha1.Workspace) string {
	if ws.Spec.Parent != "" {
		return ws.Spec.Parent
	}
	return names.RootWorkspace
}

// Name is the workspace's name in kcp: spec.name, else the XR's.
func Name(ws *v1alpha1.Workspace) string {
	if ws.Spec.Name != "" {
		return ws.Spec.Name
	}
	return ws.GetName()
}

// Path is the workspace's full path.
func Path(ws *v1alpha1.Workspace) string { return Parent(ws) + ":" + Name(ws) }

// Compose composes a Workspace. The XR must have passed Validate.
func Compose(ws *v1alpha1.Workspace, st *observed.State) (result.Result[v1alpha1.WorkspaceStatus], field.ErrorList) {
	if Shared(ws) {
		return composeShared(ws, st), nil
	}
	b := builder.New(ws.GetName(), ws.GetNamespace(), st)
	rootName := ws.Spec.RootShard.Ref.Name
	b.Inputs.Require(required.Named(v1alpha1.KindRootShard, rootName))
	status := v1alpha1.WorkspaceStatus{Path: Path(ws)}
	rs, ok := required.RootShard(st, rootName)
	if !ok {
		status.Phase = st.String(keyWorkspace, "status", "atProvider", "manifest", "status", "phase")
		return builder.Waiting(b, status, fmt.Sprintf("RootShard %s (spec.rootShard.ref.name) does not exist in namespace %s; create it or fix the reference", rootName, ws.GetNamespace())), nil
	}
	root := names.RootShard(rootName)

	ready := composeWorkspace(b, ws, root)
	bound, waiting := composeBindings(b, ws, root)
	apis, apisWaiting := composeAPIBindings(b, ws, root)

	status.Phase = st.String(keyWorkspace, "status", "atProvider", "manifest", "status", "phase")
	status.Cluster = st.String(keyWorkspace, "status", "atProvider", "manifest", "spec", "cluster")
	status.URL = names.ExternalURL(rs.Spec.External) + "/clusters/" + Path(ws)
	status.APIBindings = apis

	conds := []condition.Condition{workspaceCondition(st, ws, ready)}
	if len(ws.Spec.ClusterRoleBindings) > 0 {
		conds = append(conds, bindingsCondition(ws, bound, waiting))
	}
	if len(ws.Spec.APIBindings) > 0 {
		conds = append(conds, apisCondition(ws, apis, apisWaiting))
	}
	return result.Result[v1alpha1.WorkspaceStatus]{
		Desired:      b.Set,
		Requirements: b.Inputs.Requirements(),
		Status:       status,
		Conditions:   conds,
		NotReady:     !ready || !bound || len(apisWaiting) > 0,
	}, nil
}

// composeWorkspace composes the Object holding the kcp Workspace in the parent, and reports
// whether kcp says it is Ready.
func composeWorkspace(b *builder.Builder, ws *v1alpha1.Workspace, root names.RootShard) bool {
	policies := inkcp.PoliciesKeep
	if ws.Spec.DeletionPolicy == v1alpha1.WorkspaceDelete {
		policies = inkcp.PoliciesAll
	}
	var typ *inkcp.WorkspaceType
	if t := ws.Spec.Type; t != nil {
		typ = &inkcp.WorkspaceType{Name: t.Name, Path: t.Path}
	}
	ready := b.St.String(keyWorkspace, "status", "atProvider", "manifest", "status", "phase") == phaseReady
	b.Set.Add(keyWorkspace, inkcp.Object{
		Name:           names.Workspace(ws.GetName()).Object(),
		Namespace:      ws.GetNamespace(),
		Labels:         map[string]string{names.LabelInKCPRootShard: string(root), names.LabelWorkspaceXR: ws.GetName()},
		Annotations:    map[string]string{names.AnnotationWorkspace: Parent(ws)},
		ProviderConfig: root.ProviderConfig(Parent(ws)),
		Policies:       policies,
		Manifest:       inkcp.Workspace(Name(ws), nil, typ),
	}.Unstructured(), builder.Readiness(ready))
	return ready
}

// composeBindings composes one Object per spec.clusterRoleBindings entry, each holding a
// ClusterRoleBinding in the workspace. It reports whether all are in kcp, and why not.
func composeBindings(b *builder.Builder, ws *v1alpha1.Workspace, root names.RootShard) (bool, []string) {
	path := Path(ws)
	var waiting []string
	for _, crb := range ws.Spec.ClusterRoleBindings {
		subjects := make([]inkcp.Subject, 0, len(crb.Groups)+len(crb.Users))
		for _, g := range crb.Groups {
			subjects = append(subjects, inkcp.Subject{Kind: "Group", Name: g})
		}
		for _, u := range crb.Users {
			subjects = append(subjects, inkcp.Subject{Kind: "User", Name: u})
		}
		var labels map[string]string
		if uid := string(ws.GetUID()); uid != "" {
			labels = map[string]string{names.LabelWorkspaceXRUID: uid}
		}
		name := names.Binding(v1alpha1.KindWorkspace, ws.GetName(), path, crb.ClusterRole)
		key := b.Key("object", name)
		ok := b.St.ConditionTrue(key, "Ready")
		b.Set.Add(key, inkcp.Object{
			Name:           name,
			Namespace:      ws.GetNamespace(),
			Labels:         map[string]string{names.LabelInKCPRootShard: string(root), names.LabelWorkspaceXR: ws.GetName()},
			Annotations:    map[string]string{names.AnnotationWorkspace: path},
			ProviderConfig: root.ProviderConfig(path),
			Policies:       inkcp.PoliciesAll,
			Manifest:       inkcp.ClusterRoleBinding(names.WorkspaceBinding(crb.ClusterRole), labels, crb.ClusterRole, subjects),
		}.Unstructured(), builder.Readiness(ok))
		if !ok {
			waiting = append(waiting, crb.ClusterRole+": "+notYet(b.St, key))
		}
	}
	return len(waiting) == 0, waiting
}

// notYet says why an Object's manifest is not in kcp yet.
func notYet(st *observed.State, key resource.Name) string {
	if !st.Exists(key) {
		return "waiting for Crossplane to create its Object"
	}
	if ok, _, msg, found := st.Condition(key, "Synced"); found && !ok && msg != "" {
		return msg
	}
	return "waiting for provider-kubernetes"
}

// workspaceCondition is WorkspaceReady.
func workspaceCondition(st *observed.State, ws *v1alpha1.Workspace, ready bool) condition.Condition {
	c := condition.Condition{Type: TypeWorkspaceReady}
	if ready {
		c.Status, c.Reason, c.Message = true, ReasonReady, fmt.Sprintf("kcp reports workspace %s Ready.", Path(ws))
		return c
	}
	c.Reason = ReasonPending
	phase := st.String(keyWorkspace, "status", "atProvider", "manifest", "status", "phase")
	switch {
	case phase != "":
		c.Message = fmt.Sprintf("kcp reports workspace %s %s.", Path(ws), phase)
	default:
		c.Message = fmt.Sprintf("Creating workspace %s: %s.", Path(ws), notYet(st, keyWorkspace))
	}
	return c
}

// bindingsCondition is BindingsReady.
func bindingsCondition(ws *v1alpha1.Workspace, bound bool, waiting []string) condition.Condition {
	if bound {
		roles := make([]string, 0, len(ws.Spec.ClusterRoleBindings))
		for _, b := range ws.Spec.ClusterRoleBindings {
			roles = append(roles, b.ClusterRole)
		}
		slices.Sort(roles)
		return condition.Condition{Type: TypeBindingsReady, Status: true, Reason: ReasonBound, Message: fmt.Sprintf("Cluster roles %s are bound in workspace %s.", strings.Join(roles, ", "), Path(ws))}
	}
	return condition.Condition{Type: TypeBindingsReady, Reason: ReasonBinding, Message: fmt.Sprintf("Binding cluster roles in workspace %s: %s.", Path(ws), strings.Join(waiting, "; "))}
}
