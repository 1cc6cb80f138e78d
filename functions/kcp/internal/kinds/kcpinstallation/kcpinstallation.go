// Package kcpinstallation composes a KcpInstallation: the per-kind XRs (RootShard, Shards,
// CacheServer, FrontProxies, an admin Kubeconfig) of one kcp installation, and a status a
// tenant can read without looking at them.
//
// Every child is built as its typed spec and checked with its own kind's validation before
// anything is composed, so an installation never produces a child its composer would reject;
// a child's error is reported against the installation field it came from.
package kcpinstallation

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation/exposure"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation/managedetcd"
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

// ValidateXR checks an XR of one of this function's kinds with that kind's own validation.
// fn.go's table of kinds provides it, so this package composes its children from the API
// types and the names alone, and still never composes one its kind would reject.
type ValidateXR func(kind string, xr any) field.ErrorList

// Composer returns the composer of KcpInstallations whose children validate checks, and
// whose renderers write the flags flags lists.
func Composer(validate ValidateXR, flags FlagsOf) func(*v1alpha1.KcpInstallation, *observed.State) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
	return func(inst *v1alpha1.KcpInstallation, st *observed.State) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
		return Compose(inst, st, validate, flags)
	}
}

// child is one XR the installation composes, with the installation field it comes from.
type child struct {
	key   resource.Name
	kind  string
	field *field.Path
	// xr is the child as its kind's API type (*v1alpha1.RootShard, ...), named in the
	// installation's namespace: what the kind's validation and renderer read, and whose spec
	// is composed.
	xr metav1.Object
	// component is the installation field of the component (spec.rootShard, spec.shards[0],
	// ...), and extra what the tenant added to its container there; nil for none.
	component *field.Path
	extra     *v1alpha1.ComponentExtra
	// route and exposure: a front-proxy's TLSRoute or Ingress, when it has one.
	route    exposure.Route
	exposure *v1alpha1.FrontProxyExposure
}

// name is the child XR's name.
func (c child) name() string { return c.xr.GetName() }

// routeKey is the composition resource name of a front-proxy's TLSRoute or Ingress.
func (c child) routeKey() resource.Name { return resource.Name("exposure-" + c.name()) }

