package cacheserver

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/cache"
)

// MaxNameLength keeps the <name>-cache-server Service name within the 63 characters of a
// DNS label.
const MaxNameLength = 63 - len("-cache-server")

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A CacheServer that fails validation composes nothing new and deletes nothing.
func Validate(cs *v1alpha1.CacheServer) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.Budget(cs.Spec, check.Everywhere(check.PerKindCopies))...)
	errs = append(errs, check.Templates(cs.Spec)...)
	spec := field.NewPath("spec")
	s := cs.Spec

	errs = append(errs, check.NameLength(cs.GetName(), MaxNameLength)...)
	defaultReplicas := int32(cache.DefaultExternalReplicas)
	if s.Etcd == nil {
		defaultReplicas = cache.EmbeddedReplicas
	}
	errs = append(errs, check.DisruptionBudget(spec.Child("podDisruptionBudget"), s.Replicas, defaultReplicas, s.PodDisruptionBudget)...)
	errs = append(errs, check.ClusterDomain(spec.Child("clusterDomain"), s.ClusterDomain)...)
	errs = append(errs, validateCertificates(spec.Child("certificates"), s.Certificates)...)
	errs = append(errs, check.Image(spec.Child("image"), s.Image)...)
	if s.Etcd != nil {
		errs = append(errs, check.Etcd(spec.Child("etcd"), *s.Etcd)...)
	}
	if r := s.Replicas; r != nil {
		switch {
		case *r < 0:
			errs = append(errs, field.Invalid(spec.Child("replicas"), *r, "must not be negative"))
		case *r > cache.EmbeddedReplicas && s.Etcd == nil:
			errs = append(errs, field.Invalid(spec.Child("replicas"), *r,
				"without spec.etcd the cache server keeps its data in an embedded etcd that only one replica can use; remove spec.replicas or set it to 1, or set spec.etcd to an external etcd to run more replicas"))
		}
	}
	errs = append(errs, validateExtraVolumes(spec, cs)...)
	return errs
}

// validateCertificates requires issuerRef (quirk 6: kcp-operator crashes without it) and
// rejects caSecretRef: the cache server's CA Secret must be <cs>-ca, the Secret every
// consumer mounts to trust it, and cert-manager writes it.
func validateCertificates(p *field.Path, c v1alpha1.Certificates) field.ErrorList {
	var errs field.ErrorList
	if c.CASecretRef != nil {
		errs = append(errs, field.Forbidden(p.Child("caSecretRef"),
			"a CacheServer's CA is always issued by cert-manager into the Secret <name>-ca that shards mount; remove caSecretRef and set issuerRef to a cert-manager Issuer or ClusterIssuer"))
	}
	r := c.IssuerRef
	if r == nil {
		if c.CASecretRef == nil {
			errs = append(errs, field.Required(p.Child("issuerRef"),
				"a CacheServer's CA must be issued by cert-manager: set issuerRef to the Issuer or ClusterIssuer that issues it, for example {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}"))
		}
		return errs
	}
	errs = append(errs, check.IssuerRef(p.Child("issuerRef"), r)...)
	return errs
}

// validateExtraVolumes rejects extra volumes whose names clash with generated ones and extra
// mounts of volumes that do not exist: the API server would reject the Deployment.
func validateExtraVolumes(spec *field.Path, cs *v1alpha1.CacheServer) field.ErrorList {
	generated := server(cs, kcpimage.Resolve(cs.Spec.Image)).GeneratedVolumeNames
	return check.ExtraVolumes(spec, generated, cs.Spec.ExtraVolumes, cs.Spec.ExtraVolumeMounts)
}

// Warnings are accepted but probably not what the user meant.
func Warnings(cs *v1alpha1.CacheServer) []string {
	var out []string
	out = append(out, check.UnknownTemplateKeys("spec.certificateTemplates", cs.Spec.CertificateTemplates, templateKeys)...)
	if r := cs.Spec.Replicas; r != nil && *r == 0 && cs.Spec.Etcd == nil {
		out = append(out, "spec.replicas: 0 is ignored without spec.etcd: a cache server with an embedded etcd always runs exactly 1 replica")
	}
	if e := cs.Spec.Etcd; e != nil {
		if why := kcpversion.IgnoredCachePrefix(kcpimage.Resolve(cs.Spec.Image).Tag, e.Prefix); why != "" {
			out = append(out, "spec.etcd.prefix: "+why+": let no other cache server use this etcd, or run a kcp that honours the prefix (spec.image.tag v0.33.0 or later)")
		}
	}
	out = append(out, extraWarnings(cs)...)
	return out
}
