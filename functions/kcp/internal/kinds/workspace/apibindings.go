package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// TypeAPIsBound says whether every spec.apiBindings entry is Bound in kcp.
const TypeAPIsBound = "APIsBound"

// Reasons of APIsBound.
const (
	ReasonAPIsBound   = "Bound"
	ReasonAPIsBinding = "Binding"
)

// phaseBound is kcp's phase of an APIBinding whose export's resources are served.
const phaseBound = "Bound"

// BindingName is the APIBinding's name in the workspace: spec.apiBindings[].name, else the
// export's.
func BindingName(b v1alpha1.APIBinding) string {
	if b.Name != "" {
		return b.Name
	}
	return b.Export.Name
}

// apiBindingObject names the Object holding an APIBinding of the Workspace: names may hold
// dots, which the Object's name keeps, and two Workspaces may bind the same name, so the name
// ends in a hash of the path and the binding.
func apiBindingObject(ws *v1alpha1.Workspace, binding string) string {
	sum := sha256.Sum256([]byte(Path(ws) + "\x00" + binding))
	return ws.GetName() + "-apibinding-" + hex.EncodeToString(sum[:5])
}

// composeAPIBindings composes one Object per spec.apiBindings entry, each holding an
// APIBinding in the workspace that accepts exactly the claims listed. It returns the names
// kcp reports Bound and why the others are not.
func composeAPIBindings(b *builder.Builder, ws *v1alpha1.Workspace, root names.RootShard) (bound, waiting []string) {
	path := Path(ws)
	for _, ab := range ws.Spec.APIBindings {
		name := BindingName(ab)
		claims := make([]inkcp.Claim, len(ab.PermissionClaims))
		for i, c := range ab.PermissionClaims {
			claims[i] = inkcp.Claim{Group: c.Group, Resource: c.Resource, Verbs: c.Verbs}
		}
		key := resource.Name("apibinding-" + name)
		phase := b.St.String(key, "status", "atProvider", "manifest", "status", "phase")
		ok := phase == phaseBound
		b.Set.Add(key, inkcp.Object{
			Name:           apiBindingObject(ws, name),
			Namespace:      ws.GetNamespace(),
			Labels:         map[string]string{names.LabelInKCPRootShard: string(root), names.LabelWorkspaceXR: ws.GetName()},
			Annotations:    map[string]string{names.AnnotationWorkspace: path},
			ProviderConfig: root.ProviderConfig(path),
			// An unbound API takes the consumer's objects of it with it, in kcp and, through
			// the agent, in the service cluster: it goes only when the entry does.
			Policies: inkcp.PoliciesAll,
			Manifest: inkcp.APIBinding(name, nil, ab.Export.Path, ab.Export.Name, claims),
		}.Unstructured(), builder.Readiness(ok))
		switch {
		case ok:
			bound = append(bound, name)
		case phase != "":
			waiting = append(waiting, fmt.Sprintf("%s: kcp reports %s", name, phase))
		default:
			waiting = append(waiting, name+": "+notYet(b.St, key))
		}
	}
	return bound, waiting
}

// apisCondition is APIsBound.
func apisCondition(ws *v1alpha1.Workspace, bound, waiting []string) condition.Condition {
	if len(waiting) == 0 {
		sorted := slices.Sorted(slices.Values(bound))
		return condition.Condition{Type: TypeAPIsBound, Status: true, Reason: ReasonAPIsBound, Message: fmt.Sprintf("APIBindings %s are Bound in workspace %s.", strings.Join(sorted, ", "), Path(ws))}
	}
	return condition.Condition{Type: TypeAPIsBound, Reason: ReasonAPIsBinding, Message: fmt.Sprintf("Binding APIs in workspace %s: %s.", Path(ws), strings.Join(waiting, "; "))}
}

// validateAPIBindings checks spec.apiBindings: names unique, each claim once, verbs
// without * beside others.
func validateAPIBindings(p *field.Path, bindings []v1alpha1.APIBinding) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, ab := range bindings {
		bp := p.Index(i)
		name := BindingName(ab)
		if seen[name] {
			errs = append(errs, field.Duplicate(bp.Child("name"), name))
		}
		seen[name] = true
		claims := map[string]bool{}
		for j, c := range ab.PermissionClaims {
			cp := bp.Child("permissionClaims").Index(j)
			gr := c.Resource + "." + c.Group
			if claims[gr] {
				errs = append(errs, field.Duplicate(cp, gr))
			}
			claims[gr] = true
			if slices.Contains(c.Verbs, "*") && len(c.Verbs) > 1 {
				errs = append(errs, field.Invalid(cp.Child("verbs"), c.Verbs, "* is every verb: list it alone, or list the verbs"))
			}
		}
	}
	return errs
}
