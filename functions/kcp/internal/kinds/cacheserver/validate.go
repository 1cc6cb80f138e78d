package cacheserver

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// MaxNameLength keeps the <name>-cache-server Service name within the 63 characters of a
// DNS label.
const MaxNameLength = 63 - len("-cache-server")

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A CacheServer that fails validation composes nothing new and deletes nothing.
func Validate(cs *v1alpha1.CacheServer) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := cs.Spec

	if n := cs.GetName(); len(n) > MaxNameLength {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), n, MaxNameLength))
	}
	if s.ClusterDomain != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.ClusterDomain) {
			errs = append(errs, field.Invalid(spec.Child("clusterDomain"), s.ClusterDomain, msg))
		}
	}
	errs = append(errs, validateCertificates(spec.Child("certificates"), s.Certificates)...)
	errs = append(errs, rootshard.ValidateImage(spec.Child("image"), s.Image)...)
	if s.Etcd != nil {
		errs = append(errs, rootshard.ValidateEtcd(spec.Child("etcd"), *s.Etcd)...)
	}
	if r := s.Replicas; r != nil {
		switch {
		case *r < 0:
			errs = append(errs, field.Invalid(spec.Child("replicas"), *r, "must not be negative"))
		case *r > EmbeddedReplicas && s.Etcd == nil:
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
	if r.Name == "" {
		errs = append(errs, field.Required(p.Child("issuerRef", "name"), "name the cert-manager issuer"))
	}
	if (r.Group == "" || r.Group == "cert-manager.io") && r.Kind != "" && r.Kind != "Issuer" && r.Kind != "ClusterIssuer" {
		errs = append(errs, field.NotSupported(p.Child("issuerRef", "kind"), r.Kind, []string{"Issuer", "ClusterIssuer"}))
	}
	return errs
}

// validateExtraVolumes rejects extra volumes whose names clash with generated ones and extra
// mounts of volumes that do not exist: the API server would reject the Deployment.
func validateExtraVolumes(spec *field.Path, cs *v1alpha1.CacheServer) field.ErrorList {
	c := &composer{cs: cs, name: names.CacheServer(cs.GetName()), image: workload.ResolveImage(cs.Spec.Image)}
	return workload.ValidateExtraVolumes(spec, c.generatedVolumeNames(), cs.Spec.ExtraVolumes, cs.Spec.ExtraVolumeMounts)
}

// Warnings are accepted but probably not what the user meant.
func Warnings(cs *v1alpha1.CacheServer) []string {
	var out []string
	for k := range cs.Spec.CertificateTemplates {
		if !slices.Contains(templateKeys, k) {
			out = append(out, fmt.Sprintf("spec.certificateTemplates[%q] matches no certificate and is ignored; known keys: %v", k, templateKeys))
		}
	}
	sort.Strings(out)
	if r := cs.Spec.Replicas; r != nil && *r == 0 && cs.Spec.Etcd == nil {
		out = append(out, "spec.replicas: 0 is ignored without spec.etcd: a cache server with an embedded etcd always runs exactly 1 replica")
	}
	return out
}
