package kcpinstallation

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// The platform's policy for self-service installations is an EnvironmentConfig: a
// cluster-scoped object that namespace users (edit, admin) cannot write, that Crossplane can
// already read, and that needs no CRD of ours.
const (
	PolicyAPIVersion = "apiextensions.crossplane.io/v1beta1"
	PolicyKind       = "EnvironmentConfig"
	PolicyName       = "kcp-self-service"
)

// cert-manager's own issuer group and kinds.
const (
	certManagerGroup = "cert-manager.io"
	kindIssuer       = "Issuer"
	everyNamespace   = "*"
	everyIssuerName  = "*"
)

// PolicyRequirement reads the platform's policy.
var PolicyRequirement = result.Requirement{APIVersion: PolicyAPIVersion, Kind: PolicyKind, Name: PolicyName, ClusterScoped: true}

// Policy is what the platform allows self-service installations beyond the default. By
// default an installation may only use cert-manager Issuers of its own namespace: a
// ClusterIssuer signs for every namespace (a CA ClusterIssuer would sign the tenant's CA
// certificates, whose keys the tenant reads), and issuers of other groups act with whatever
// rights their controllers have.
type Policy struct {
	// Issuers the policy allows, each in the namespaces it lists.
	Issuers []AllowedIssuer `json:"issuers,omitempty"`
	// Gateways of other namespaces that front-proxies may attach TLSRoutes to, each for the
	// namespaces it lists. A Gateway of the installation's own namespace is the tenant's.
	Gateways []AllowedGateway `json:"gateways,omitempty"`
}

// AllowedGateway allows installations in Namespaces to attach routes to one Gateway.
type AllowedGateway struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Namespaces whose installations may use it, or ["*"] for every namespace.
	Namespaces []string `json:"namespaces"`
}

// allowsGateway reports whether an installation in namespace may attach a route to g.
func (p Policy) allowsGateway(namespace string, g v1alpha1.GatewayExposure) bool {
	if g.Namespace == "" || g.Namespace == namespace {
		return true
	}
	for _, a := range p.Gateways {
		if a.Name == g.Name && a.Namespace == g.Namespace && (slices.Contains(a.Namespaces, everyNamespace) || slices.Contains(a.Namespaces, namespace)) {
			return true
		}
	}
	return false
}

// checkGateways refuses every Gateway of another namespace the policy does not allow: the
// route would claim a hostname on the platform's shared entry point, which a tenant's own
// rights need not reach.
func checkGateways(inst *v1alpha1.KcpInstallation, p Policy) field.ErrorList {
	var errs field.ErrorList
	for i, fp := range inst.Spec.FrontProxies {
		if fp.Exposure == nil || fp.Exposure.Gateway == nil || p.allowsGateway(inst.GetNamespace(), *fp.Exposure.Gateway) {
			continue
		}
		g := fp.Exposure.Gateway
		errs = append(errs, field.Forbidden(field.NewPath("spec", "frontProxies").Index(i).Child("exposure", "gateway"), fmt.Sprintf(
			"Gateway %s/%s is not allowed for installations in namespace %s by the platform's policy (%s %s, data.gateways); use a Gateway in namespace %s, or ask the platform team to allow this one there",
			g.Namespace, g.Name, inst.GetNamespace(), PolicyKind, PolicyName, inst.GetNamespace())))
	}
	return errs
}

// AllowedIssuer allows installations in Namespaces to use one issuer.
type AllowedIssuer struct {
	// Group defaults to cert-manager.io.
	Group string `json:"group,omitempty"`
	// Kind such as ClusterIssuer.
	Kind string `json:"kind"`
	// Name of the issuer, or "*" for every issuer of the kind.
	Name string `json:"name"`
	// Namespaces whose installations may use it, or ["*"] for every namespace.
	Namespaces []string `json:"namespaces"`
}

// readPolicy returns the platform's policy, whether Crossplane has answered its
// requirement yet, and an error when the policy cannot be read.
func readPolicy(st *observed.State) (Policy, bool, error) {
	if !st.Answered(PolicyRequirement.Key()) {
		return Policy{}, false, nil
	}
	l := st.Object(PolicyKind, PolicyName)
	if !l.Found {
		return Policy{}, true, nil
	}
	var p Policy
	raw, err := json.Marshal(l.Object["data"])
	if err == nil {
		err = json.Unmarshal(raw, &p)
	}
	if err != nil {
		return Policy{}, true, fmt.Errorf("the platform's policy (%s %s, data) cannot be read: %v; the platform team must fix it", PolicyKind, PolicyName, err)
	}
	return p, true, nil
}

// allows reports whether an installation in namespace may use the issuer ref.
func (p Policy) allows(namespace string, ref v1alpha1.ObjectReference) bool {
	group, kind := issuerGroupKind(ref)
	if group == certManagerGroup && kind == kindIssuer {
		return true // an Issuer of the installation's own namespace: the tenant's own
	}
	for _, a := range p.Issuers {
		g := a.Group
		if g == "" {
			g = certManagerGroup
		}
		if g == group && a.Kind == kind && (a.Name == everyIssuerName || a.Name == ref.Name) &&
			(slices.Contains(a.Namespaces, everyNamespace) || slices.Contains(a.Namespaces, namespace)) {
			return true
		}
	}
	return false
}

// issuerGroupKind is the group and kind cert-manager reads from a reference: an empty group
// is cert-manager.io and an empty kind Issuer.
func issuerGroupKind(ref v1alpha1.ObjectReference) (string, string) {
	group, kind := ref.Group, ref.Kind
	if group == "" {
		group = certManagerGroup
	}
	if kind == "" {
		kind = kindIssuer
	}
	return group, kind
}

// checkIssuers refuses every issuer reference of the installation that the policy does not
// allow in its namespace, naming the field and the policy.
func checkIssuers(inst *v1alpha1.KcpInstallation, p Policy) field.ErrorList {
	var errs field.ErrorList
	check := func(path *field.Path, ref *v1alpha1.ObjectReference) {
		if ref == nil || p.allows(inst.GetNamespace(), *ref) {
			return
		}
		group, kind := issuerGroupKind(*ref)
		errs = append(errs, field.Forbidden(path, fmt.Sprintf(
			"%s %s (group %s) is not allowed for installations in namespace %s by the platform's policy (%s %s, data.issuers); use a cert-manager Issuer in namespace %s, or ask the platform team to allow this issuer there",
			kind, ref.Name, group, inst.GetNamespace(), PolicyKind, PolicyName, inst.GetNamespace())))
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
