package rootshard

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/proxy"
)

// GeneratedFlags are the names of the flags the root shard's kcp container gets from its
// spec, with every option on too, without its extra arguments.
func GeneratedFlags(rs *v1alpha1.RootShard) []string {
	return kcpserver.Server{Name: rs.Name, Root: names.RootShard(rs.Name), IsRoot: true, Spec: &rs.Spec.CommonShardSpec}.GeneratedFlags()
}

// proxyFlags are the names of the flags of the internal proxy's container.
func proxyFlags(p *v1alpha1.RootShardProxySpec) []string {
	return proxy.Proxy{Mode: proxy.RootProxy, Image: kcpimage.Resolve(p.Image), Logging: p.Logging}.GeneratedFlags()
}

// extraWarnings say which extra arguments replace generated flags and which extra volumes a
// namespace enforcing Pod Security "restricted" refuses, for kcp and its internal proxy: the
// platform's choice, which a KcpInstallation's tenant does not have.
func extraWarnings(rs *v1alpha1.RootShard) []string {
	spec := field.NewPath("spec")
	out := check.GeneratedFlagWarnings(spec.Child("extraArgs"), func() []string { return GeneratedFlags(rs) }, rs.Spec.ExtraArgs)
	out = append(out, check.RestrictedVolumeWarnings(spec.Child("extraVolumes"), rs.Spec.ExtraVolumes)...)
	if p := rs.Spec.Proxy; p != nil {
		out = append(out, check.GeneratedFlagWarnings(spec.Child("proxy", "extraArgs"), func() []string { return proxyFlags(p) }, p.ExtraArgs)...)
		out = append(out, check.RestrictedVolumeWarnings(spec.Child("proxy", "extraVolumes"), p.ExtraVolumes)...)
	}
	return out
}
