package cacheserver

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// GeneratedFlags are the names of the flags the cache server's container gets from its spec,
// with every option on too (an external etcd with TLS and a prefix, and the embedded etcd),
// without its extra arguments.
func GeneratedFlags(cs *v1alpha1.CacheServer) []string {
	var args []string
	for _, change := range []func(*v1alpha1.CacheServerSpec){
		func(*v1alpha1.CacheServerSpec) {},
		func(s *v1alpha1.CacheServerSpec) { s.Etcd = nil },
		func(s *v1alpha1.CacheServerSpec) {
			s.Etcd = workload.Everything[v1alpha1.EtcdConfig]()
			s.Logging = workload.Everything[v1alpha1.LoggingSpec]()
		},
	} {
		v := *cs
		v.Spec.ExtraArgs = nil
		change(&v.Spec)
		args = append(args, server(&v, kcpimage.Resolve(&v1alpha1.ImageSpec{Tag: "main"})).Args()...)
	}
	return check.FlagNames(args)
}

// extraWarnings say which extra arguments replace generated flags and which extra volumes a
// namespace enforcing Pod Security "restricted" refuses: the platform's choice, which a
// KcpInstallation's tenant does not have.
func extraWarnings(cs *v1alpha1.CacheServer) []string {
	spec := field.NewPath("spec")
	out := check.GeneratedFlagWarnings(spec.Child("extraArgs"), func() []string { return GeneratedFlags(cs) }, cs.Spec.ExtraArgs)
	return append(out, check.RestrictedVolumeWarnings(spec.Child("extraVolumes"), cs.Spec.ExtraVolumes)...)
}
