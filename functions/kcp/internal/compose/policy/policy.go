// Package policy reads the platform's policy for what tenants compose (the EnvironmentConfig
// kcp-self-service) and holds to it every certificate a tenant's XR can cause: the issuers an
// XR may name (issuers.go), what a Kubeconfig's certificate template may change (template.go),
// and, in one table, every kind a tenant can write and how its certificates are held
// (tenants.go). Every kind asks here, so one policy answers for all of them.
package policy

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// The platform's policy is an EnvironmentConfig: a cluster-scoped object that namespace
// users (edit, admin) cannot write, that Crossplane can already read, and that needs no CRD
// of ours.
const (
	APIVersion = "apiextensions.crossplane.io/v1beta1"
	Kind       = "EnvironmentConfig"
	Name       = "kcp-self-service"
)

// everyNamespace in a list of namespaces stands for all of them.
const everyNamespace = "*"

// Requirement reads the platform's policy.
var Requirement = result.Requirement{APIVersion: APIVersion, Kind: Kind, Name: Name, ClusterScoped: true}

// Policy is what the platform allows tenants' XRs beyond the default. By default an XR may
// only use cert-manager Issuers of its own namespace: a ClusterIssuer signs for every
// namespace (a CA ClusterIssuer would sign certificates whose keys the tenant reads), and
// issuers of other groups act with whatever rights their controllers have.
type Policy struct {
	// Issuers the policy allows, each in the namespaces it lists.
	Issuers []AllowedIssuer `json:"issuers,omitempty"`
	// Gateways of other namespaces that front-proxies may attach TLSRoutes to, each for the
	// namespaces it lists. A Gateway of the installation's own namespace is the tenant's.
	Gateways []AllowedGateway `json:"gateways,omitempty"`
	// Features are what installations may turn on beyond the default, each in the namespaces
	// it lists. An installation of a platform namespace may turn on every one.
	Features AllowedFeatures `json:"features,omitempty"`
	// Limits bound, in every namespace but the platform's, what an installation may spend
	// of what tenants share (limits.go). Defaults apply to what it does not set.
	Limits Limits `json:"limits,omitempty"`
	// Hostnames are the DNS names the platform keeps for itself (hostnames.go).
	Hostnames Hostnames `json:"hostnames,omitempty"`
	// PlatformNamespaces are the namespaces only the platform writes. Its XRs there keep
	// kcp-operator's freedom over certificate templates; every other namespace is a
	// tenant's. Exact names only: "*" would make every tenant the platform.
	PlatformNamespaces []string `json:"platformNamespaces,omitempty"`
}

// AllowedGateway allows installations in Namespaces to attach routes to one Gateway.
type AllowedGateway struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Namespaces whose installations may use it, or ["*"] for every namespace.
	Namespaces []string `json:"namespaces"`
}

// AllowedFeatures lists, per feature, the namespaces whose installations may turn it on, or
// ["*"] for every namespace. Each spends what the platform pays for or exposes what the
// platform guards, so a tenant gets it only where the platform says so.
type AllowedFeatures struct {
	// Profiling (spec.profiling and every component's): a profile takes CPU of the
	// platform's nodes while it runs, and a heap profile holds kcp's credentials, for anyone
	// allowed to port-forward to the pods.
	Profiling []string `json:"profiling,omitempty"`
	// AuditLogs (spec.audit.log): files on the node's disk (an emptyDir) or on a claim,
	// which the platform's storage pays for, next to whatever ships them.
	AuditLogs []string `json:"auditLogs,omitempty"`
	// Monitoring (spec.monitoring): PodMonitors the platform's Prometheus scrapes, stores
	// and alerts on, at a rate the installation sets.
	Monitoring []string `json:"monitoring,omitempty"`
	// APIPublishing (the PublishedAPI kind): an api-syncagent whose ClusterRole in the
	// service cluster reads every CRD and Secret and manages the published resources and
	// their related Secrets or ConfigMaps in every namespace there.
	APIPublishing []string `json:"apiPublishing,omitempty"`
	// LoadBalancers (spec.frontProxies[].service: annotations, loadBalancerIP,
	// loadBalancerClass, nodePort): an annotation picks and sizes a load balancer the
	// platform's cloud account pays for, an address or class claims one of the platform's
	// addresses or implementations, and a node port holds a port on every node of the
	// cluster, which no other Service may then take.
	LoadBalancers []string `json:"loadBalancers,omitempty"`
}