// Compose composes the installation's XRs, each checked by validate, and reports their
// readiness.
func Compose(inst *v1alpha1.KcpInstallation, st *observed.State, validate ValidateXR, flags FlagsOf) (result.Result[v1alpha1.KcpInstallationStatus], field.ErrorList) {
	var r result.Result[v1alpha1.KcpInstallationStatus]
	errs, cacheWarnings := checkEmbeddedCache(inst, st)
	if len(errs) > 0 {
		return r, errs
	}
	children, etcds, errs := build(inst, validate)
	errs = append(errs, checkExtras(children, flags)...)
	if len(errs) > 0 {
		return r, errs
	}
	hosts := servedHostnames(inst, children)
	if errs := checkSafe(inst, children, etcds, st); len(errs) > 0 {
		return r, errs
	}
	if errs := checkHostnames(inst, hosts, st); len(errs) > 0 {
		return r, errs
	}
	errs, r.Warnings = checkCacheKeyspace(inst, children, st)
	if len(errs) > 0 {
		return r, errs
	}
	r.Warnings = append(r.Warnings, cacheWarnings...)
	upgrade, image, err := planUpgrade(inst, children, st)
	if err != nil {
		return r, field.ErrorList{err}
	}
	r.Status.Image, r.Status.Upgrade = image, upgrade
	// What the checks read; Crossplane answers before it applies anything composed below.
	r.Requirements = append([]result.Requirement{policy.Requirement}, takeoverRequirements(etcds, children)...)
	r.Requirements = append(r.Requirements, hostnameRequirements(hosts, children)...)
	var waiting []string
	b := builder.New(inst.GetName(), inst.GetNamespace(), st)
	for _, etcd := range etcds {
		ready, why := etcd.Compose(b)
		if w := etcd.ComposeMonitoring(b); w != "" {
			r.Warnings = append(r.Warnings, w)
		}
		comp := v1alpha1.InstallationComponent{Kind: "StatefulSet", Name: etcd.Name(), Ready: ready, Message: why}
		if !ready {
			waiting = append(waiting, "etcd "+etcd.Name())
		}
		r.Status.Components = append(r.Status.Components, comp)
		if bk := etcd.BackupStatus(b); bk != nil {
			r.Status.Backups = append(r.Status.Backups, *bk)
		}
	}
	for _, c := range children {
		labels := hostnameLabels(c, hosts) // the index other installations find its names by
		labels[LabelInstallation] = inst.GetName()
		ready, err := b.XROf(c.key, c.kind, labels, c.xr)
		if err != nil {
			return r, field.ErrorList{field.InternalError(c.field, err)}
		}
		if c.exposure != nil {
			// Ready once it exists: whether the Gateway or Ingress controller has taken it up
			// is the platform's to watch, and no client can tell it from outside anyway.
			b.Set.Add(c.routeKey(), c.route.Object(c.exposure), builder.Readiness(st.Exists(c.routeKey())))
		}
		comp := v1alpha1.InstallationComponent{Kind: c.kind, Name: c.name(), Ready: ready}
		if !ready {
			comp.Message = notReadyMessage(st, c.key)
			waiting = append(waiting, c.kind+" "+c.name())
		}
		r.Status.Components = append(r.Status.Components, comp)
	}

	fp := children[firstFrontProxy(children)]
	r.Status.URL = st.String(fp.key, "status", "url")
	if r.Status.URL == "" {
		r.Status.URL = names.ExternalURL(fp.xr.(*v1alpha1.FrontProxy).Spec.External)
	}
	r.Desired = b.Set
	// What the composing read: prometheus-operator's CRD, for the etcd clusters' PodMonitors.
	r.Requirements = append(r.Requirements, b.Inputs.Requirements()...)
	r.Status.KubeconfigSecret = names.Installation(inst.GetName()).AdminKubeconfigSecret(inst.Spec.Admin)
	r.Status.Phase = v1alpha1.PhaseRunning
	ready := condition.Condition{Type: TypeComponentsReady, Status: true, Reason: "Ready", Message: fmt.Sprintf("All %d components are Ready.", len(r.Status.Components))}
	if upgrade != nil {
		// A rollout under way leaves components not Ready; say that it is an upgrade, and
		// which step, rather than only that they are not Ready.
		waiting = append([]string{fmt.Sprintf("the upgrade to %s, at step %s (status.upgrade)", upgrade.To, upgrade.Step)}, waiting...)
	}
	if len(waiting) > 0 {
		r.Status.Phase = v1alpha1.PhaseProvisioning
		r.NotReady = true
		ready = condition.Condition{Type: TypeComponentsReady, Status: false, Reason: "Provisioning", Message: "Not Ready yet: " + strings.Join(waiting, ", ") + " (status.components says why)."}
	}
	r.Conditions = append(r.Conditions, ready)
	return r, nil
}

// checkSafe holds what a tenant, who may write only KcpInstallations, must not do through
// one: use issuers the platform did not allow, or compose over objects this installation does
// not control.
func checkSafe(inst *v1alpha1.KcpInstallation, children []child, etcds []*managedetcd.Cluster, st *observed.State) field.ErrorList {
	errs := checkNames(inst.Spec)
	pol, known, err := policy.Read(st)
	switch {
	case err != nil:
		errs = append(errs, field.Forbidden(field.NewPath("spec", "certificates", "issuerRef"), err.Error()))
	case known:
		errs = append(errs, checkIssuers(inst, pol)...)
		errs = append(errs, checkGateways(inst, pol)...)
		errs = append(errs, checkFeatures(inst, pol)...)
		errs = append(errs, checkLimits(inst, pol)...)
	}
	errs = append(errs, checkTakeover(inst, children, etcds, st)...)
	if len(errs) > 0 {
		return errs // a taken or reserved name also shares derived names: say it once
	}
	own := namers(inst)
	if errs := checkOwnNames(own); len(errs) > 0 {
		return errs
	}
	return checkNeighbours(inst, own, st)
}

