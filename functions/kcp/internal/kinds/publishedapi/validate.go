package publishedapi

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// MaxNameLength keeps every name built from the XR's valid with room to spare: its
// Kubeconfig and Deployment <name>-syncagent (label values, at most 63), the Objects
// <name>-syncagent.clusterrolebinding, the PublishedResources <name>-<resource name>.
const MaxNameLength = 40

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A PublishedAPI that fails validation composes nothing new and deletes nothing.
func Validate(pa *v1alpha1.PublishedAPI) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := pa.Spec
	errs = append(errs, check.NameLength(pa.GetName(), MaxNameLength)...)
	if s.RootShard.Name == "" {
		errs = append(errs, field.Required(spec.Child("rootShard", "name"), "name the RootShard, in this namespace, of the installation to export the API in"))
	}
	if err := names.ValidateWorkspacePath(s.Workspace); err != nil || !strings.HasPrefix(s.Workspace, names.RootWorkspace+":") {
		errs = append(errs, field.Invalid(spec.Child("workspace"), s.Workspace, "name the provider workspace by its full path below root, e.g. root:providers:databases"))
	}
	if msgs := validation.IsDNS1123Subdomain(ExportName(pa)); len(msgs) > 0 {
		p := spec.Child("exportName")
		if s.ExportName == "" {
			p = field.NewPath("metadata", "name")
		}
		errs = append(errs, field.Invalid(p, ExportName(pa), "is not an APIExport name ("+strings.Join(msgs, "; ")+")"))
	}
	if s.ServiceCluster.ProviderConfigRef.Name == "" {
		errs = append(errs, field.Required(spec.Child("serviceCluster", "providerConfigRef", "name"), "name the provider-kubernetes config that reaches the service cluster (this cluster too: docs/publishing-apis.md says how)"))
	}
	if len(s.Resources) == 0 {
		errs = append(errs, field.Required(spec.Child("resources"), "list at least one resource to publish"))
	}
	seen := map[string]bool{}
	kinds := map[string]bool{}
	for i, r := range s.Resources {
		p := spec.Child("resources").Index(i)
		if seen[r.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), r.Name))
		}
		seen[r.Name] = true
		gk := r.Group + "/" + r.Kind
		if kinds[gk] {
			errs = append(errs, field.Duplicate(p.Child("kind"), fmt.Sprintf("%s of group %s is published twice; publish each resource once", r.Kind, r.Group)))
		}
		kinds[gk] = true
		if msgs := validation.IsDNS1123Subdomain(r.Group); len(msgs) > 0 || !strings.Contains(r.Group, ".") {
			errs = append(errs, field.Invalid(p.Child("group"), r.Group, "name the API group of a CRD, such as platform.example.com: the core group and built-in groups cannot be published"))
		}
		if builtinGroup(r.Group) {
			errs = append(errs, field.Forbidden(p.Child("group"), fmt.Sprintf("%s is a group Kubernetes or kcp serves itself; publish the resources of a CRD, such as a Crossplane XRD's", r.Group)))
		}
		if len(r.Versions) == 0 {
			errs = append(errs, field.Required(p.Child("versions"), "list the versions to publish, each served by the CRD"))
		}
		ids := map[string]bool{}
		for j, rel := range r.Related {
			rp := p.Child("related").Index(j)
			if ids[rel.Identifier] {
				errs = append(errs, field.Duplicate(rp.Child("identifier"), rel.Identifier))
			}
			ids[rel.Identifier] = true
			if rel.Kind != "Secret" && rel.Kind != "ConfigMap" {
				errs = append(errs, field.NotSupported(rp.Child("kind"), rel.Kind, []string{"Secret", "ConfigMap"}))
			}
			if (rel.NamePath == "") == (rel.NameTemplate == "") {
				errs = append(errs, field.Required(rp, "set exactly one of namePath or nameTemplate"))
			}
		}
	}
	return errs
}

// reservedGroups are served by Kubernetes, kcp and Crossplane themselves (this package's
// kcp.crossplane.io and provider-kubernetes' Objects among them): publishing one would give
// the agent, and through it every consumer, rights over the platform's own objects in
// every namespace of the service cluster.
var reservedGroups = []string{"k8s.io", "kcp.io", "crossplane.io"}

// builtinGroup reports whether group is one of reservedGroups or below one.
func builtinGroup(group string) bool {
	for _, g := range reservedGroups {
		if group == g || strings.HasSuffix(group, "."+g) {
			return true
		}
	}
	return false
}

// checkPolicy refuses a PublishedAPI in a namespace the platform's policy does not let
// publish: its agent's ClusterRole in the service cluster reads every CRD and manages the
// published resources in every namespace there.
func checkPolicy(pa *v1alpha1.PublishedAPI, p policy.Policy) field.ErrorList {
	ns := pa.GetNamespace()
	if p.AllowsFeature(ns, policy.FeatureAPIPublishing) {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("metadata", "namespace"), fmt.Sprintf(
		"namespace %s may not publish APIs: the platform's policy (%s %s) lists it neither in data.platformNamespaces nor in data.features.%s; create the PublishedAPI in a platform namespace, or ask the platform team to allow this one",
		ns, policy.Kind, policy.Name, policy.FeatureAPIPublishing))}
}
