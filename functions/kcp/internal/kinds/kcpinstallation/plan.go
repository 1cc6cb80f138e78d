package kcpinstallation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation/exposure"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
)

// newPlan derives every child XR's spec from the installation alone, reads no observed
// state, and checks each child with its own kind's checks. With errors (p.errs, which the
// refusal planned reports), nothing of the plan may be composed. The children come in the
// order the installation's status lists them: the cache server, the root shard (after its
// virtual workspace server), each shard (after its own), the front-proxies, the admin
// kubeconfig.
func newPlan(inst *v1alpha1.KcpInstallation, kinds Kinds) *plan {
	p := &plan{inst: inst, kinds: kinds, name: names.Installation(inst.GetName()), external: externalConfig(inst.Spec.External)}
	var cluster *etcd.Cluster
	p.store, cluster = etcdStore(inst)
	if cluster != nil {
		p.etcds = append(p.etcds, *cluster)
	}
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
		p.errs = append(p.errs, validateChild(c)...)
	}
	p.errs = append(p.errs, checkExtras(p.children)...)
	if len(p.errs) == 0 {
		p.hosts, p.namers = servedHostnames(inst, p.children), namers(inst)
	}
	return p
}

// plan is what an installation composes, derived from its spec alone: the children, the
// managed etcd clusters (the installation's unless it uses an external etcd, and each
// shard's own), the public names they serve, and what newPlan needs while it derives them.
type plan struct {
	inst     *v1alpha1.KcpInstallation
	kinds    Kinds
	name     names.Installation
	external v1alpha1.ExternalConfig
	// store is where a component's data lives in the installation's etcd ("" for the root
	// shard and the cache server).
	store    func(shard string) v1alpha1.EtcdConfig
	children []child
	etcds    []etcd.Cluster
	hosts    []served
	// namers are the names every part may give an object.
	namers []namer
	// errs are what the children's kinds, and the checks of extras, refuse.
	errs field.ErrorList
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
	cs := v1alpha1.CacheServerSpec{Upgrade: s.Upgrade, ClusterDomain: s.ClusterDomain, Etcd: s.CacheServer.Etcd, Replicas: s.CacheServer.Replicas}
	if cs.Etcd == nil && !s.CacheServer.Embedded {
		// Durable by default: beside the shards' data, under a prefix of its own.
		e := p.store("")
		e.Prefix = CachePrefix(e.Prefix)
		cs.Etcd = &e
	}
	cs.DeploymentTemplate = s.CacheServer.Extra.Pod(s.CacheServer.Scheduling.Over(s.Scheduling).DeploymentTemplate())
	if x := s.CacheServer.Extra; x != nil {
		cs.ExtraArgs, cs.ExtraVolumes, cs.ExtraVolumeMounts, cs.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
		cs.PodDisruptionBudget = x.PodDisruptionBudget
	}
	cs.Certificates = s.Certificates
	f := field.NewPath("spec", "cacheServer")
	xr := &v1alpha1.CacheServer{ObjectMeta: p.meta(csName), Spec: cs}
	p.children = append(p.children, child{key: cacheServerKey, kind: v1alpha1.KindCacheServer, field: f, xr: xr, component: f, extra: s.CacheServer.Extra, checks: bound[*v1alpha1.CacheServer]{p.kinds.CacheServer, xr}})
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
		c.PodDisruptionBudget = x.PodDisruptionBudget
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
	scheduling := s.Scheduling.DeploymentTemplate()
	var extra *v1alpha1.ComponentExtra
	if r := s.RootShard; r != nil {
		rs.CommonShardSpec = p.common(p.store(""), r.Replicas, r.Resources, r.Extra, r.Profiling)
		rs.ShardBaseURL = r.ShardBaseURL
		rs.Public, rs.ServiceTemplate = public(r.Public)
		scheduling, extra = r.Scheduling.Over(s.Scheduling).DeploymentTemplate(), r.Extra
	} else {
		rs.CommonShardSpec = p.common(p.store(""), nil, nil, nil, nil)
	}
	rs.DeploymentTemplate = extra.Pod(scheduling)
	// The root shard's internal proxy runs beside it: the same image (SetImage), the same
	// nodes. What rootShard.extra adds is the root shard's own.
	if s.Image != nil || scheduling != nil {
		rs.Proxy = &v1alpha1.RootShardProxySpec{DeploymentTemplate: scheduling}
	}
	if r := s.RootShard; r != nil && r.VirtualWorkspace != nil {
		vw, errs := p.virtualWorkspace(r.VirtualWorkspace, "", spec.Child("rootShard", "virtualWorkspace"))
		p.errs = append(p.errs, errs...)
		rs.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: vw.name()}
		p.children = append(p.children, vw)
	}
	xr := &v1alpha1.RootShard{ObjectMeta: p.meta(p.name.RootShard()), Spec: rs}
	rootShard := child{key: rootShardKey, kind: v1alpha1.KindRootShard, field: spec, xr: xr, component: spec.Child("rootShard"), checks: bound[*v1alpha1.RootShard]{p.kinds.RootShard, xr}}
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
	spec.DeploymentTemplate = sh.Extra.Pod(sh.Scheduling.Over(s.Scheduling).DeploymentTemplate())
	shardField := field.NewPath("spec", "shards").Index(i)
	if sh.VirtualWorkspace != nil {
		vw, errs := p.virtualWorkspace(sh.VirtualWorkspace, sh.Name, shardField.Child("virtualWorkspace"))
		p.errs = append(p.errs, errs...)
		spec.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: vw.name()}
		p.children = append(p.children, vw)
	}
	xr := &v1alpha1.Shard{ObjectMeta: p.meta(p.name.Shard(sh.Name)), Spec: spec}
	p.children = append(p.children, child{key: resource.Name("shard-" + sh.Name), kind: v1alpha1.KindShard, field: shardField, xr: xr, component: shardField, extra: sh.Extra, checks: bound[*v1alpha1.Shard]{p.kinds.Shard, xr}})
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
	p.errs = append(p.errs, checkService(f.Child("service"), svc, fp.Service)...)
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
		ServiceTemplate:    frontProxyService(svc, fp.Service),
		DeploymentTemplate: fp.Extra.Pod(fp.Scheduling.Over(s.Scheduling).DeploymentTemplate()),
		Resources:          fp.Resources,
		Monitoring:         s.Monitoring,
		Profiling:          fp.Profiling.Over(s.Profiling),
	}
	if x := fp.Extra; x != nil {
		spec.ExtraArgs, spec.ExtraVolumes, spec.ExtraVolumeMounts, spec.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
		spec.PodDisruptionBudget = x.PodDisruptionBudget
	}
	if sc := fp.ServerCertificate; sc != nil {
		// A second certificate for the public name only: the one from the installation's
		// CA keeps serving the in-cluster names, which kcp's components dial.
		spec.PublicServerCertificate = &v1alpha1.PublicServerCertificate{IssuerRef: sc.IssuerRef, DNSNames: sc.DNSNames}
		spec.CABundleSecretRef = sc.CABundleSecretRef
	}
	xr := &v1alpha1.FrontProxy{ObjectMeta: p.meta(p.name.FrontProxy(fp.Name)), Spec: spec}
	c := child{key: resource.Name("frontproxy-" + fp.Name), kind: v1alpha1.KindFrontProxy, field: f, xr: xr, exposure: fp.Exposure, component: f, extra: fp.Extra, checks: bound[*v1alpha1.FrontProxy]{p.kinds.FrontProxy, xr}}
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
	p.children = append(p.children, child{key: "kubeconfig-admin", kind: v1alpha1.KindKubeconfig, field: field.NewPath("spec", "admin"), xr: xr, checks: bound[*v1alpha1.Kubeconfig]{p.kinds.Kubeconfig, xr}})
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
		ClusterDomain: s.ClusterDomain, DeploymentTemplate: vw.Extra.Pod(vw.Scheduling.Over(s.Scheduling).DeploymentTemplate()),
		Profiling: vw.Profiling.Over(s.Profiling),
	}
	if shard == "" {
		spec.Target.RootShardRef = &corev1.LocalObjectReference{Name: p.name.RootShard()}
	} else {
		spec.Target.ShardRef = &corev1.LocalObjectReference{Name: p.name.Shard(shard)}
	}
	if x := vw.Extra; x != nil {
		spec.ExtraArgs, spec.ExtraVolumes, spec.ExtraVolumeMounts, spec.Logging = x.Args, x.CoreVolumes(), x.VolumeMounts, x.Logging
		spec.PodDisruptionBudget = x.PodDisruptionBudget
	}
	key := "virtualworkspace"
	if shard != "" {
		key += "-" + shard
	}
	xr := &v1alpha1.VirtualWorkspace{ObjectMeta: p.meta(p.name.VirtualWorkspace(shard)), Spec: spec}
	return child{key: resource.Name(key), kind: v1alpha1.KindVirtualWorkspace, field: f, xr: xr, component: f, extra: vw.Extra, checks: bound[*v1alpha1.VirtualWorkspace]{p.kinds.VirtualWorkspace, xr}}, errs
}