// build derives every child XR's spec from the installation and validates it, and returns
// the managed etcd clusters: the installation's unless it uses an external etcd, and each
// shard's own (spec.shards[].managedEtcd). The children come in the order the installation's
// status lists them: the cache server, the root shard (after its virtual workspace server),
// each shard (after its own), the front-proxies, the admin kubeconfig.
func build(inst *v1alpha1.KcpInstallation, validate ValidateXR) ([]child, []*managedetcd.Cluster, field.ErrorList) {
	p := newPlan(inst)
	if inst.Spec.External.Hostname == "" {
		p.errs = append(p.errs, field.Required(field.NewPath("spec", "external", "hostname"), "the public hostname of the installation"))
	}
	fps := inst.Spec.FrontProxies
	if len(fps) == 0 {
		fps = []v1alpha1.InstallationFrontProxy{{Name: DefaultFrontProxyName}}
	}
	cache := p.cacheServer()
	p.rootShard(cache, fps[0])
	for i, sh := range inst.Spec.Shards {
		p.shard(i, sh)
	}
	for i, fp := range fps {
		p.frontProxy(i, fp)
	}
	p.admin(fps[0])
	for _, c := range p.children {
		if k, ok := c.xr.(v1alpha1.KcpServer); ok {
			k.SetImage(inst.Spec.Image) // planUpgrade holds some back while an upgrade rolls out
		}
		p.errs = append(p.errs, validateChild(c, validate)...)
	}
	return p.children, p.etcds, p.errs
}

// plan is what build derives for every component alike, and the children, etcd clusters and
// errors gathered so far.
type plan struct {
	inst     *v1alpha1.KcpInstallation
	name     names.Installation
	external v1alpha1.ExternalConfig
	// store is where a component's data lives in the installation's etcd ("" for the root
	// shard and the cache server).
	store    func(shard string) v1alpha1.EtcdConfig
	children []child
	etcds    []*managedetcd.Cluster
	errs     field.ErrorList
}

func newPlan(inst *v1alpha1.KcpInstallation) *plan {
	p := &plan{inst: inst, name: names.Installation(inst.GetName()), external: externalConfig(inst.Spec.External)}
	var etcd *managedetcd.Cluster
	p.store, etcd = etcdStore(inst)
	if etcd != nil {
		p.etcds = append(p.etcds, etcd)
	}
	return p
}

// meta names a child in the installation's namespace.
func (p *plan) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: p.inst.GetNamespace()}
}

// cacheServer adds the CacheServer, when the installation has one, and returns what the
// root shard's cache configuration says of it.
func (p *plan) cacheServer() v1alpha1.CacheConfig {
	s := p.inst.Spec
	if s.CacheServer == nil {
		return v1alpha1.CacheConfig{}
	}
	csName := p.name.CacheServer()
	cs := v1alpha1.CacheServerSpec{Upgrade: s.Upgrade, ClusterDomain: s.ClusterDomain, Etcd: s.CacheServer.Etcd}
	if cs.Etcd == nil && !s.CacheServer.Embedded {
		// Durable by default: beside the shards' data, under a prefix of its own.
		e := p.store("")
		e.Prefix = CachePrefix(e.Prefix)
		cs.Etcd = &e
	}
	cs.DeploymentTemplate = s.CacheServer.Scheduling.Over(s.Scheduling).DeploymentTemplate()
	if x := s.CacheServer.Extra; x != nil {
		cs.ExtraArgs, cs.ExtraVolumes, cs.ExtraVolumeMounts, cs.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
	}
	cs.Certificates = s.Certificates
	f := field.NewPath("spec", "cacheServer")
	xr := &v1alpha1.CacheServer{ObjectMeta: p.meta(csName), Spec: cs}
	p.children = append(p.children, child{key: cacheServerKey, kind: v1alpha1.KindCacheServer, field: f, xr: xr, component: f, extra: s.CacheServer.Extra})
	return v1alpha1.CacheConfig{Ref: &corev1.LocalObjectReference{Name: csName}}
}

