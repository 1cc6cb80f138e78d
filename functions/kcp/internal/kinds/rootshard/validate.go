package rootshard

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// MaxNameLength keeps the volume <name>-service-account, which every shard and front-proxy
// mounts when service account authentication is on, within the 63 characters of a DNS label.
const MaxNameLength = 47

var (
	tagPattern        = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	repositoryPattern = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$`)
)

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A RootShard that fails validation composes nothing new and deletes nothing.
func Validate(rs *v1alpha1.RootShard) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := rs.Spec

	if n := rs.GetName(); len(n) > MaxNameLength {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), n, MaxNameLength))
	}
	if s.ClusterDomain != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.ClusterDomain) {
			errs = append(errs, field.Invalid(spec.Child("clusterDomain"), s.ClusterDomain, msg))
		}
	}
	if s.ShardBaseURL != "" {
		errs = append(errs, ValidateBaseURL(spec.Child("shardBaseURL"), s.ShardBaseURL)...)
	}
	errs = append(errs, ValidateEtcd(spec.Child("etcd"), s.Etcd)...)
	errs = append(errs, ValidateExternal(spec.Child("external"), s.External)...)
	errs = append(errs, ValidateCertificates(spec.Child("certificates"), s.Certificates)...)
	errs = append(errs, ValidateImage(spec.Child("image"), s.Image)...)
	errs = append(errs, ValidateReplicas(spec.Child("replicas"), s.Replicas)...)
	errs = append(errs, ValidateAuth(spec.Child("auth"), s.Auth)...)
	if p := s.Proxy; p != nil {
		errs = append(errs, ValidateImage(spec.Child("proxy", "image"), p.Image)...)
		errs = append(errs, ValidateReplicas(spec.Child("proxy", "replicas"), p.Replicas)...)
	}
	errs = append(errs, validateExtraVolumes(spec, rs)...)
	return errs
}

// validateExtraVolumes rejects extra volumes whose names clash with generated ones and extra
// mounts of volumes that do not exist: the API server would reject the Deployment.
func validateExtraVolumes(spec *field.Path, rs *v1alpha1.RootShard) field.ErrorList {
	c := &composer{Builder: builder.New(rs.GetName(), rs.GetNamespace(), observed.New(nil)), rs: rs, name: names.RootShard(rs.GetName())}
	errs := workload.ValidateExtraVolumes(spec, c.server().AllVolumeNames(), rs.Spec.ExtraVolumes, rs.Spec.ExtraVolumeMounts)
	if p := rs.Spec.Proxy; p != nil {
		var proxyVols []string
		generated, _, _ := c.rootProxy().Mounts()
		for _, v := range generated.Volumes() {
			proxyVols = append(proxyVols, v.Name)
		}
		errs = append(errs, workload.ValidateExtraVolumes(spec.Child("proxy"), proxyVols, p.ExtraVolumes, p.ExtraVolumeMounts)...)
	}
	return errs
}

// Warnings are accepted but probably not what the user meant.
func Warnings(rs *v1alpha1.RootShard) []string {
	var out []string
	out = append(out, unknownTemplateKeys("spec.certificateTemplates", rs.Spec.CertificateTemplates, append(slices.Clone(leafTemplateKeys), caTemplateKeys...))...)
	if p := rs.Spec.Proxy; p != nil {
		out = append(out, unknownTemplateKeys("spec.proxy.certificateTemplates", p.CertificateTemplates, proxyTemplateKeys)...)
	}
	if rs.Spec.Cache.Embedded != nil {
		out = append(out, "spec.cache.embedded is deprecated and ignored: the root shard runs an embedded cache whenever spec.cache.ref is empty")
	}
	return out
}

func unknownTemplateKeys(path string, m v1alpha1.CertificateTemplateMap, known []string) []string {
	var out []string
	for k := range m {
		if !slices.Contains(known, k) {
			out = append(out, fmt.Sprintf("%s[%q] matches no certificate and is ignored; known keys: %v", path, k, known))
		}
	}
	sort.Strings(out)
	return out
}

// ValidateEtcd checks an etcd configuration.
func ValidateEtcd(p *field.Path, e v1alpha1.EtcdConfig) field.ErrorList {
	var errs field.ErrorList
	if len(e.Endpoints) == 0 {
		errs = append(errs, field.Required(p.Child("endpoints"), "list at least one etcd client URL, for example https://etcd:2379"))
	}
	for i, ep := range e.Endpoints {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, field.Invalid(p.Child("endpoints").Index(i), ep, "must be an etcd client URL such as https://etcd:2379"))
		}
	}
	if t := e.TLSConfig; t != nil && t.SecretRef.Name == "" {
		errs = append(errs, field.Required(p.Child("tlsConfig", "secretRef", "name"), "name the Secret with tls.crt, tls.key and ca.crt for etcd"))
	}
	return errs
}

// ValidateExternal checks a public address.
func ValidateExternal(p *field.Path, e v1alpha1.ExternalConfig) field.ErrorList {
	var errs field.ErrorList
	if e.Hostname == "" {
		errs = append(errs, field.Required(p.Child("hostname"), "set the public hostname clients use, for example api.example.com"))
	} else if msgs := validation.IsDNS1123Subdomain(e.Hostname); len(msgs) > 0 && validation.IsValidIP(p.Child("hostname"), e.Hostname) != nil {
		errs = append(errs, field.Invalid(p.Child("hostname"), e.Hostname, "must be a DNS name or IP address without scheme or port"))
	}
	if e.Port == 0 || e.Port > 65535 {
		errs = append(errs, field.Invalid(p.Child("port"), e.Port, "must be a port between 1 and 65535, for example 6443"))
	}
	if e.PrivatePort != nil && (*e.PrivatePort == 0 || *e.PrivatePort > 65535) {
		errs = append(errs, field.Invalid(p.Child("privatePort"), *e.PrivatePort, "must be a port between 1 and 65535"))
	}
	return errs
}

// ValidateCertificates checks that exactly one root CA source is given.
func ValidateCertificates(p *field.Path, c v1alpha1.Certificates) field.ErrorList {
	switch {
	case c.IssuerRef != nil && c.CASecretRef != nil:
		return field.ErrorList{field.Forbidden(p, "set either issuerRef (a cert-manager issuer for the root CA) or caSecretRef (an existing CA Secret), not both")}
	case c.IssuerRef == nil && c.CASecretRef == nil:
		return field.ErrorList{field.Required(p.Child("issuerRef"), "set issuerRef to a cert-manager Issuer or ClusterIssuer that issues the root CA, or caSecretRef to an existing CA Secret")}
	case c.IssuerRef != nil:
		var errs field.ErrorList
		r := c.IssuerRef
		if r.Name == "" {
			errs = append(errs, field.Required(p.Child("issuerRef", "name"), "name the cert-manager issuer"))
		}
		if (r.Group == "" || r.Group == "cert-manager.io") && r.Kind != "" && r.Kind != "Issuer" && r.Kind != "ClusterIssuer" {
			errs = append(errs, field.NotSupported(p.Child("issuerRef", "kind"), r.Kind, []string{"Issuer", "ClusterIssuer"}))
		}
		return errs
	default:
		if c.CASecretRef.Name == "" {
			return field.ErrorList{field.Required(p.Child("caSecretRef", "name"), "name the Secret holding the CA's tls.crt and tls.key")}
		}
	}
	return nil
}

// ValidateImage checks an image reference.
func ValidateImage(p *field.Path, img *v1alpha1.ImageSpec) field.ErrorList {
	var errs field.ErrorList
	if img == nil {
		return nil
	}
	if img.Tag != "" && !tagPattern.MatchString(img.Tag) {
		errs = append(errs, field.Invalid(p.Child("tag"), img.Tag, "must be a valid image tag (letters, digits, '_', '.', '-'; at most 128 characters), for example v0.32.3"))
	}
	if img.Repository != "" && !repositoryPattern.MatchString(img.Repository) {
		errs = append(errs, field.Invalid(p.Child("repository"), img.Repository, "must be an image repository without tag, for example ghcr.io/kcp-dev/kcp"))
	}
	return errs
}

func ValidateReplicas(p *field.Path, r *int32) field.ErrorList {
	if r != nil && *r < 0 {
		return field.ErrorList{field.Invalid(p, *r, "must not be negative")}
	}
	return nil
}

func ValidateBaseURL(p *field.Path, raw string) field.ErrorList {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return field.ErrorList{field.Invalid(p, raw, "must be an https URL with host and optional port and no path, for example https://root.kcp.svc.cluster.local:6443")}
	}
	return nil
}

func ValidateAuth(p *field.Path, a *v1alpha1.AuthSpec) field.ErrorList {
	var errs field.ErrorList
	if a == nil {
		return nil
	}
	if o := a.OIDC; o != nil {
		if o.IssuerURL == "" {
			errs = append(errs, field.Required(p.Child("oidc", "issuerURL"), "set the OIDC issuer URL"))
		} else if u, err := url.Parse(o.IssuerURL); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, field.Invalid(p.Child("oidc", "issuerURL"), o.IssuerURL, "must be an https URL"))
		}
		if o.ClientID == "" {
			errs = append(errs, field.Required(p.Child("oidc", "clientID"), "set the OIDC client ID"))
		}
		if o.CAFileRef != nil && o.CAFileRef.Name == "" {
			errs = append(errs, field.Required(p.Child("oidc", "caFileRef", "name"), "name the Secret with the OIDC issuer's CA"))
		}
	}
	if w := a.Webhook; w != nil && w.ConfigSecretName == "" {
		errs = append(errs, field.Required(p.Child("webhook", "configSecretName"), "name the Secret holding the webhook kubeconfig"))
	}
	if t := a.TokenAuthFile; t != nil && t.SecretName == "" {
		errs = append(errs, field.Required(p.Child("tokenAuthFile", "secretName"), "name the Secret holding the token file"))
	}
	return errs
}