// Feature names a field of AllowedFeatures, as data.features spells it.
type Feature string

// Features a tenant's installation may be allowed.
const (
	FeatureProfiling     Feature = "profiling"
	FeatureAuditLogs     Feature = "auditLogs"
	FeatureMonitoring    Feature = "monitoring"
	FeatureAPIPublishing Feature = "apiPublishing"
	FeatureLoadBalancers Feature = "loadBalancers"
)

// AllowsFeature reports whether an installation in namespace may turn f on.
func (p Policy) AllowsFeature(namespace string, f Feature) bool {
	if p.Platform(namespace) {
		return true
	}
	switch f {
	case FeatureProfiling:
		return listed(p.Features.Profiling, namespace)
	case FeatureAuditLogs:
		return listed(p.Features.AuditLogs, namespace)
	case FeatureMonitoring:
		return listed(p.Features.Monitoring, namespace)
	case FeatureAPIPublishing:
		return listed(p.Features.APIPublishing, namespace)
	case FeatureLoadBalancers:
		return listed(p.Features.LoadBalancers, namespace)
	}
	return false
}

// AllowedIssuer allows XRs in Namespaces to use one issuer.
type AllowedIssuer struct {
	// Group defaults to cert-manager.io.
	Group string `json:"group,omitempty"`
	// Kind such as ClusterIssuer.
	Kind string `json:"kind"`
	// Name of the issuer, or "*" for every issuer of the kind.
	Name string `json:"name"`
	// Namespaces whose XRs may use it, or ["*"] for every namespace.
	Namespaces []string `json:"namespaces"`
}

// Read returns the platform's policy, whether Crossplane has answered its requirement yet,
// and an error when the policy cannot be read. A policy that does not exist is the empty
// policy: every namespace a tenant's, only Issuers of the namespace allowed.
func Read(st *observed.State) (Policy, bool, error) {
	if !st.Answered(Requirement.Key()) {
		return Policy{}, false, nil
	}
	l := st.Object(Kind, Name)
	if !l.Found {
		return Policy{}, true, nil
	}
	var p Policy
	raw, err := json.Marshal(l.Object["data"])
	if err == nil {
		err = json.Unmarshal(raw, &p)
	}
	if err != nil {
		return Policy{}, true, fmt.Errorf("the platform's policy (%s %s, data) cannot be read: %w; the platform team must fix it", Kind, Name, err)
	}
	if err := p.Limits.validate(); err != nil {
		return Policy{}, true, fmt.Errorf("the platform's policy (%s %s, data.limits) cannot be read: %w; the platform team must fix it", Kind, Name, err)
	}
	return p, true, nil
}

// Platform reports whether namespace is one only the platform writes.
func (p Policy) Platform(namespace string) bool {
	return namespace != "" && slices.Contains(p.PlatformNamespaces, namespace)
}

// listed reports whether a list of namespaces names namespace, or all of them.
func listed(namespaces []string, namespace string) bool {
	return slices.Contains(namespaces, everyNamespace) || slices.Contains(namespaces, namespace)
}

// AllowsGateway reports whether an installation in namespace may attach a route to the
// Gateway namespace/name of gatewayNamespace ("" is the installation's own).
func (p Policy) AllowsGateway(namespace, gatewayNamespace, gatewayName string) bool {
	if gatewayNamespace == "" || gatewayNamespace == namespace {
		return true
	}
	for _, a := range p.Gateways {
		if a.Name == gatewayName && a.Namespace == gatewayNamespace && listed(a.Namespaces, namespace) {
			return true
		}
	}
	return false
}
