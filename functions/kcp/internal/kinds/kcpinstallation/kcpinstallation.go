// Package kcpinstallation composes a KcpInstallation: the per-kind XRs (RootShard, Shards,
// CacheServer, FrontProxies, an admin Kubeconfig) of one kcp installation, its managed etcd
// clusters, and a status a tenant can read without looking at them.
//
// Compose reads as its four steps: the plan (plan.go: the XR to typed children, from the
// spec alone, each child checked with its own kind's validation, so an installation never
// produces a child its composer would reject, and a child's error names the installation
// field it came from); the refusals (refusals.go: every check against what the cluster
// holds, in one declared list); composing; and the status.
package kcpinstallation

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// Defaults of an installation.
const (
	DefaultFrontProxyName = "public"
	DefaultAdminUsername  = "kcp-admin"
	DefaultAdminGroup     = "system:kcp:admin"
	DefaultAdminValidity  = 8760 * time.Hour
	// LabelInstallation marks every XR an installation composes.
	LabelInstallation = "kcp.crossplane.io/installation"
)

// TypeComponentsReady says whether every composed XR is Ready.
const TypeComponentsReady = "ComponentsReady"

// Kind is what an installation needs of the kind of a child it composes, typed by the
// child's XR: the kind's own validation, and the names of the flags its renderer writes
// without extra arguments. Either may be nil: no checks, or no flags to protect.
type Kind[PX any] struct {
	Validate func(PX) field.ErrorList
	Flags    func(PX) []string
}

// Kinds are the kinds of the children an installation composes. fn.go provides them from
// the kinds' own packages, so this package composes its children from the API types and the
// names alone, and still never composes one its kind would reject.
type Kinds struct {
	RootShard        Kind[*v1alpha1.RootShard]
	Shard            Kind[*v1alpha1.Shard]
	CacheServer      Kind[*v1alpha1.CacheServer]
	FrontProxy       Kind[*v1alpha1.FrontProxy]
	VirtualWorkspace Kind[*v1alpha1.VirtualWorkspace]
	Kubeconfig       Kind[*v1alpha1.Kubeconfig]
}

// Composer returns the composer of KcpInstallations whose children kinds checks.
func Composer(kinds Kinds) func(*v1alpha1.KcpInstallation, *observed.State) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
	return func(inst *v1alpha1.KcpInstallation, st *observed.State) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
		return Compose(inst, st, kinds)
	}
}

// Compose composes the installation's XRs, each checked by its kind, and reports their
// readiness.
func Compose(inst *v1alpha1.KcpInstallation, st *observed.State, kinds Kinds) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
	var r result.Result[v1alpha1.KcpInstallationStatus]
	p := newPlan(inst, kinds)
	o := &seen{State: st, members: upgradeMembers(p.children, st)}
	var errs field.ErrorList
	r.Warnings, errs = refuse(p, o)
	if len(errs) > 0 {
		return r, errs
	}
	restores, errs := planRestores(p, st)
	if len(errs) > 0 {
		return r, errs
	}
	hold(p, restores)
	upgrade, image := planUpgrade(inst, o.members, st)
	r.Status.Image, r.Status.Upgrade = image, upgrade
	// What the refusals read; Crossplane answers before it applies anything composed below.
	r.Requirements = append([]result.Requirement{policy.Requirement}, takeoverRequirements(p.etcds, p.children)...)
	r.Requirements = append(r.Requirements, hostnameRequirements(p.hosts, p.children)...)

	b := builder.New(inst.GetName(), inst.GetNamespace(), st)
	var waiting []string
	for _, c := range p.etcds {
		ready, why := composeEtcd(b, c)
		if w := composeEtcdMonitoring(b, c, inst.Spec.Monitoring); w != "" {
			r.Warnings = append(r.Warnings, w)
		}
		if !ready {
			waiting = append(waiting, "etcd "+c.Names.Name())
		}
		r.Status.Components = append(r.Status.Components, v1alpha1.InstallationComponent{Kind: "StatefulSet", Name: c.Names.Name(), Ready: ready, Message: why})
		if bk := etcdBackupStatus(b, c); bk != nil {
			r.Status.Backups = append(r.Status.Backups, *bk)
		}
	}
	for _, rs := range restores {
		composeRestore(b, rs)
	}
	for _, c := range p.children {
		ready, err := composeChild(b, p, c)
		if err != nil {
			return r, field.ErrorList{field.InternalError(c.field, err)}
		}
		comp := v1alpha1.InstallationComponent{Kind: c.kind, Name: c.name(), Ready: ready}
		if !ready {
			comp.Message = notReadyMessage(st, c.key)
			waiting = append(waiting, c.kind+" "+c.name())
		}
		r.Status.Components = append(r.Status.Components, comp)
	}
	for _, rs := range restores {
		if rs.proxiesStarted && len(waiting) == 0 && proxiesRunning(p, st) {
			rs.phase, rs.message = v1alpha1.RestoreRestored, "restored: remove "+restoreField(inst, rs.Cluster).String()
		}
		if rs.phase != v1alpha1.RestoreRestored {
			waiting = append(waiting, fmt.Sprintf("the restore of %s, at step %s (status.restores)", rs.Cluster.Names.Name(), rs.phase))
		}
		r.Status.Restores = append(r.Status.Restores, rs.status())
	}
	r.Desired = b.Set
	// What the composing read: prometheus-operator's CRD, for the etcd clusters' PodMonitors.
	r.Requirements = append(r.Requirements, b.Inputs.Requirements()...)
	report(&r, p, st, waiting)
	return r, nil
}