// common is what every shard, the root shard included, has alike: authentication, audit,
// authorization and monitoring are the installation's.
func (p *plan) common(etcd v1alpha1.EtcdConfig, replicas *int32, res *corev1.ResourceRequirements, x *v1alpha1.ComponentExtra, prof *v1alpha1.Profiling) v1alpha1.CommonShardSpec {
	s := p.inst.Spec
	c := v1alpha1.CommonShardSpec{
		ClusterDomain: s.ClusterDomain, Etcd: etcd, Replicas: replicas, Resources: res,
		Auth: s.Auth, Audit: s.Audit, Authorization: s.Authorization, Monitoring: s.Monitoring, Upgrade: s.Upgrade,
		ObjectLimit: s.ObjectLimit, HomeWorkspaces: s.HomeWorkspaces, Batteries: s.Batteries, Profiling: prof.Over(s.Profiling),
		Encryption: s.Encryption,
	}
	if x != nil {
		c.ExtraArgs, c.ExtraVolumes, c.ExtraVolumeMounts, c.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
	}
	return c
}

// rootShard adds the RootShard, after its virtual workspace server when it has one; first is
// the first front-proxy, whose Service is the installation's private address.
func (p *plan) rootShard(cache v1alpha1.CacheConfig, first v1alpha1.InstallationFrontProxy) {
	s := p.inst.Spec
	spec := field.NewPath("spec")
	rs := v1alpha1.RootShardSpec{External: p.external, Cache: cache, Certificates: s.Certificates}
	rs.External.PrivateHostname, rs.External.PrivatePort = privateAddress(p.inst, first, p.external)
	if r := s.RootShard; r != nil {
		rs.CommonShardSpec = p.common(p.store(""), r.Replicas, r.Resources, r.Extra, r.Profiling)
		rs.ShardBaseURL = r.ShardBaseURL
		rs.Public, rs.ServiceTemplate = public(r.Public)
		rs.DeploymentTemplate = r.Scheduling.Over(s.Scheduling).DeploymentTemplate()
	} else {
		rs.CommonShardSpec = p.common(p.store(""), nil, nil, nil, nil)
		rs.DeploymentTemplate = s.Scheduling.DeploymentTemplate()
	}
	// The root shard's internal proxy runs beside it: the same image (SetImage), the same
	// nodes.
	if s.Image != nil || rs.DeploymentTemplate != nil {
		rs.Proxy = &v1alpha1.RootShardProxySpec{DeploymentTemplate: rs.DeploymentTemplate}
	}
	if r := s.RootShard; r != nil && r.VirtualWorkspace != nil {
		vw, errs := p.virtualWorkspace(r.VirtualWorkspace, "", spec.Child("rootShard", "virtualWorkspace"))
		p.errs = append(p.errs, errs...)
		rs.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: vw.name()}
		p.children = append(p.children, vw)
	}
	xr := &v1alpha1.RootShard{ObjectMeta: p.meta(p.name.RootShard()), Spec: rs}
	rootShard := child{key: rootShardKey, kind: v1alpha1.KindRootShard, field: spec, xr: xr, component: spec.Child("rootShard")}
	if s.RootShard != nil {
		rootShard.extra = s.RootShard.Extra
	}
	p.children = append(p.children, rootShard)
}

// root is the reference every Shard and FrontProxy makes to the root shard.
func (p *plan) root() v1alpha1.RootShardConfig {
	return v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: p.name.RootShard()}}
}

// shard adds spec.shards[i], after its virtual workspace server when it has one, and its own
// etcd cluster when it has managedEtcd.
func (p *plan) shard(i int, sh v1alpha1.InstallationShard) {
	s := p.inst.Spec
	shardEtcd := p.store(sh.Name)
	switch {
	case sh.Etcd != nil:
		shardEtcd = *sh.Etcd
	case sh.ManagedEtcd != nil:
		own := shardCluster(p.inst, sh)
		p.etcds = append(p.etcds, own)
		shardEtcd = own.Client("") // alone in it: no prefix needed
	}
	spec := v1alpha1.ShardSpec{CommonShardSpec: p.common(shardEtcd, sh.Replicas, sh.Resources, sh.Extra, sh.Profiling), RootShard: p.root()}
	spec.ShardBaseURL = sh.ShardBaseURL
	spec.Public, spec.ServiceTemplate = public(sh.Public)
	spec.DeploymentTemplate = sh.Scheduling.Over(s.Scheduling).DeploymentTemplate()
	shardField := field.NewPath("spec", "shards").Index(i)
	if sh.VirtualWorkspace != nil {
		vw, errs := p.virtualWorkspace(sh.VirtualWorkspace, sh.Name, shardField.Child("virtualWorkspace"))
		p.errs = append(p.errs, errs...)
		spec.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: vw.name()}
		p.children = append(p.children, vw)
	}
	xr := &v1alpha1.Shard{ObjectMeta: p.meta(p.name.Shard(sh.Name)), Spec: spec}
	p.children = append(p.children, child{key: resource.Name("shard-" + sh.Name), kind: v1alpha1.KindShard, field: shardField, xr: xr, component: shardField, extra: sh.Extra})
}

