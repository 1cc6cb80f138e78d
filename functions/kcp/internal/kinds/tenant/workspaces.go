package tenant

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// defaultWorkspaceTypes are kcp's own WorkspaceTypes of root, which a team may use unless its
// Tenant says otherwise: they carry no initializer of the platform's.
var defaultWorkspaceTypes = []string{"organization", "team", "universal"}

// checkType holds a team's Workspace to the WorkspaceTypes its Tenant allows. The workspace is
// created with the installation's admin credentials, which skip kcp's check that the creator
// may use the type: so a team uses only the types of root its Tenant lists, and its own (in
// its workspace or below). Without a path kcp looks the name up in the parent's ancestry,
// root included, so such a name must be allowed too.
func (c *composer) checkType(p *field.Path, t *v1alpha1.WorkspaceTypeReference) field.ErrorList {
	if t == nil || t.Path != "" && sharing.Within(t.Path, c.workspace) {
		return nil
	}
	allowed := c.t.Spec.WorkspaceTypes
	if allowed == nil {
		allowed = defaultWorkspaceTypes
	}
	if slices.Contains(allowed, t.Name) && (t.Path == "" || t.Path == names.RootWorkspace) {
		return nil
	}
	if t.Path != "" && t.Path != names.RootWorkspace {
		return field.ErrorList{field.Invalid(p.Child("path"), t.Path, fmt.Sprintf("a team's workspace uses WorkspaceTypes of root that Tenant %s allows, or its own in %s and below", c.t.GetName(), c.workspace))}
	}
	return field.ErrorList{field.Forbidden(p.Child("name"), fmt.Sprintf("WorkspaceType %s of root is not one Tenant %s allows (spec.workspaceTypes: %s); use one of those, set spec.type.path to %s for a type of the team's own, or ask the platform team", t.Name, c.t.GetName(), strings.Join(allowed, ", "), c.workspace))}
}

// workspacePath is the path of the kcp workspace a Workspace XR creates.
func workspacePath(s v1alpha1.WorkspaceSpec, xrName string) string {
	parent, name := s.Parent, s.Name
	if parent == "" {
		parent = names.RootWorkspace
	}
	if name == "" {
		name = xrName
	}
	return parent + ":" + name
}

// pathHolder names the Workspace XR of the Tenant's namespace, not composed by this Tenant,
// that already creates the kcp workspace path: two XRs creating one workspace would both
// report it, and deleting either with deletionPolicy Delete would delete it under the other.
// "" when none does. Among its own team's XRs the Tenant grants a path to the oldest.
func (c *composer) pathHolder(path string) string {
	for _, n := range c.b.St.Names(v1alpha1.KindWorkspace) {
		if l := c.b.St.Object(v1alpha1.KindWorkspace, n); c.t.GetUID() != "" && l.Controller == string(c.t.GetUID()) {
			continue
		}
		ws := &v1alpha1.Workspace{}
		if required.Get(c.b.St, v1alpha1.KindWorkspace, n, ws) && workspacePath(ws.Spec, n) == path {
			return n
		}
	}
	return ""
}

// checkPath refuses a team's Workspace whose kcp workspace another XR already creates: an
// older Workspace of the team (sibling, "" if none) or one the Tenant does not compose.
func (c *composer) checkPath(path, sibling string) field.ErrorList {
	p := field.NewPath("spec", "name")
	if sibling != "" {
		return field.ErrorList{field.Duplicate(p, fmt.Sprintf("workspace %s is already created for the team's older Workspace %s; give this one another spec.name", path, sibling))}
	}
	if holder := c.pathHolder(path); holder != "" {
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("workspace %s is already created by Workspace %s/%s, which this Tenant does not compose; give this one another spec.name", path, c.b.Namespace, holder))}
	}
	return nil
}
