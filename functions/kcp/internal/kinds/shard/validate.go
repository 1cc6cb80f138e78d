package shard

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
)

// MaxNameLength keeps the volume <name>-service-account, which every shard and front-proxy
// mounts when service account authentication is on, within the 63 characters of a DNS label.
const MaxNameLength = 47

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A Shard that fails validation composes nothing new and deletes nothing.
func Validate(sh *v1alpha1.Shard) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.Budget(sh.Spec, check.Everywhere(check.PerKindCopies))...)
	errs = append(errs, check.Templates(sh.Spec)...)
	spec := field.NewPath("spec")
	s := sh.Spec
	errs = append(errs, check.NameLength(sh.GetName(), MaxNameLength)...)
	errs = append(errs, check.DisruptionBudget(spec.Child("podDisruptionBudget"), s.Replicas, builder.DefaultReplicas, s.PodDisruptionBudget)...)
	errs = append(errs, check.RootShard(spec.Child("rootShard"), s.RootShard, "this shard belongs to")...)
	errs = append(errs, check.ClusterDomain(spec.Child("clusterDomain"), s.ClusterDomain)...)
	if s.ShardBaseURL != "" {
		errs = append(errs, check.BaseURL(spec.Child("shardBaseURL"), s.ShardBaseURL)...)
	}
	errs = append(errs, check.Public(spec.Child("public"), s.Public, s.ShardBaseURL)...)
	errs = append(errs, check.Etcd(spec.Child("etcd"), s.Etcd)...)
	errs = append(errs, check.Image(spec.Child("image"), s.Image)...)
	tag := kcpimage.Resolve(s.Image).Tag
	errs = append(errs, check.ObjectLimit(spec.Child("objectLimit"), s.ObjectLimit, tag, kcpversion.SupportsObjectLimit(tag))...)
	errs = append(errs, check.ServerFeatures(spec, &s.CommonShardSpec)...)
	errs = append(errs, check.AuditLogVolume(spec.Child("audit", "log", "volume"), s.Audit)...)
	errs = append(errs, check.Replicas(spec.Child("replicas"), s.Replicas)...)
	errs = append(errs, check.Auth(spec.Child("auth"), s.Auth)...)
	errs = append(errs, check.Resources(spec.Child("resources"), s.Resources)...)
	if c := s.Cache; c != nil && c.Ref != nil && c.Ref.Name == "" {
		errs = append(errs, field.Required(spec.Child("cache", "ref", "name"), "name the CacheServer, or remove spec.cache to use the RootShard's cache"))
	}
	errs = append(errs, validateExtraVolumes(spec, sh)...)
	errs = append(errs, check.Placement(spec.Child("placement"), s.Placement, s.Monitoring)...)
	if s.Placement != nil && s.ShardBaseURL == "" {
		errs = append(errs, field.Required(spec.Child("shardBaseURL"), "a shard placed in another cluster is reached by its shardBaseURL (its Service name resolves only there); set it to a URL the root shard and the front-proxies reach"))
	}
	if s.Placement != nil && s.Encryption != nil {
		// A key rotation waits for each configuration to be in place before the pods read it,
		// and a copy in another cluster arrives on provider-kubernetes' next poll, unobserved.
		errs = append(errs, field.Forbidden(spec.Child("encryption"), "encryption at rest is not offered yet for a shard placed in another cluster: its rotation cannot see when the configuration has reached that cluster. Remove spec.encryption, or run the shard here"))
	}
	return errs
}

// validateExtraVolumes rejects extra volumes whose names clash with generated ones, and extra
// mounts of volumes that do not exist.
func validateExtraVolumes(spec *field.Path, sh *v1alpha1.Shard) field.ErrorList {
	// Every optional volume is switched on, so any possible clash is caught.
	srv := kcpserver.Server{Name: sh.Name, Spec: &sh.Spec.CommonShardSpec, CacheServer: "cache", InheritedClientCABundle: true, EncryptionConfig: "encryption"}
	if r := sh.Spec.RootShard.Ref; r != nil {
		srv.Root = names.RootShard(r.Name)
	}
	return check.ExtraVolumes(spec, srv.AllVolumeNames, sh.Spec.ExtraVolumes, sh.Spec.ExtraVolumeMounts)
}
