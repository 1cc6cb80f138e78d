package workspace

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// MaxNameLength keeps the label values that carry the Workspace's name valid.
const MaxNameLength = validation.LabelValueMaxLength

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A Workspace that fails validation composes nothing new and deletes nothing.
func Validate(ws *v1alpha1.Workspace) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := ws.Spec
	errs = append(errs, check.NameLength(ws.GetName(), MaxNameLength)...)
	root := ""
	if r := s.RootShard.Ref; r == nil || r.Name == "" {
		errs = append(errs, field.Required(spec.Child("rootShard", "ref", "name"), "name the RootShard of the kcp installation the workspace lives in"))
	} else {
		root = r.Name
	}
	if s.Parent != "" {
		if err := names.ValidateWorkspacePath(s.Parent); err != nil {
			errs = append(errs, field.Invalid(spec.Child("parent"), s.Parent, err.Error()))
		}
	}
	name := Name(ws)
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		p, fix := spec.Child("name"), "set spec.name to a workspace name"
		if s.Name == "" {
			p, fix = field.NewPath("metadata", "name"), "or set spec.name to a workspace name"
		}
		errs = append(errs, field.Invalid(p, name, "is not a kcp workspace name ("+strings.Join(msgs, "; ")+"); "+fix))
	}
	// The ProviderConfig of the workspace is named after the RootShard and the path.
	if pc := names.RootShard(root).ProviderConfig(Path(ws)); root != "" && len(pc) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.TooLong(spec.Child("parent"), Path(ws), validation.DNS1123SubdomainMaxLength-len(pc)+len(Path(ws))))
	}
	if t := s.Type; t != nil && t.Path != "" {
		if err := names.ValidateWorkspacePath(t.Path); err != nil {
			errs = append(errs, field.Invalid(spec.Child("type", "path"), t.Path, err.Error()))
		}
	}
	seen := map[string]bool{}
	for i, b := range s.ClusterRoleBindings {
		p := spec.Child("clusterRoleBindings").Index(i)
		errs = append(errs, check.ClusterRoleName(p.Child("clusterRole"), b.ClusterRole)...)
		if seen[b.ClusterRole] {
			errs = append(errs, field.Duplicate(p.Child("clusterRole"), b.ClusterRole))
		}
		seen[b.ClusterRole] = true
		if len(b.Groups)+len(b.Users) == 0 {
			errs = append(errs, field.Required(p, "name at least one group or user to bind "+b.ClusterRole+" to"))
		}
		for j, g := range b.Groups {
			if strings.TrimSpace(g) == "" {
				errs = append(errs, field.Required(p.Child("groups").Index(j), "remove the empty group or name one"))
			}
		}
		for j, u := range b.Users {
			if strings.TrimSpace(u) == "" {
				errs = append(errs, field.Required(p.Child("users").Index(j), "remove the empty user or name one"))
			}
		}
	}
	errs = append(errs, validateAPIBindings(spec.Child("apiBindings"), s.APIBindings)...)
	if Shared(ws) {
		// The Tenant checks these again, with the team's workspace, before it composes
		// anything; saying so here refuses at once, naming the field.
		errs = append(errs, sharing.CheckName(ws.GetNamespace(), ws.GetName())...)
		errs = append(errs, sharing.CheckBindings(spec.Child("clusterRoleBindings"), s.ClusterRoleBindings)...)
	}
	return errs
}

// rolesKCPLacks are Kubernetes' user-facing roles. kcp v0.32.3 makes none of them in a
// workspace: cluster-admin is the only familiar ClusterRole a new workspace resolves, so a
// binding to one of these grants nothing until someone creates that ClusterRole there.
var rolesKCPLacks = map[string]bool{"admin": true, "edit": true, "view": true}

// Warnings are accepted but probably not what the user meant.
func Warnings(ws *v1alpha1.Workspace) []string {
	var warnings []string
	if ws.Spec.DeletionPolicy == v1alpha1.WorkspaceDelete {
		what := "workspace " + Path(ws)
		if Shared(ws) {
			what = "its workspace"
		}
		warnings = append(warnings, fmt.Sprintf("spec.deletionPolicy is Delete: deleting this Workspace deletes %s in kcp and everything in it", what))
	}
	for i, b := range ws.Spec.ClusterRoleBindings {
		if rolesKCPLacks[b.ClusterRole] {
			warnings = append(warnings, fmt.Sprintf("spec.clusterRoleBindings[%d].clusterRole: kcp makes no ClusterRole %s in a workspace, so this binding grants nothing until one is created there; bind cluster-admin, or create ClusterRole %s in the workspace first", i, b.ClusterRole, b.ClusterRole))
		}
	}
	return warnings
}
