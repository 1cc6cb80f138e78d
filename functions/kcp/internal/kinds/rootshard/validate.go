package rootshard

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// MaxNameLength keeps the volume <name>-service-account, which every shard and front-proxy
// mounts when service account authentication is on, within the 63 characters of a DNS label.
const MaxNameLength = 47

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A RootShard that fails validation composes nothing new and deletes nothing.
func Validate(rs *v1alpha1.RootShard) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.Budget(rs.Spec, check.Everywhere(check.PerKindCopies))...)
	errs = append(errs, check.Templates(rs.Spec)...)
	spec := field.NewPath("spec")
	s := rs.Spec
	tag := kcpimage.Resolve(s.Image).Tag
	errs = append(errs, check.DisruptionBudget(spec.Child("podDisruptionBudget"), s.Replicas, defaultReplicas(s), s.PodDisruptionBudget)...)

	errs = append(errs, check.NameLength(rs.GetName(), MaxNameLength)...)
	errs = append(errs, check.ClusterDomain(spec.Child("clusterDomain"), s.ClusterDomain)...)
	if s.ShardBaseURL != "" {
		errs = append(errs, check.BaseURL(spec.Child("shardBaseURL"), s.ShardBaseURL)...)
	}
	errs = append(errs, check.Public(spec.Child("public"), s.Public, s.ShardBaseURL)...)
	if s.Etcd.Embedded() {
		errs = append(errs, check.EmbeddedEtcd(spec, s.Etcd, s.Replicas)...)
	} else {
		errs = append(errs, check.Etcd(spec.Child("etcd"), s.Etcd)...)
	}
	errs = append(errs, validateEmbeddedCache(spec, rs, tag)...)
	errs = append(errs, check.External(spec.Child("external"), s.External)...)
	errs = append(errs, validateCertificates(spec.Child("certificates"), s.Certificates)...)
	errs = append(errs, check.Image(spec.Child("image"), s.Image)...)
	errs = append(errs, check.ObjectLimit(spec.Child("objectLimit"), s.ObjectLimit, tag, kcpversion.SupportsObjectLimit(tag))...)
	errs = append(errs, check.ServerFeatures(spec, &s.CommonShardSpec)...)
	errs = append(errs, check.AuditLogVolume(spec.Child("audit", "log", "volume"), s.Audit)...)
	errs = append(errs, check.Replicas(spec.Child("replicas"), s.Replicas)...)
	errs = append(errs, check.Auth(spec.Child("auth"), s.Auth)...)
	errs = append(errs, check.Resources(spec.Child("resources"), s.Resources)...)
	if p := s.Proxy; p != nil {
		errs = append(errs, check.Image(spec.Child("proxy", "image"), p.Image)...)
		errs = append(errs, check.Replicas(spec.Child("proxy", "replicas"), p.Replicas)...)
		errs = append(errs, check.Resources(spec.Child("proxy", "resources"), p.Resources)...)
	}
	errs = append(errs, validateExtraVolumes(spec, rs)...)
	return errs
}

// validateEmbeddedCache refuses a root shard whose embedded cache would store among its own
// keys: from kcp v0.33 the cache inherits the shard's --etcd-prefix
// (kcpversion.EmbeddedCacheCollides). A root shard already running is kept, on its version.
func validateEmbeddedCache(spec *field.Path, rs *v1alpha1.RootShard, tag string) field.ErrorList {
	if rs.Spec.Cache.Ref != nil {
		return nil
	}
	why := kcpversion.EmbeddedCacheCollides(tag, rs.Spec.Etcd.Prefix)
	if why == "" {
		return nil
	}
	return field.ErrorList{field.Forbidden(spec.Child("etcd", "prefix"),
		why+"; name a CacheServer in spec.cache.ref, store the root shard without a prefix, or stay on kcp v0.32 (spec.image.tag)")}
}

// validateExtraVolumes rejects extra volumes whose names clash with generated ones and extra
// mounts of volumes that do not exist: the API server would reject the Deployment.
func validateExtraVolumes(spec *field.Path, rs *v1alpha1.RootShard) field.ErrorList {
	c := &composer{b: builder.New(rs.GetName(), rs.GetNamespace(), observed.New(nil)), rs: rs, name: names.RootShard(rs.GetName())}
	allVolumes := func() []string {
		srv := c.server()
		srv.EncryptionConfig = "encryption" // every optional volume, so any possible clash is caught
		return srv.AllVolumeNames()
	}
	errs := check.ExtraVolumes(spec, allVolumes, rs.Spec.ExtraVolumes, rs.Spec.ExtraVolumeMounts)
	if p := rs.Spec.Proxy; p != nil {
		proxyVols := func() []string {
			var out []string
			generated, _, _ := c.rootProxy().Mounts()
			for _, v := range generated.Volumes() {
				out = append(out, v.Name)
			}
			return out
		}
		errs = append(errs, check.ExtraVolumes(spec.Child("proxy"), proxyVols, p.ExtraVolumes, p.ExtraVolumeMounts)...)
	}
	return errs
}

// Warnings are accepted but probably not what the user meant.
func Warnings(rs *v1alpha1.RootShard) []string {
	var out []string
	out = append(out, check.UnknownTemplateKeys("spec.certificateTemplates", rs.Spec.CertificateTemplates, append(slices.Clone(leafTemplateKeys), caTemplateKeys...))...)
	if p := rs.Spec.Proxy; p != nil {
		out = append(out, check.UnknownTemplateKeys("spec.proxy.certificateTemplates", p.CertificateTemplates, proxyTemplateKeys)...)
	}
	if rs.Spec.Cache.Embedded != nil {
		out = append(out, "spec.cache.embedded is deprecated and ignored: the root shard runs an embedded cache whenever spec.cache.ref is empty")
	}
	out = append(out, extraWarnings(rs)...)
	return out
}

// validateCertificates checks that exactly one root CA source is given.
func validateCertificates(p *field.Path, c v1alpha1.Certificates) field.ErrorList {
	switch {
	case c.IssuerRef != nil && c.CASecretRef != nil:
		return field.ErrorList{field.Forbidden(p, "set either issuerRef (a cert-manager issuer for the root CA) or caSecretRef (an existing CA Secret), not both")}
	case c.IssuerRef == nil && c.CASecretRef == nil:
		return field.ErrorList{field.Required(p.Child("issuerRef"), "set issuerRef to a cert-manager Issuer or ClusterIssuer that issues the root CA, or caSecretRef to an existing CA Secret")}
	case c.IssuerRef != nil:
		return check.IssuerRef(p.Child("issuerRef"), c.IssuerRef)
	case c.CASecretRef.Name == "":
		return field.ErrorList{field.Required(p.Child("caSecretRef", "name"), "name the Secret holding the CA's tls.crt and tls.key")}
	}
	return nil
}
