package kcpinstallation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
)

// checkGateways refuses every Gateway of another namespace the policy does not allow: the
// route would claim a hostname on the platform's shared entry point, which a tenant's own
// rights need not reach.
func checkGateways(inst *v1alpha1.KcpInstallation, p policy.Policy) field.ErrorList {
	var errs field.ErrorList
	for i, fp := range inst.Spec.FrontProxies {
		if fp.Exposure == nil || fp.Exposure.Gateway == nil {
			continue
		}
		g := fp.Exposure.Gateway
		if p.AllowsGateway(inst.GetNamespace(), g.Namespace, g.Name) {
			continue
		}
		errs = append(errs, field.Forbidden(field.NewPath("spec", "frontProxies").Index(i).Child("exposure", "gateway"), fmt.Sprintf(
			"Gateway %s/%s is not allowed for installations in namespace %s by the platform's policy (%s %s, data.gateways); use a Gateway in namespace %s, or ask the platform team to allow this one there",
			g.Namespace, g.Name, inst.GetNamespace(), policy.Kind, policy.Name, inst.GetNamespace())))
	}
	return errs
}

// checkFeatures refuses every feature the installation turns on that the policy does not
// allow in its namespace, naming each field that turns it on.
func checkFeatures(inst *v1alpha1.KcpInstallation, p policy.Policy) field.ErrorList {
	var errs field.ErrorList
	ns := inst.GetNamespace()
	refuse := func(path *field.Path, f policy.Feature, what string) {
		if p.AllowsFeature(ns, f) {
			return
		}
		errs = append(errs, field.Forbidden(path, fmt.Sprintf(
			"%s is not allowed for installations in namespace %s by the platform's policy (%s %s, data.features.%s); remove it, or ask the platform team to allow it there",
			what, ns, policy.Kind, policy.Name, f)))
	}
	spec := field.NewPath("spec")
	s := inst.Spec
	if a := s.Audit; a != nil && a.Log != nil {
		refuse(spec.Child("audit", "log"), policy.FeatureAuditLogs, "an audit log")
	}
	if s.Monitoring.On() {
		refuse(spec.Child("monitoring"), policy.FeatureMonitoring, "monitoring")
	}
	profiling := func(path *field.Path, pr *v1alpha1.Profiling) {
		if pr.On() {
			refuse(path, policy.FeatureProfiling, "profiling")
		}
	}
	profiling(spec.Child("profiling"), s.Profiling)
	if e := s.Etcd; e != nil && e.Managed != nil {
		profiling(spec.Child("etcd", "managed", "profiling"), e.Managed.Profiling)
	}
	if r := s.RootShard; r != nil {
		profiling(spec.Child("rootShard", "profiling"), r.Profiling)
		if r.VirtualWorkspace != nil {
			profiling(spec.Child("rootShard", "virtualWorkspace", "profiling"), r.VirtualWorkspace.Profiling)
		}
	}
	for i, sh := range s.Shards {
		profiling(spec.Child("shards").Index(i).Child("profiling"), sh.Profiling)
		if sh.ManagedEtcd != nil {
			profiling(spec.Child("shards").Index(i).Child("managedEtcd", "profiling"), sh.ManagedEtcd.Profiling)
		}
		if sh.VirtualWorkspace != nil {
			profiling(spec.Child("shards").Index(i).Child("virtualWorkspace", "profiling"), sh.VirtualWorkspace.Profiling)
		}
	}
	for i, fp := range s.FrontProxies {
		f := spec.Child("frontProxies").Index(i)
		profiling(f.Child("profiling"), fp.Profiling)
		if sv := fp.Service; sv != nil {
			for _, set := range []struct {
				name string
				on   bool
			}{
				{"annotations", len(sv.Annotations) > 0}, {"loadBalancerIP", sv.LoadBalancerIP != ""},
				{"loadBalancerClass", sv.LoadBalancerClass != ""}, {"nodePort", sv.NodePort != 0},
			} {
				if set.on {
					refuse(f.Child("service", set.name), policy.FeatureLoadBalancers, "a front-proxy Service's "+set.name)
				}
			}
		}
	}
	return errs
}

// checkIssuers refuses every issuer reference of the installation that the policy does not
// allow in its namespace, naming the field and the policy. It holds in every namespace, the
// platform's included: an installation names its issuers, not a template of them.
func checkIssuers(inst *v1alpha1.KcpInstallation, p policy.Policy) field.ErrorList {
	var errs field.ErrorList
	check := func(path *field.Path, ref *v1alpha1.ObjectReference) {
		errs = append(errs, p.CheckIssuer(path, inst.GetNamespace(), "installations", ref)...)
	}
	check(field.NewPath("spec", "certificates", "issuerRef"), inst.Spec.Certificates.IssuerRef)
	if r := inst.Spec.RootShard; r != nil && r.Public != nil && r.Public.ServerCertificate != nil {
		check(field.NewPath("spec", "rootShard", "public", "serverCertificate", "issuerRef"), &r.Public.ServerCertificate.IssuerRef)
	}
	for i, sh := range inst.Spec.Shards {
		if sh.Public != nil && sh.Public.ServerCertificate != nil {
			check(field.NewPath("spec", "shards").Index(i).Child("public", "serverCertificate", "issuerRef"), &sh.Public.ServerCertificate.IssuerRef)
		}
	}
	for i, fp := range inst.Spec.FrontProxies {
		if fp.ServerCertificate != nil {
			check(field.NewPath("spec", "frontProxies").Index(i).Child("serverCertificate", "issuerRef"), &fp.ServerCertificate.IssuerRef)
		}
	}
	return errs
}