// frontProxy adds spec.frontProxies[i] (the default front-proxy when there is none), with
// the TLSRoute or Ingress that exposes it.
func (p *plan) frontProxy(i int, fp v1alpha1.InstallationFrontProxy) {
	s := p.inst.Spec
	f := field.NewPath("spec", "frontProxies").Index(i)
	ext := p.external
	switch {
	case fp.External != nil:
		ext = externalConfig(*fp.External)
		if fp.External.PrivateHostname != "" || fp.External.PrivatePort != nil {
			p.errs = append(p.errs, field.Forbidden(f.Child("external", "privateHostname"), "the private address is the installation's, not a front-proxy's: set spec.external.privateHostname and privatePort instead"))
		}
	case i > 0:
		p.errs = append(p.errs, field.Required(f.Child("external"), "every front-proxy but the first needs its own public address"))
	}
	svc := exposure.ServiceType(fp.Exposure, fp.ServiceType)
	if e := fp.Exposure; e != nil && e.Ingress != nil && ext.Port != exposure.IngressPort {
		portField := field.NewPath("spec", "external", "port")
		if fp.External != nil {
			portField = f.Child("external", "port")
		}
		p.errs = append(p.errs, field.Invalid(portField, ext.Port, fmt.Sprintf("an Ingress controller passes TLS through on port %d only: set it to %d, the port clients then use", exposure.IngressPort, exposure.IngressPort)))
	}
	spec := v1alpha1.FrontProxySpec{
		RootShard:          p.root(),
		Replicas:           fp.Replicas,
		Auth:               fp.Auth,
		Upgrade:            s.Upgrade,
		External:           ext,
		ServiceTemplate:    &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{Type: svc}},
		DeploymentTemplate: fp.Scheduling.Over(s.Scheduling).DeploymentTemplate(),
		Resources:          fp.Resources,
		Monitoring:         s.Monitoring,
		Profiling:          fp.Profiling.Over(s.Profiling),
	}
	if x := fp.Extra; x != nil {
		spec.ExtraArgs, spec.ExtraVolumes, spec.ExtraVolumeMounts, spec.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
	}
	if sc := fp.ServerCertificate; sc != nil {
		// A second certificate for the public name only: the one from the installation's
		// CA keeps serving the in-cluster names, which kcp's components dial.
		spec.PublicServerCertificate = &v1alpha1.PublicServerCertificate{IssuerRef: sc.IssuerRef, DNSNames: sc.DNSNames}
		spec.CABundleSecretRef = sc.CABundleSecretRef
	}
	xr := &v1alpha1.FrontProxy{ObjectMeta: p.meta(p.name.FrontProxy(fp.Name)), Spec: spec}
	c := child{key: resource.Name("frontproxy-" + fp.Name), kind: v1alpha1.KindFrontProxy, field: f, xr: xr, exposure: fp.Exposure, component: f, extra: fp.Extra}
	// The FrontProxy's Service listens on its external port (kcp-operator's
	// frontproxy.ServicePort), 6443 when unset.
	port := int32(names.Port)
	if ext.Port > 0 {
		port = int32(ext.Port)
	}
	c.route = exposure.Route{
		Name: c.name(), Namespace: p.inst.GetNamespace(), Labels: map[string]string{LabelInstallation: p.inst.GetName()},
		Hostname: ext.Hostname, Service: names.FrontProxy(c.name()).Deployment(), Port: port,
	}
	p.children = append(p.children, c)
}

