package virtualworkspace

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/vwserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// GeneratedFlags are the names of the flags the server's container gets from its spec, with
// every option on too (a cache server, a log level), without its extra arguments.
func GeneratedFlags(vw *v1alpha1.VirtualWorkspace) []string {
	spec := vw.Spec
	spec.ExtraArgs, spec.Command = nil, nil
	every := spec
	every.Logging = workload.Everything[v1alpha1.LoggingSpec]()
	every.Profiling = workload.Everything[v1alpha1.Profiling]()
	actual := vwserver.Server{Name: vw.Name, Spec: &spec, Root: names.RootShard("x")}
	all := vwserver.Server{Name: vw.Name, Spec: &every, Root: names.RootShard("x"), CacheServer: "x"}
	return check.FlagNames(append(actual.Args(), all.Args()...))
}

// extraWarnings say which extra arguments replace generated flags and which extra volumes
// (the server's and its init containers') a namespace enforcing Pod Security "restricted"
// refuses: the platform's choice, which a KcpInstallation's tenant does not have.
func extraWarnings(vw *v1alpha1.VirtualWorkspace) []string {
	spec := field.NewPath("spec")
	out := check.GeneratedFlagWarnings(spec.Child("extraArgs"), func() []string { return GeneratedFlags(vw) }, vw.Spec.ExtraArgs)
	out = append(out, check.RestrictedVolumeWarnings(spec.Child("extraVolumes"), vw.Spec.ExtraVolumes)...)
	for i, ic := range vw.Spec.InitContainers {
		out = append(out, check.RestrictedVolumeWarnings(spec.Child("initContainers").Index(i).Child("volumes"), ic.Volumes)...)
	}
	return out
}
