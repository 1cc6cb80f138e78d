package kubeconfig

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// MaxNameLength keeps the Kubeconfig's name a valid label value: it is the value of the
// operator.kcp.io/kubeconfig label on the certificate Secret.
const MaxNameLength = validation.LabelValueMaxLength

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A Kubeconfig that fails validation composes nothing new and deletes nothing.
func Validate(kc *v1alpha1.Kubeconfig) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.Budget(kc.Spec, check.Everywhere(check.PerKindCopies))...)
	errs = append(errs, check.Templates(kc.Spec)...)
	spec := field.NewPath("spec")
	s := kc.Spec
	errs = append(errs, check.NameLength(kc.GetName(), MaxNameLength)...)
	errs = append(errs, validateTarget(spec.Child("target"), s.Target)...)
	errs = append(errs, validateServer(spec.Child("server"), s.Server)...)
	if w := s.TargetWorkspace; w != "" {
		if err := names.ValidateWorkspacePath(w); err != nil {
			errs = append(errs, field.Invalid(spec.Child("targetWorkspace"), w, err.Error()))
		}
	}
	if strings.TrimSpace(s.Username) == "" {
		errs = append(errs, field.Required(spec.Child("username"), "set the user name, the common name of the client certificate"))
	}
	errs = append(errs, check.CommonName(spec.Child("username"), s.Username)...)
	// The user and groups are identities kcp authorizes and logs: one that reads as another
	// must not be issued.
	errs = append(errs, check.Printable(spec.Child("username"), s.Username)...)
	for i, g := range s.Groups {
		if strings.TrimSpace(g) == "" {
			errs = append(errs, field.Required(spec.Child("groups").Index(i), "remove the empty group or name one"))
		}
		errs = append(errs, check.Printable(spec.Child("groups").Index(i), g)...)
	}
	errs = append(errs, validateAuthorization(spec.Child("authorization"), s.Authorization)...)
	errs = append(errs, validateValidity(spec, s)...)
	errs = append(errs, validateSecretName(spec.Child("secretRef", "name"), kc)...)
	if Shared(kc) {
		// The Tenant checks this again before it issues anything; saying so here refuses
		// at once, naming the field.
		errs = append(errs, sharing.CheckKubeconfig(kc.GetNamespace(), kc)...)
	}
	return errs
}

// validateServer accepts an https URL of a host and optionally a port: the kubeconfig appends
// /clusters/<workspace> to it, and a path, query or credentials would break that or leak.
func validateServer(p *field.Path, server string) field.ErrorList {
	if server == "" {
		return nil
	}
	u, err := url.Parse(server)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(p, server, "must be a URL such as https://kcp.example.com:443: "+err.Error())}
	case u.Scheme != "https" || u.Hostname() == "":
		return field.ErrorList{field.Invalid(p, server, "must be an https URL with a host, such as https://kcp.example.com:443")}
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		// Redacted: the message lands in events and conditions, a password must not.
		return field.ErrorList{field.Invalid(p, u.Redacted(), "must be only https://<host>[:<port>]: the kubeconfig adds /clusters/<workspace> itself, and credentials belong in the client certificate")}
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return field.ErrorList{field.Invalid(p, server, "the port must be between 1 and 65535")}
		}
	}
	return nil
}

// validateAuthorization requires cluster role names kcp can bind and a workspace path in the
// deprecated cluster field: a binding kcp refuses would leave the Kubeconfig waiting forever.
func validateAuthorization(p *field.Path, a *v1alpha1.KubeconfigAuthorization) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	crb := p.Child("clusterRoleBindings")
	if w := a.ClusterRoleBindings.Cluster; w != "" {
		if err := names.ValidateWorkspacePath(w); err != nil {
			errs = append(errs, field.Invalid(crb.Child("cluster"), w, err.Error()))
		}
	}
	for i, r := range a.ClusterRoleBindings.ClusterRoles {
		errs = append(errs, check.ClusterRoleName(crb.Child("clusterRoles").Index(i), r)...)
	}
	return errs
}

// validateTarget requires exactly one target with a name. The XRD's CEL rule enforces the
// first part too.
func validateTarget(p *field.Path, t v1alpha1.KubeconfigTarget) field.ErrorList {
	set := 0
	for _, r := range []bool{t.RootShardRef != nil, t.ShardRef != nil, t.FrontProxyRef != nil, t.ReferenceSecretRef != nil} {
		if r {
			set++
		}
	}
	switch {
	case set > 1:
		return field.ErrorList{field.Forbidden(p, "set exactly one of rootShardRef, shardRef, frontProxyRef or referenceSecretRef")}
	case set == 0:
		return field.ErrorList{field.Required(p, "set exactly one of rootShardRef (a RootShard), shardRef (a Shard) or frontProxyRef (a FrontProxy), which the kubeconfig reaches, or referenceSecretRef (the reference Secret of one)")}
	case t.RootShardRef != nil && t.RootShardRef.Name == "":
		return field.ErrorList{field.Required(p.Child("rootShardRef", "name"), "name the RootShard the kubeconfig reaches")}
	case t.ShardRef != nil && t.ShardRef.Name == "":
		return field.ErrorList{field.Required(p.Child("shardRef", "name"), "name the Shard the kubeconfig reaches")}
	case t.FrontProxyRef != nil && t.FrontProxyRef.Name == "":
		return field.ErrorList{field.Required(p.Child("frontProxyRef", "name"), "name the FrontProxy the kubeconfig reaches")}
	case t.ReferenceSecretRef != nil && t.ReferenceSecretRef.Name == "":
		return field.ErrorList{field.Required(p.Child("referenceSecretRef", "name"), "name the reference Secret (<name>-reference) of the RootShard or FrontProxy the kubeconfig reaches")}
	}
	return nil
}