// admin adds the admin Kubeconfig, issued for the first front-proxy.
func (p *plan) admin(first v1alpha1.InstallationFrontProxy) {
	kc := v1alpha1.KubeconfigSpec{
		Target:    v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: p.name.FrontProxy(first.Name)}},
		Username:  DefaultAdminUsername,
		Groups:    []string{DefaultAdminGroup},
		SecretRef: corev1.LocalObjectReference{Name: p.name.AdminKubeconfigSecret(p.inst.Spec.Admin)},
		Validity:  metav1.Duration{Duration: DefaultAdminValidity},
	}
	if a := p.inst.Spec.Admin; a != nil {
		if a.Username != "" {
			kc.Username = a.Username
		}
		if len(a.Groups) > 0 {
			kc.Groups = a.Groups
		}
		if a.Validity != nil {
			kc.Validity = *a.Validity
		}
	}
	xr := &v1alpha1.Kubeconfig{ObjectMeta: p.meta(p.name.AdminKubeconfig()), Spec: kc}
	p.children = append(p.children, child{key: "kubeconfig-admin", kind: v1alpha1.KindKubeconfig, field: field.NewPath("spec", "admin"), xr: xr})
}

// virtualWorkspace is the VirtualWorkspace child serving the virtual workspaces of the root
// shard (shard "") or of a shard, outside it.
func (p *plan) virtualWorkspace(vw *v1alpha1.InstallationVirtualWorkspace, shard string, f *field.Path) (child, field.ErrorList) {
	var errs field.ErrorList
	if vw.External.PrivateHostname != "" || vw.External.PrivatePort != nil {
		errs = append(errs, field.Forbidden(f.Child("external", "privateHostname"), "the private address is the installation's, not a virtual workspace server's: set spec.external.privateHostname and privatePort instead"))
	}
	s := p.inst.Spec
	spec := v1alpha1.VirtualWorkspaceSpec{
		External: externalConfig(vw.External), Upgrade: s.Upgrade, Replicas: vw.Replicas, Resources: vw.Resources,
		ClusterDomain: s.ClusterDomain, DeploymentTemplate: vw.Scheduling.Over(s.Scheduling).DeploymentTemplate(),
		Profiling: vw.Profiling.Over(s.Profiling),
	}
	if shard == "" {
		spec.Target.RootShardRef = &corev1.LocalObjectReference{Name: p.name.RootShard()}
	} else {
		spec.Target.ShardRef = &corev1.LocalObjectReference{Name: p.name.Shard(shard)}
	}
	if x := vw.Extra; x != nil {
		spec.ExtraArgs, spec.ExtraVolumes, spec.ExtraVolumeMounts, spec.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
	}
	key := "virtualworkspace"
	if shard != "" {
		key += "-" + shard
	}
	xr := &v1alpha1.VirtualWorkspace{ObjectMeta: p.meta(p.name.VirtualWorkspace(shard)), Spec: spec}
	return child{key: resource.Name(key), kind: v1alpha1.KindVirtualWorkspace, field: f, xr: xr, component: f, extra: vw.Extra}, errs
}

// shardCluster is the etcd cluster a shard with managedEtcd has to itself.
func shardCluster(inst *v1alpha1.KcpInstallation, sh v1alpha1.InstallationShard) *managedetcd.Cluster {
	return &managedetcd.Cluster{
		Installation: inst.GetName(), Shard: sh.Name, Namespace: inst.GetNamespace(), ClusterDomain: inst.Spec.ClusterDomain,
		Spec: *sh.ManagedEtcd, Scheduling: sh.ManagedEtcd.Scheduling.Over(inst.Spec.Scheduling),
		Monitoring: inst.Spec.Monitoring, Profiling: sh.ManagedEtcd.Profiling.Over(inst.Spec.Profiling),
	}
}

// etcdStore returns where each shard stores its data (the root shard is ""), and the managed
// cluster if there is one. Shards that share the installation's etcd get a key prefix of
// their own: two kcp shards under one prefix would overwrite each other's data.
func etcdStore(inst *v1alpha1.KcpInstallation) (func(shard string) v1alpha1.EtcdConfig, *managedetcd.Cluster) {
	e := inst.Spec.Etcd
	if e != nil && e.External != nil {
		ext := *e.External
		return func(shard string) v1alpha1.EtcdConfig {
			out := ext
			if shard != "" {
				out.Prefix = ShardPrefix(ext.Prefix, shard)
			}
			return out
		}, nil
	}
	c := &managedetcd.Cluster{Installation: inst.GetName(), Namespace: inst.GetNamespace(), ClusterDomain: inst.Spec.ClusterDomain}
	c.Scheduling, c.Monitoring, c.Profiling = inst.Spec.Scheduling, inst.Spec.Monitoring, inst.Spec.Profiling
	if e != nil && e.Managed != nil {
		c.Spec = *e.Managed
		c.Scheduling = e.Managed.Scheduling.Over(inst.Spec.Scheduling)
		c.Profiling = e.Managed.Profiling.Over(inst.Spec.Profiling)
	}
	return func(shard string) v1alpha1.EtcdConfig {
		if shard == "" {
			return c.Client("")
		}
		return c.Client(ShardPrefix("", shard))
	}, c
}

