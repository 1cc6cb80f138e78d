package kcpinstallation

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation/exposure"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
)

// xrKinds are the kinds of XR an installation composes, and VirtualWorkspace. Each derives
// the names of what it composes from its own name the same way (a Shard a-b and a RootShard
// a-b would both compose Certificate a-b-server), so a child's name is taken when an XR of
// any of these kinds has it.
var xrKinds = []string{v1alpha1.KindRootShard, v1alpha1.KindShard, v1alpha1.KindCacheServer, v1alpha1.KindFrontProxy, v1alpha1.KindVirtualWorkspace, v1alpha1.KindKubeconfig}

// reservedNames cannot name a shard or front-proxy: the XR <installation>-<name> would compose
// objects of the same names as the installation's other parts. The list gives the common
// cases a short message; checkOwnNames finds every other name two parts would share. The root shard composes
// <installation>-proxy-server (its internal proxy's certificate), as a Shard named
// <installation>-proxy would; likewise its other certificates and CAs, the cache server
// (<installation>-cache), the admin Kubeconfig (-admin) and managed etcd (-etcd, -etcd-server).
var reservedNames = []string{
	"admin", "ca", "cache", "client", "etcd", "external-logical-cluster-admin", "kcp", "kcp-operator",
	"logical-cluster-admin", "merged-ca-bundle", "merged-client-ca", "proxy", "requestheader-client-ca",
	"server", "server-ca", "service-account", "service-account-ca", "virtual-workspaces",
}

// takeoverRequirements reads every XR of the kinds a child could collide with in the
// namespace, the neighbouring installations, the managed etcd StatefulSet, and each
// front-proxy's TLSRoute or Ingress.
func takeoverRequirements(etcds []etcd.Cluster, children []child) []result.Requirement {
	reqs := make([]result.Requirement, 0, len(xrKinds)+2)
	for _, k := range xrKinds {
		reqs = append(reqs, required.All(k))
	}
	reqs = append(reqs, required.All(v1alpha1.KindKcpInstallation))
	for _, c := range etcds {
		reqs = append(reqs, result.Requirement{APIVersion: "apps/v1", Kind: "StatefulSet", Name: c.Names.Name()})
	}
	for _, c := range children {
		if c.exposure != nil {
			reqs = append(reqs, result.Requirement{APIVersion: exposure.APIVersion(c.exposure), Kind: exposure.Kind(c.exposure), Name: c.name()})
		}
	}
	return reqs
}

// checkTakeover refuses to compose a child XR, or the etcd StatefulSet, whose name is taken
// by an object this installation does not control. Crossplane would otherwise adopt an
// object without a controller (the platform's own RootShard, say, which a tenant cannot
// write) and fail, without a message the tenant sees, on one another XR controls.
func checkTakeover(inst *v1alpha1.KcpInstallation, children []child, etcds []etcd.Cluster, st *observed.State) field.ErrorList {
	uid := string(inst.GetUID())
	ours := func(l observed.Lookup) bool { return uid != "" && l.Controller == uid }
	var errs field.ErrorList
	for _, c := range children {
		for _, k := range xrKinds {
			if l := st.Object(k, c.name()); l.Found && !ours(l) {
				errs = append(errs, field.Forbidden(c.field, taken(inst, c.kind, c.name(), k, l)+"; "+rename(inst, c)))
			}
		}
	}
	for _, c := range children {
		if c.exposure == nil {
			continue
		}
		k := exposure.Kind(c.exposure)
		if l := st.Object(k, c.name()); l.Found && !ours(l) {
			errs = append(errs, field.Forbidden(c.field.Child("exposure"), taken(inst, k, c.name(), k, l)+"; "+rename(inst, c)))
		}
	}
	for _, c := range etcds {
		if l := st.Object("StatefulSet", c.Names.Name()); l.Found && !ours(l) {
			errs = append(errs, field.Forbidden(etcdField(inst, c.Names), taken(inst, "StatefulSet", c.Names.Name(), "StatefulSet", l)+"; "+etcdRename(c.Names)))
		}
	}
	return errs
}

// etcdField is the field that asks for a managed etcd cluster.
func etcdField(inst *v1alpha1.KcpInstallation, e names.Etcd) *field.Path {
	for i, sh := range inst.Spec.Shards {
		if e.Shard != "" && sh.Name == e.Shard {
			return field.NewPath("spec", "shards").Index(i).Child("managedEtcd")
		}
	}
	return field.NewPath("metadata", "name")
}

// etcdRename says which name changes a managed etcd cluster's.
func etcdRename(e names.Etcd) string {
	if e.Shard != "" {
		return "rename the shard or this KcpInstallation"
	}
	return "rename this KcpInstallation"
}

// taken says which object holds a name and who controls it.
func taken(inst *v1alpha1.KcpInstallation, kind, name, holderKind string, l observed.Lookup) string {
	by := "it has no controller"
	if l.ControllerKind != "" {
		by = fmt.Sprintf("its controller is %s %s", l.ControllerKind, l.ControllerName)
	}
	return fmt.Sprintf("the %s %s/%s this would compose is taken: %s %s/%s exists and is not controlled by this KcpInstallation (%s); it is left untouched",
		kind, inst.GetNamespace(), name, holderKind, inst.GetNamespace(), name, by)
}

// rename says which field changes a child's name.
func rename(inst *v1alpha1.KcpInstallation, c child) string {
	switch {
	case c.kind == v1alpha1.KindFrontProxy && len(inst.Spec.FrontProxies) == 0:
		return "name the front-proxy yourself in spec.frontProxies (the default is " + DefaultFrontProxyName + ") or rename this KcpInstallation"
	case c.kind == v1alpha1.KindShard, c.kind == v1alpha1.KindFrontProxy:
		return "choose another " + c.field.Child("name").String() + " or rename this KcpInstallation"
	default:
		return "rename this KcpInstallation"
	}
}

// checkNames refuses shard and front-proxy names whose XRs would compose objects named like
// the installation's other parts, or like each other's.
func checkNames(s v1alpha1.KcpInstallationSpec) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]*field.Path{}
	claim := func(p *field.Path, name string) {
		if slices.Contains(reservedNames, name) {
			errs = append(errs, field.Invalid(p, name, fmt.Sprintf("%q is reserved: the installation's own parts use names derived from it (reserved: %v); choose another name", name, reservedNames)))
			return
		}
		if prev, ok := seen[name]; ok {
			errs = append(errs, field.Invalid(p, name, fmt.Sprintf("%s already names %s: two parts of one name would compose the same objects; choose another name", prev, name)))
			return
		}
		seen[name] = p
	}
	if len(s.FrontProxies) == 0 {
		seen[DefaultFrontProxyName] = field.NewPath("spec", "frontProxies").Key("default")
	}
	for i, sh := range s.Shards {
		claim(field.NewPath("spec", "shards").Index(i).Child("name"), sh.Name)
	}
	for i, fp := range s.FrontProxies {
		claim(field.NewPath("spec", "frontProxies").Index(i).Child("name"), fp.Name)
	}
	return errs
}
