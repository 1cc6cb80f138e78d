package frontproxy

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// MaxNameLength keeps <name>-front-proxy within the 63 characters of a Service name.
const MaxNameLength = 63 - len("-front-proxy")

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A FrontProxy that fails validation composes nothing new and deletes nothing.
func Validate(fp *v1alpha1.FrontProxy) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.Budget(fp.Spec, check.Everywhere(check.PerKindCopies))...)
	errs = append(errs, check.Templates(fp.Spec)...)
	spec := field.NewPath("spec")
	s := fp.Spec
	errs = append(errs, check.NameLength(fp.GetName(), MaxNameLength)...)
	errs = append(errs, check.DisruptionBudget(spec.Child("podDisruptionBudget"), s.Replicas, builder.DefaultReplicas, s.PodDisruptionBudget)...)
	errs = append(errs, check.RootShard(spec.Child("rootShard"), s.RootShard, "this front-proxy serves")...)
	root := ""
	if r := s.RootShard.Ref; r != nil {
		// With secretRef the RootShard's name is known once its Secret is read: Compose
		// checks the volumes then.
		root = r.Name
	}
	errs = append(errs, validateExternal(spec, s)...)
	if c := s.PublicServerCertificate; c != nil {
		errs = append(errs, check.PublicServerCertificate(spec.Child("publicServerCertificate"), c)...)
	}
	errs = append(errs, check.Image(spec.Child("image"), s.Image)...)
	errs = append(errs, check.Replicas(spec.Child("replicas"), s.Replicas)...)
	errs = append(errs, check.Profiling(spec.Child("profiling"), s.Profiling)...)
	errs = append(errs, check.Resources(spec.Child("resources"), s.Resources)...)
	errs = append(errs, validateAuth(spec.Child("auth"), s.Auth)...)
	if r := s.CABundleSecretRef; r != nil && r.Name == "" {
		errs = append(errs, field.Required(spec.Child("caBundleSecretRef", "name"), "name the Secret whose tls.crt holds the CA bundle, or remove caBundleSecretRef"))
	}
	if r := s.ClientCABundleRef; r != nil && r.Name == "" {
		errs = append(errs, field.Required(spec.Child("clientCABundleRef", "name"), "name the Secret whose tls.crt holds the additional client CAs, or remove clientCABundleRef"))
	}
	errs = append(errs, validatePathMappings(spec.Child("additionalPathMappings"), s.AdditionalPathMappings)...)
	errs = append(errs, check.Placement(spec.Child("placement"), s.Placement, s.Monitoring)...)
	if root != "" {
		errs = append(errs, validateVolumes(spec, fp, names.RootShard(root), "spec.rootShard.ref.name")...)
	}
	return errs
}

// validateExternal checks the public address: either spec.external or the deprecated
// spec.externalHostname (the XRD's CEL rule rejects both too), each well-formed.
func validateExternal(spec *field.Path, s v1alpha1.FrontProxySpec) field.ErrorList {
	var errs field.ErrorList
	if s.ExternalHostname != "" && s.External.Hostname != "" {
		errs = append(errs, field.Forbidden(spec.Child("externalHostname"), "cannot set both externalHostname (deprecated) and external.hostname; use external.hostname and external.port only"))
	}
	if e := s.External; e.Hostname != "" || e.Port != 0 || e.PrivateHostname != "" || e.PrivatePort != nil {
		errs = append(errs, check.External(spec.Child("external"), e)...)
	}
	if h := s.ExternalHostname; h != "" {
		p := spec.Child("externalHostname")
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			host, port = h, ""
		}
		n, err := strconv.Atoi(port)
		if !validHost(host) || (port != "" && (err != nil || n < 1 || n > 65535)) {
			errs = append(errs, field.Invalid(p, h, "must be a DNS name or IP address with an optional port between 1 and 65535, for example api.example.com:443; better, use external.hostname and external.port"))
		}
	}
	return errs
}

func validHost(h string) bool {
	return len(validation.IsDNS1123Subdomain(h)) == 0 || net.ParseIP(h) != nil
}