// validateValidity requires a lifetime cert-manager accepts: the certificate's duration is
// spec.validity unless the certificate template replaces it.
func validateValidity(spec *field.Path, s v1alpha1.KubeconfigSpec) field.ErrorList {
	if s.Validity.Duration <= 0 {
		return field.ErrorList{field.Invalid(spec.Child("validity"), s.Validity.Duration.String(), "must be a positive duration such as 8760h")}
	}
	if t := s.CertificateTemplate; t != nil && t.Spec != nil && t.Spec.Duration != nil {
		return nil // the template's duration replaces it; check.Templates checks that one
	}
	p, d := spec.Child("validity"), s.Validity.Duration
	if d < cmv1.MinimumCertificateDuration {
		return field.ErrorList{field.Invalid(p, d.String(), fmt.Sprintf("must be at least %s: cert-manager rejects shorter certificates", cmv1.MinimumCertificateDuration))}
	}
	return nil
}

// validateSecretName requires a valid Secret name that is not one the installation uses:
// composing the kubeconfig into such a Secret would overwrite it, and delete it with the
// Kubeconfig. The names of the target's RootShard are checked once it is read.
func validateSecretName(p *field.Path, kc *v1alpha1.Kubeconfig) field.ErrorList {
	n := kc.Spec.SecretRef.Name
	if n == "" {
		return field.ErrorList{field.Required(p, "name the Secret the kubeconfig is written to")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(n) {
		errs = append(errs, field.Invalid(p, n, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	reserved := map[string]string{}
	t := kc.Spec.Target
	switch {
	case t.RootShardRef != nil:
		what := "a Secret of RootShard " + t.RootShardRef.Name
		for _, s := range names.RootShard(t.RootShardRef.Name).Secrets() {
			reserved[s] = what
		}
	case t.ShardRef != nil:
		what := "a Secret of Shard " + t.ShardRef.Name
		for _, s := range names.Shard(t.ShardRef.Name).Secrets() {
			reserved[s] = what
		}
	case t.FrontProxyRef != nil:
		// Its other Secrets carry its RootShard's name, known once the FrontProxy is read.
		fp := names.FrontProxy(t.FrontProxyRef.Name)
		what := "a Secret of FrontProxy " + t.FrontProxyRef.Name
		for _, s := range []string{fp.MergedCABundle(), fp.MergedClientCA(), names.Reference(string(fp))} {
			reserved[s] = what
		}
	}
	return validateReserved(kc, reserved)
}

// validateReserved rejects an output Secret name that is a client certificate Secret or one
// of reserved, which maps names to descriptions.
func validateReserved(kc *v1alpha1.Kubeconfig, reserved map[string]string) field.ErrorList {
	p := field.NewPath("spec", "secretRef", "name")
	n := kc.Spec.SecretRef.Name
	own := names.Kubeconfig(kc.GetName()).Certificate()
	switch {
	case n == own:
		return field.ErrorList{field.Invalid(p, n, "is the Secret cert-manager writes the client certificate of this Kubeconfig to; choose another name")}
	case strings.HasPrefix(n, names.KubeconfigCertificatePrefix):
		return field.ErrorList{field.Invalid(p, n, "names starting with "+names.KubeconfigCertificatePrefix+" are reserved for the client certificate Secrets of Kubeconfigs; choose another name")}
	}
	if what, ok := reserved[n]; ok {
		return field.ErrorList{field.Invalid(p, n, "is "+what+"; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name")}
	}
	return nil
}

// Warnings are accepted but probably not what the user meant.
func Warnings(kc *v1alpha1.Kubeconfig) []string {
	var out []string
	if a := kc.Spec.Authorization; a != nil && a.ClusterRoleBindings.Cluster != "" && kc.Spec.TargetWorkspace != "" && a.ClusterRoleBindings.Cluster != kc.Spec.TargetWorkspace {
		out = append(out, fmt.Sprintf("spec.authorization.clusterRoleBindings.cluster (%s) is deprecated and ignored while spec.targetWorkspace (%s) is set: the roles are bound in %s", a.ClusterRoleBindings.Cluster, kc.Spec.TargetWorkspace, kc.Spec.TargetWorkspace))
	}
	return out
}

// rbacWorkspace is where kcp-operator would bind the roles: spec.targetWorkspace, else the
// deprecated authorization.clusterRoleBindings.cluster, else root.
func rbacWorkspace(kc *v1alpha1.Kubeconfig) string {
	if w := kc.Spec.TargetWorkspace; w != "" {
		return w
	}
	if a := kc.Spec.Authorization; a != nil && a.ClusterRoleBindings.Cluster != "" {
		return a.ClusterRoleBindings.Cluster
	}
	return DefaultWorkspace
}
