package check

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

var (
	tagPattern        = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	repositoryPattern = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$`)
)

// MaxRepository is the longest image repository the distribution spec allows a registry to
// accept: 255 characters.
const MaxRepository = 255

// NameLength rejects an XR name longer than max, the longest that keeps every object name
// derived from it a valid DNS label.
func NameLength(name string, max int) field.ErrorList {
	if len(name) > max {
		return field.ErrorList{field.TooLong(field.NewPath("metadata", "name"), name, max)}
	}
	return nil
}

// ClusterDomain checks spec.clusterDomain, which ends every in-cluster Service name.
func ClusterDomain(p *field.Path, domain string) field.ErrorList {
	var errs field.ErrorList
	if domain == "" {
		return nil
	}
	for _, msg := range validation.IsDNS1123Subdomain(domain) {
		errs = append(errs, field.Invalid(p, domain, msg))
	}
	return errs
}

// Image checks an image reference.
func Image(p *field.Path, img *v1alpha1.ImageSpec) field.ErrorList {
	var errs field.ErrorList
	if img == nil {
		return nil
	}
	if img.Tag != "" && !tagPattern.MatchString(img.Tag) {
		errs = append(errs, field.Invalid(p.Child("tag"), img.Tag, "must be a valid image tag (letters, digits, '_', '.', '-'; at most 128 characters), for example v0.32.3"))
	}
	if len(img.Repository) > MaxRepository {
		errs = append(errs, field.TooLong(p.Child("repository"), "", MaxRepository))
	} else if img.Repository != "" && !repositoryPattern.MatchString(img.Repository) {
		errs = append(errs, field.Invalid(p.Child("repository"), img.Repository, "must be an image repository without tag, for example ghcr.io/kcp-dev/kcp"))
	}
	return errs
}

// Replicas rejects a negative replica count.
func Replicas(p *field.Path, r *int32) field.ErrorList {
	if r != nil && *r < 0 {
		return field.ErrorList{field.Invalid(p, *r, "must not be negative")}
	}
	return nil
}

// Etcd checks an etcd configuration.
func Etcd(p *field.Path, e v1alpha1.EtcdConfig) field.ErrorList {
	var errs field.ErrorList
	if len(e.Endpoints) == 0 {
		errs = append(errs, field.Required(p.Child("endpoints"), "list at least one etcd client URL, for example https://etcd:2379"))
	}
	for i, ep := range e.Endpoints {
		if ep == v1alpha1.EmbeddedEtcdEndpoint {
			errs = append(errs, field.Invalid(p.Child("endpoints").Index(i), ep, "kcp's embedded etcd is for a root shard alone, in development: list etcd client URLs such as https://etcd:2379"))
			continue
		}
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, field.Invalid(p.Child("endpoints").Index(i), ep, "must be an etcd client URL such as https://etcd:2379"))
			continue
		}
		errs = append(errs, NoUserInfo(p.Child("endpoints").Index(i), ep)...)
	}
	errs = append(errs, EtcdPrefix(p.Child("prefix"), e.Prefix)...)
	if t := e.TLSConfig; t != nil && t.SecretRef.Name == "" {
		errs = append(errs, field.Required(p.Child("tlsConfig", "secretRef", "name"), "name the Secret with tls.crt, tls.key and ca.crt for etcd"))
	}
	return errs
}

// EmbeddedEtcd checks a root shard's spec (at spec) that asks for kcp's embedded etcd: the
// data lives in the pod, so a second replica would be a second, empty kcp,
// and there is no etcd to dial with TLS.
func EmbeddedEtcd(spec *field.Path, e v1alpha1.EtcdConfig, replicas *int32) field.ErrorList {
	var errs field.ErrorList
	if e.TLSConfig != nil {
		errs = append(errs, field.Forbidden(spec.Child("etcd", "tlsConfig"), "kcp's embedded etcd runs in the pod and is dialled without TLS: remove tlsConfig"))
	}
	if replicas != nil && *replicas > 1 {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *replicas,
			"kcp's embedded etcd lives in its pod, so a second replica would be a second kcp with data of its own: remove replicas or set it to 1, or store the data in an etcd cluster"))
	}
	return errs
}

// External checks a public address.
func External(p *field.Path, e v1alpha1.ExternalConfig) field.ErrorList {
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

// Public checks a shard's public endpoint against its shardBaseURL (p is spec.public).
func Public(p *field.Path, e *v1alpha1.PublicEndpoint, shardBaseURL string) field.ErrorList {
	if e == nil {
		return nil
	}
	var errs field.ErrorList
	if e.Hostname == "" {
		errs = append(errs, field.Required(p.Child("hostname"), "set the shard's public DNS name, for example alpha.kcp.example.com, or remove spec.public"))
	} else if msgs := validation.IsDNS1123Subdomain(e.Hostname); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("hostname"), e.Hostname, "must be a DNS name without scheme or port"))
	}
	if e.Port > 65535 {
		errs = append(errs, field.Invalid(p.Child("port"), e.Port, "must be a port between 1 and 65535, for example 6443"))
	}
	c := e.ServerCertificate
	if c == nil {
		return errs
	}
	errs = append(errs, PublicServerCertificate(p.Child("serverCertificate"), c)...)
	// kcp's components dial shardBaseURL and verify it against the installation's CA: were it
	// a public name, they would be served the public certificate and refuse it.
	if h := hostOf(shardBaseURL); h != "" && slices.ContainsFunc(publicNames(c, e.Hostname), func(n string) bool { return sniMatches(n, h) }) {
		errs = append(errs, field.Invalid(p.Child("serverCertificate"), h, "spec.shardBaseURL names "+h+", which this certificate serves, so kcp's own components would be served a certificate they cannot verify: leave spec.shardBaseURL unset (the in-cluster Service) or set it to another name"))
	}
	return errs
}

// PublicServerCertificate checks a second serving certificate for public names.
func PublicServerCertificate(p *field.Path, c *v1alpha1.PublicServerCertificate) field.ErrorList {
	errs := IssuerRef(p.Child("issuerRef"), &c.IssuerRef)
	for i, n := range c.DNSNames {
		if msgs := validation.IsWildcardDNS1123Subdomain(n); len(msgs) > 0 && len(validation.IsDNS1123Subdomain(n)) > 0 {
			errs = append(errs, field.Invalid(p.Child("dnsNames").Index(i), n, "must be a DNS name, optionally starting with *."))
		}
	}
	return errs
}

func publicNames(c *v1alpha1.PublicServerCertificate, host string) []string {
	if len(c.DNSNames) > 0 {
		return c.DNSNames
	}
	return []string{host}
}

// sniMatches says whether TLS SNI serves the certificate of name to a client asking for
// host: the same name, or a wildcard for host's first label, as crypto/tls looks names up.
func sniMatches(name, host string) bool {
	if name == host {
		return true
	}
	labels := strings.Split(host, ".")
	labels[0] = "*"
	return name == strings.Join(labels, ".")
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// BaseURL checks a spec.shardBaseURL: https, a host, an optional port and nothing else.
func BaseURL(p *field.Path, raw string) field.ErrorList {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return field.ErrorList{field.Invalid(p, raw, "must be an https URL with host and optional port and no path, for example https://root.kcp.svc.cluster.local:6443")}
	}
	return NoUserInfo(p, raw)
}

// Auth checks a kcp server's authentication settings.
func Auth(p *field.Path, a *v1alpha1.AuthSpec) field.ErrorList {
	var errs field.ErrorList
	if a == nil {
		return nil
	}
	if o := a.OIDC; o != nil {
		if o.IssuerURL == "" {
			errs = append(errs, field.Required(p.Child("oidc", "issuerURL"), "set the OIDC issuer URL"))
		} else if u, err := url.Parse(o.IssuerURL); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, field.Invalid(p.Child("oidc", "issuerURL"), o.IssuerURL, "must be an https URL"))
		} else {
			errs = append(errs, NoUserInfo(p.Child("oidc", "issuerURL"), o.IssuerURL)...)
		}
		if o.ClientID == "" {
			errs = append(errs, field.Required(p.Child("oidc", "clientID"), "set the OIDC client ID"))
		}
		if o.CAFileRef != nil && o.CAFileRef.Name == "" {
			errs = append(errs, field.Required(p.Child("oidc", "caFileRef", "name"), "name the Secret with the OIDC issuer's CA"))
		}
	}
	if c := a.AuthenticationConfiguration; c != nil {
		if a.OIDC != nil {
			errs = append(errs, field.Forbidden(p.Child("authenticationConfiguration"), "set either oidc or authenticationConfiguration, not both: kcp refuses --oidc-* flags beside --authentication-config; move the issuer into the configuration's jwt list"))
		}
		if c.Name == "" {
			errs = append(errs, field.Required(p.Child("authenticationConfiguration", "name"), "name the ConfigMap holding the AuthenticationConfiguration"))
		}
		if c.Key == "" {
			errs = append(errs, field.Required(p.Child("authenticationConfiguration", "key"), "name the ConfigMap's key holding the AuthenticationConfiguration, e.g. config.yaml"))
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

// IssuerRef checks a reference to a cert-manager issuer; p is the issuerRef field.
func IssuerRef(p *field.Path, r *v1alpha1.ObjectReference) field.ErrorList {
	var errs field.ErrorList
	if r.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "name the cert-manager issuer"))
	}
	if (r.Group == "" || r.Group == "cert-manager.io") && r.Kind != "" && r.Kind != "Issuer" && r.Kind != "ClusterIssuer" {
		errs = append(errs, field.NotSupported(p.Child("kind"), r.Kind, []string{"Issuer", "ClusterIssuer"}))
	}
	return errs
}

// MaxClusterRoleName keeps <uid>:<role> within the 253 characters of an object name.
const MaxClusterRoleName = 253 - len("00000000-0000-0000-0000-000000000000:")

// ClusterRoleName refuses a cluster role name kcp cannot bind: the API server accepts any
// path segment as an RBAC name, but a binding's name is built from it (kcp-operator's
// <uid>:<role>), which must be one too.
func ClusterRoleName(p *field.Path, role string) field.ErrorList {
	if strings.TrimSpace(role) == "" {
		return field.ErrorList{field.Required(p, "name a cluster role, such as cluster-admin, or remove the empty entry")}
	}
	if msgs := content.IsPathSegmentName(role); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, role, "is not a cluster role name: "+strings.Join(msgs, "; "))}
	}
	if len(role) > MaxClusterRoleName {
		return field.ErrorList{field.TooLong(p, role, MaxClusterRoleName)}
	}
	return nil
}
