package kcpinstallation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// LabelHostname marks every FrontProxy an installation composes with the hostname it
// serves (hostnameLabel): an index through which every other installation, in any
// namespace, finds who serves a hostname by a label selector, reading one or two objects
// rather than every installation of the cluster. Since the label is written only once an
// installation composes, it says who serves a hostname now, not who wants it.
const LabelHostname = "kcp.crossplane.io/hostname"

// hostnameLabel is the LabelHostname value of a hostname: the hostname itself when it is a
// valid label value, else a digest of it (a label value has at most 63 characters). Holders
// are compared by their hostnames, so a digest shared by two hostnames refuses nothing.
func hostnameLabel(host string) string {
	if len(validation.IsValidLabelValue(host)) == 0 {
		return host
	}
	sum := sha256.Sum256([]byte(host))
	return "sha256-" + hex.EncodeToString(sum[:])[:40]
}

// served is a hostname a front-proxy of the installation serves, with the field that sets it.
type served struct {
	host  string
	field *field.Path
	child child
}

// servedHostnames are the hostnames the installation's front-proxies serve: what their
// Services, TLSRoutes and Ingresses answer for, and what their certificates name.
func servedHostnames(inst *v1alpha1.KcpInstallation, children []child) []served {
	var out []served
	for _, c := range children {
		fp, ok := c.xr.(*v1alpha1.FrontProxy)
		if !ok || fp.Spec.External.Hostname == "" {
			continue
		}
		p := c.field.Child("external", "hostname")
		if len(inst.Spec.FrontProxies) == 0 || c.field.String() == "spec.frontProxies[0]" && inst.Spec.FrontProxies[0].External == nil {
			p = field.NewPath("spec", "external", "hostname") // the first front-proxy's default
		}
		out = append(out, served{host: fp.Spec.External.Hostname, field: p, child: c})
	}
	return out
}

// hostnameRequirements read, in every namespace, the FrontProxies serving each hostname.
func hostnameRequirements(hosts []served) []result.Requirement {
	var reqs []result.Requirement
	for _, h := range hosts {
		reqs = append(reqs, result.Requirement{APIVersion: required.APIVersion, Kind: v1alpha1.KindFrontProxy, Label: LabelHostname, LabelValue: hostnameLabel(h.host), ClusterScoped: true})
	}
	return reqs
}

// checkHostnames refuses a front-proxy hostname that another FrontProxy serves already: the
// platform's, or another installation's in any namespace. A route or certificate for a name
// another team serves takes its clients (an Ingress controller sends them to whichever
// route it prefers), so the installation that served it first keeps it, and keeps running.
// Of two that began to serve a name at once, the FrontProxy created first keeps it.
func checkHostnames(inst *v1alpha1.KcpInstallation, hosts []served, st *observed.State) field.ErrorList {
	uid := string(inst.GetUID())
	var candidates []observed.Lookup
	for _, name := range st.Names(v1alpha1.KindFrontProxy) {
		candidates = append(candidates, st.Object(v1alpha1.KindFrontProxy, name))
	}
	candidates = append(candidates, st.Elsewhere(v1alpha1.KindFrontProxy)...)
	var errs field.ErrorList
	for _, h := range hosts {
		for _, l := range candidates {
			if l.Object == nil || (uid != "" && l.Controller == uid) || frontProxyHostname(l.Object) != h.host {
				continue
			}
			if l.ControllerKind == v1alpha1.KindKcpInstallation && !servedBefore(l.Object, h, st) {
				continue // a neighbour that took it later: it is refused, not this one
			}
			errs = append(errs, field.Forbidden(h.field, fmt.Sprintf(
				"%s is served already by %s, which keeps it; choose another hostname (ask the platform team which names are this namespace's)",
				h.host, holder(l))))
			break
		}
	}
	return errs
}

// servedBefore reports whether the FrontProxy obj began to serve h's hostname before this
// installation's front-proxy did: this one serves it once its FrontProxy carries the label.
func servedBefore(obj map[string]any, h served, st *observed.State) bool {
	theirs := creation(obj)
	ours, ok := st.Get(h.child.key)
	if !ok || ours.GetLabels()[LabelHostname] != hostnameLabel(h.host) {
		return true
	}
	mine := ours.GetCreationTimestamp().Time
	if !theirs.Equal(mine) {
		return theirs.Before(mine)
	}
	ns, name := namespacedName(obj)
	return ns+"/"+name < ours.GetNamespace()+"/"+ours.GetName()
}

// holder names a FrontProxy and what controls it, for messages.
func holder(l observed.Lookup) string {
	ns, name := namespacedName(l.Object)
	by := "a FrontProxy of the platform's"
	if l.ControllerKind != "" {
		by = fmt.Sprintf("the %s %s/%s", l.ControllerKind, ns, l.ControllerName)
	}
	return fmt.Sprintf("FrontProxy %s/%s (%s)", ns, name, by)
}

// frontProxyHostname is the hostname a FrontProxy XR serves: spec.external.hostname, or the
// host of the deprecated spec.externalHostname.
func frontProxyHostname(obj map[string]any) string {
	spec, _ := obj["spec"].(map[string]any)
	if h := nestedString(spec, "external", "hostname"); h != "" {
		return h
	}
	h := nestedString(spec, "externalHostname")
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == ':' {
			return h[:i]
		}
		if h[i] < '0' || h[i] > '9' {
			break
		}
	}
	return h
}

func creation(obj map[string]any) time.Time {
	meta, _ := obj["metadata"].(map[string]any)
	s, _ := meta["creationTimestamp"].(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{} // unknown: the oldest, so an installation never takes it
	}
	return t
}

func namespacedName(obj map[string]any) (string, string) {
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	return ns, name
}
