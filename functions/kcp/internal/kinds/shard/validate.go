package shard

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// MaxNameLength keeps the volume <name>-service-account, which every shard and front-proxy
// mounts when service account authentication is on, within the 63 characters of a DNS label.
const MaxNameLength = 47

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A Shard that fails validation composes nothing new and deletes nothing.
func Validate(sh *v1alpha1.Shard) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := sh.Spec
	if n := sh.GetName(); len(n) > MaxNameLength {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), n, MaxNameLength))
	}
	if r := s.RootShard.Ref; r == nil || r.Name == "" {
		errs = append(errs, field.Required(spec.Child("rootShard", "ref", "name"), "name the RootShard (in the same namespace) this shard belongs to"))
	}
	if s.ClusterDomain != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.ClusterDomain) {
			errs = append(errs, field.Invalid(spec.Child("clusterDomain"), s.ClusterDomain, msg))
		}
	}
	if s.ShardBaseURL != "" {
		errs = append(errs, rootshard.ValidateBaseURL(spec.Child("shardBaseURL"), s.ShardBaseURL)...)
	}
	errs = append(errs, rootshard.ValidateEtcd(spec.Child("etcd"), s.Etcd)...)
	errs = append(errs, rootshard.ValidateImage(spec.Child("image"), s.Image)...)
	errs = append(errs, rootshard.ValidateReplicas(spec.Child("replicas"), s.Replicas)...)
	errs = append(errs, rootshard.ValidateAuth(spec.Child("auth"), s.Auth)...)
	if c := s.Cache; c != nil && c.Ref != nil && c.Ref.Name == "" {
		errs = append(errs, field.Required(spec.Child("cache", "ref", "name"), "name the CacheServer, or remove spec.cache to use the RootShard's cache"))
	}
	errs = append(errs, validateExtraVolumes(spec, sh)...)
	return errs
}

// validateExtraVolumes rejects extra volumes whose names clash with generated ones, and extra
// mounts of volumes that do not exist.
func validateExtraVolumes(spec *field.Path, sh *v1alpha1.Shard) field.ErrorList {
	// Every optional volume is switched on, so any possible clash is caught.
	srv := kcpserver.Server{Name: sh.Name, Spec: &sh.Spec.CommonShardSpec, CacheServer: "cache", InheritedClientCABundle: true}
	if r := sh.Spec.RootShard.Ref; r != nil {
		srv.Root = names.RootShard(r.Name)
	}
	return workload.ValidateExtraVolumes(spec, srv.AllVolumeNames(), sh.Spec.ExtraVolumes, sh.Spec.ExtraVolumeMounts)
}