// composeChild composes child c, with the labels other installations find its public names
// by, and a front-proxy's TLSRoute or Ingress. It reports whether the child is Ready.
func composeChild(b *builder.Builder, p *plan, c child) (bool, error) {
	labels := hostnameLabels(c, p.hosts)
	labels[LabelInstallation] = p.inst.GetName()
	ready, err := b.XROf(c.key, c.kind, labels, c.xr)
	if err != nil || c.exposure == nil {
		return ready, err
	}
	// Ready once it exists: whether the Gateway or Ingress controller has taken it up is the
	// platform's to watch, and no client can tell it from outside anyway.
	b.Set.Add(c.routeKey(), c.route.Object(c.exposure), builder.Readiness(b.St.Exists(c.routeKey())))
	return ready, nil
}

// report writes the installation's URL, admin kubeconfig Secret, phase and condition
// ComponentsReady, given the components still waiting.
func report(r *result.Result[v1alpha1.KcpInstallationStatus], p *plan, st *observed.State, waiting []string) {
	fp := p.children[firstFrontProxy(p.children)]
	r.Status.URL = st.String(fp.key, "status", "url")
	if r.Status.URL == "" {
		r.Status.URL = names.ExternalURL(fp.xr.(*v1alpha1.FrontProxy).Spec.External)
	}
	r.Status.KubeconfigSecret = p.name.AdminKubeconfigSecret(p.inst.Spec.Admin)
	r.Status.Phase = v1alpha1.PhaseRunning
	ready := condition.Condition{Type: TypeComponentsReady, Status: true, Reason: "Ready", Message: fmt.Sprintf("All %d components are Ready.", len(r.Status.Components))}
	if u := r.Status.Upgrade; u != nil {
		// A rollout under way leaves components not Ready; say that it is an upgrade, and
		// which step, rather than only that they are not Ready.
		waiting = append([]string{fmt.Sprintf("the upgrade to %s, at step %s (status.upgrade)", u.To, u.Step)}, waiting...)
	}
	if len(waiting) > 0 {
		r.Status.Phase = v1alpha1.PhaseProvisioning
		r.NotReady = true
		ready = condition.Condition{Type: TypeComponentsReady, Status: false, Reason: "Provisioning", Message: "Not Ready yet: " + strings.Join(waiting, ", ") + " (status.components says why)."}
	}
	r.Conditions = append(r.Conditions, ready)
}

func firstFrontProxy(children []child) int {
	for i, c := range children {
		if c.kind == v1alpha1.KindFrontProxy {
			return i
		}
	}
	return 0
}

// notReadyMessage is the first condition of a child that is not True, or why it is unknown.
func notReadyMessage(st *observed.State, key resource.Name) string {
	u, ok := st.Get(key)
	if !ok {
		return "not created yet"
	}
	status, _ := u.Object["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, want := range []string{"Synced", "CertificatesReady", "InputsReady", "Available", "KubeconfigReady", "Ready"} {
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == want && m["status"] != "True" {
				msg, _ := m["message"].(string)
				return fmt.Sprintf("%s: %s", want, msg)
			}
		}
	}
	return "waiting for its status"
}