// child is one XR the installation composes, with the installation field it comes from.
type child struct {
	key   resource.Name
	kind  string
	field *field.Path
	// xr is the child as its kind's API type (*v1alpha1.RootShard, ...), named in the
	// installation's namespace: what the kind's validation and renderer read, and whose spec
	// is composed.
	xr v1alpha1.XR
	// component is the installation field of the component (spec.rootShard, spec.shards[0],
	// ...), and extra what the tenant added to its container there; nil for none.
	component *field.Path
	extra     *v1alpha1.ComponentExtra
	// route and exposure: a front-proxy's TLSRoute or Ingress, when it has one.
	route    exposure.Route
	exposure *v1alpha1.FrontProxyExposure
	// kind's own checks, bound to xr.
	checks checks
}

// checks are a child's own kind's validation and the flags its renderer writes, bound to the
// child's typed XR (bound).
type checks interface {
	validate() field.ErrorList
	flags() []string
}

// bound is kind's checks bound to xr; a nil check finds nothing.
type bound[PX any] struct {
	kind Kind[PX]
	xr   PX
}

func (b bound[PX]) validate() field.ErrorList {
	if b.kind.Validate == nil {
		return nil
	}
	return b.kind.Validate(b.xr)
}

func (b bound[PX]) flags() []string {
	if b.kind.Flags == nil {
		return nil
	}
	return b.kind.Flags(b.xr)
}

// name is the child XR's name.
func (c child) name() string { return c.xr.GetName() }

// routeKey is the composition resource name of a front-proxy's TLSRoute or Ingress.
func (c child) routeKey() resource.Name { return resource.Name("exposure-" + c.name()) }

// shardCluster is the etcd cluster a shard with managedEtcd has to itself.
func shardCluster(inst *v1alpha1.KcpInstallation, sh v1alpha1.InstallationShard) etcd.Cluster {
	return etcd.Cluster{
		Names: names.Etcd{Installation: inst.GetName(), Shard: sh.Name}, Namespace: inst.GetNamespace(), ClusterDomain: inst.Spec.ClusterDomain,
		Spec: *sh.ManagedEtcd, Scheduling: sh.ManagedEtcd.Scheduling.Over(inst.Spec.Scheduling),
		Profiling: sh.ManagedEtcd.Profiling.Over(inst.Spec.Profiling),
	}
}

// validateChild runs the child kind's own validation, and reports what it finds against
// the installation field the child comes from.
func validateChild(c child) field.ErrorList {
	errs := c.checks.validate()
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