// validateAuth checks the authentication options; OIDC needs service account authentication
// (the XRD's CEL rule says so too).
func validateAuth(p *field.Path, a *v1alpha1.AuthSpec) field.ErrorList {
	errs := check.Auth(p, a)
	if a != nil && a.OIDC != nil && (a.ServiceAccount == nil || !a.ServiceAccount.Enabled) {
		errs = append(errs, field.Required(p.Child("serviceAccount", "enabled"), "OIDC requires ServiceAccount auth to be enabled: set auth.serviceAccount.enabled to true"))
	}
	return errs
}

// validatePathMappings requires every field of an additional path mapping, and a backend
// URL kcp-front-proxy can reach.
func validatePathMappings(p *field.Path, mappings []v1alpha1.PathMappingEntry) field.ErrorList {
	var errs field.ErrorList
	for i, m := range mappings {
		ip := p.Index(i)
		for _, f := range []struct{ name, value, hint string }{
			{"path", m.Path, "the URL path prefix to route, for example /services/my-service/"},
			{"backend", m.Backend, "the URL of the backend, for example https://my-service.kcp.svc:6443"},
			{"backend_server_ca", m.BackendServerCA, "the path of the backend's CA file inside the front-proxy container"},
			{"proxy_client_cert", m.ProxyClientCert, "the path of the client certificate the front-proxy presents to the backend"},
			{"proxy_client_key", m.ProxyClientKey, "the path of the key of that client certificate"},
		} {
			if f.value == "" {
				errs = append(errs, field.Required(ip.Child(f.name), "set "+f.hint))
			}
		}
		switch {
		case m.Path == "":
		case !strings.HasPrefix(m.Path, "/"):
			errs = append(errs, field.Invalid(ip.Child("path"), m.Path, "must start with /, for example /services/my-service/"))
		case m.Path == "/" || m.Path == "/clusters" || strings.HasPrefix(m.Path, "/clusters/"):
			// kcp-front-proxy routes these to the shards itself; a mapping would take
			// workspaces' requests, and their users' identities, to another backend.
			errs = append(errs, field.Forbidden(ip.Child("path"), fmt.Sprintf("%s is where the front-proxy routes workspaces' requests to their shards; choose a prefix of your own, for example /services/my-service/", m.Path)))
		}
		if m.Backend != "" {
			if u, err := url.Parse(m.Backend); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				errs = append(errs, field.Invalid(ip.Child("backend"), m.Backend, "must be a URL such as https://my-service.kcp.svc:6443"))
			}
		}
	}
	return errs
}

// validateVolumes rejects generated volume names that are not valid volume names (they
// derive from the FrontProxy's and the RootShard's names), extra volumes whose names clash
// with generated ones, and extra mounts of volumes that do not exist: the API server would
// reject the Deployment.
// rootField names the field that names the RootShard.
func validateVolumes(spec *field.Path, fp *v1alpha1.FrontProxy, root names.RootShard, rootField string) field.ErrorList {
	var errs field.ErrorList
	generated := generatedVolumeNames(fp, root)
	var bad []string
	for _, v := range generated {
		if len(validation.IsDNS1123Label(v)) > 0 {
			bad = append(bad, v)
		}
	}
	if len(bad) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), fp.Name,
			fmt.Sprintf("with RootShard %s (%s) the front-proxy would mount volumes named %s, which are not valid volume names (at most 63 lowercase letters, digits and '-'): shorten the FrontProxy's name", root, rootField, strings.Join(bad, ", "))))
	}
	return append(errs, check.ExtraVolumes(spec, func() []string { return generated }, fp.Spec.ExtraVolumes, fp.Spec.ExtraVolumeMounts)...)
}

// Warnings are accepted but probably not what the user meant.
func Warnings(fp *v1alpha1.FrontProxy) []string {
	var out []string
	out = append(out, check.UnknownTemplateKeys("spec.certificateTemplates", fp.Spec.CertificateTemplates, templateKeys)...)
	if fp.Spec.ExternalHostname != "" {
		out = append(out, "spec.externalHostname is deprecated: use spec.external.hostname and spec.external.port")
	}
	out = append(out, extraWarnings(fp)...)
	return out
}