// CachePrefix is the etcd key prefix of a cache server that shares the installation's etcd,
// beside the root shard's keys as a shard's are: /cache, or /kcp-cache beside a root prefix
// /kcp. "cache" is a reserved shard name, so no shard's prefix meets it.
func CachePrefix(rootPrefix string) string {
	root := strings.TrimSuffix(rootPrefix, "/")
	if root == "" {
		return "/cache"
	}
	return root + "-cache"
}

// ShardPrefix is the etcd key prefix of a shard that shares the installation's etcd: beside
// the root shard's keys, never inside them. kcp writes under <prefix>/, so /shards/<name> is
// beside the default /registry, and /kcp-shards/<name> beside a root prefix /kcp.
func ShardPrefix(rootPrefix, shard string) string {
	root := strings.TrimSuffix(rootPrefix, "/")
	if root == "" {
		return "/shards/" + shard
	}
	return root + "-shards/" + shard
}

// validateChild runs the child kind's own validation, and reports what it finds against
// the installation field the child comes from.
func validateChild(c child, validate ValidateXR) field.ErrorList {
	errs := validate(c.kind, c.xr)
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		msg := fmt.Sprintf("the %s %s this composes: %s", c.kind, c.name(), e.Error())
		if strings.HasPrefix(e.Field, "metadata.name") {
			// The child's name is derived: say what the installation's user can change.
			msg += "; shorten this KcpInstallation's metadata.name"
			if strings.HasSuffix(c.field.String(), "]") { // a shard or front-proxy: its own name counts too
				msg += " or " + c.field.Child("name").String()
			}
		}
		out = append(out, field.Invalid(c.field, e.BadValue, msg))
	}
	return out
}

// privateAddress is where kcp's components reach the installation from inside the cluster
// (a shard schedules a workspace through a front-proxy): spec.external's private address,
// else the first front-proxy's Service, whose certificate from the installation's CA covers
// that name. Through the public name, a shard would leave the cluster, and meet whatever
// certificate a public issuer gave the name.
func privateAddress(inst *v1alpha1.KcpInstallation, first v1alpha1.InstallationFrontProxy, external v1alpha1.ExternalConfig) (string, *uint32) {
	e := inst.Spec.External
	if e.PrivateHostname != "" {
		return e.PrivateHostname, e.PrivatePort
	}
	port := external.Port // the first front-proxy's Service port, as its FrontProxy composes it
	if first.External != nil {
		port = externalConfig(*first.External).Port
	}
	if e.PrivatePort != nil {
		port = *e.PrivatePort
	}
	svc := names.FrontProxy(names.Installation(inst.GetName()).FrontProxy(first.Name)).Deployment()
	return names.ServiceFQDN(svc, inst.GetNamespace(), inst.Spec.ClusterDomain), &port
}

// public is a shard's public endpoint and the Service that exposes it (LoadBalancer unless
// set).
func public(p *v1alpha1.InstallationPublic) (*v1alpha1.PublicEndpoint, *v1alpha1.ServiceTemplate) {
	if p == nil {
		return nil, nil
	}
	svc := p.ServiceType
	if svc == "" {
		svc = corev1.ServiceTypeLoadBalancer
	}
	endpoint := p.PublicEndpoint
	return &endpoint, &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{Type: svc}}
}

func externalConfig(e v1alpha1.InstallationExternal) v1alpha1.ExternalConfig {
	port := e.Port
	if port == 0 {
		port = names.Port
	}
	return v1alpha1.ExternalConfig{Hostname: e.Hostname, Port: port}
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
