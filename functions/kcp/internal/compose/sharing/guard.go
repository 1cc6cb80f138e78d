package sharing

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// MayRoute reports whether a component's XR, as stored, configures any route at all (spec.auth
// or spec.clientCABundleRef): most take no identity from elsewhere, and need not be decoded
// to tell.
func MayRoute(obj map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	return spec["auth"] != nil || spec["clientCABundleRef"] != nil
}

// component is what a route guard reads of a RootShard, Shard, FrontProxy or
// VirtualWorkspace: its routes and the RootShard it serves.
type component struct {
	Spec struct {
		v1alpha1.CommonShardSpec `json:",inline"`
		RootShard                *v1alpha1.RootShardConfig `json:"rootShard,omitempty"`
	} `json:"spec"`
}

// GuardRoutes holds the routes into kcp of a component (an XR of kind RootShard, Shard,
// FrontProxy or VirtualWorkspace, as obj) to the Tenants of its namespace: a route that
// could name an identity of a Tenant sharing the component's installation is refused,
// naming the route's field and the Tenant. It is the other half of the Tenant's own check:
// a Tenant is refused while such a route exists, and a route added later (a second
// front-proxy, an identity provider, a webhook) is refused while such a Tenant exists.
//
// A component without routes reads nothing. reqs are what the guard reads: every Tenant of
// the namespace and the structured authentication configurations the component names; the
// guard refuses nothing until Crossplane has answered them.
func GuardRoutes(kind string, obj map[string]any, st *observed.State) (reqs []result.Requirement, errs field.ErrorList) {
	// Every RootShard, Shard, FrontProxy and VirtualWorkspace call passes here.
	if !MayRoute(obj) {
		return nil, nil
	}
	var c component
	b, err := json.Marshal(obj)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return nil, nil // the kind's own decoding names what is wrong
	}
	answered := true
	config := func(name, key string) (string, bool) {
		req := result.Requirement{APIVersion: "v1", Kind: "ConfigMap", Name: name}
		reqs = append(reqs, req)
		if !st.Answered(req.Key()) {
			answered = false
			return "", true
		}
		l := st.Object("ConfigMap", name)
		v, ok := l.Data[key]
		return string(v), l.Found && ok
	}
	spec := field.NewPath("spec")
	var routes []Route
	if kind == v1alpha1.KindVirtualWorkspace {
		routes = AuthRoutes(nil, nil, spec.Child("clientCABundleRef"), refName(c.Spec.ClientCABundleRef), nil)
	} else {
		routes = AuthRoutes(spec.Child("auth"), c.Spec.Auth, spec.Child("clientCABundleRef"), refName(c.Spec.ClientCABundleRef), config)
	}
	if len(routes) == 0 {
		return nil, nil
	}
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	tenants := TenantsRequirement(ns)
	reqs = append(reqs, tenants)
	if !answered || !st.Answered(tenants.Key()) {
		return reqs, nil
	}
	rootShard := ""
	switch {
	case kind == v1alpha1.KindRootShard:
		rootShard = name
	case c.Spec.RootShard != nil && c.Spec.RootShard.Ref != nil:
		rootShard = c.Spec.RootShard.Ref.Name
	case c.Spec.RootShard != nil && c.Spec.RootShard.SecretRef != nil:
		rootShard = strings.TrimSuffix(c.Spec.RootShard.SecretRef.Name, names.Reference(""))
	}
	for _, t := range Tenants(st, ns, "") {
		if !sharesWith(t, kind, name, rootShard) {
			continue
		}
		prefix := IdentityPrefix(t)
		for _, r := range routes {
			if !r.Names(prefix) {
				continue
			}
			errs = append(errs, field.Forbidden(r.Field, fmt.Sprintf("%s could name the identities of Tenant %s/%s, which shares this installation with namespace %s under %s: one of its users or groups named so would be the team's in kcp; %s",
				r.Describe(), ns, t.GetName(), Namespace(t), prefix, r.Fix)))
		}
	}
	return reqs, errs
}

// sharesWith reports whether Tenant t shares the installation of a component of kind and
// name serving RootShard rootShard ("" when it serves any, as a VirtualWorkspace may). A
// Tenant whose status names no RootShard yet is taken to share every installation of its
// namespace: holding a route back briefly is better than granting through it.
func sharesWith(t *v1alpha1.Tenant, kind, name, rootShard string) bool {
	if kind == v1alpha1.KindFrontProxy && t.Spec.FrontProxy.Ref.Name == name {
		return true
	}
	return rootShard == "" || t.Status.RootShard == "" || t.Status.RootShard == rootShard
}
