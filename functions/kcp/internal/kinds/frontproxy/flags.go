package frontproxy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/proxy"
)

// GeneratedFlags are the names of the flags the front-proxy's container gets from its spec,
// with every option on too, without its extra arguments.
func GeneratedFlags(fp *v1alpha1.FrontProxy) []string {
	s := fp.Spec
	p := proxy.Proxy{Mode: proxy.FrontProxy, Image: kcpimage.Resolve(s.Image), Logging: s.Logging, Auth: s.Auth}
	if s.PublicServerCertificate != nil {
		p.PublicServingCert, p.PublicDNSNames = "x", []string{"x"}
	}
	return p.GeneratedFlags()
}

// extraWarnings say which extra arguments replace generated flags and which extra volumes a
// namespace enforcing Pod Security "restricted" refuses: the platform's choice, which a
// KcpInstallation's tenant does not have.
func extraWarnings(fp *v1alpha1.FrontProxy) []string {
	spec := field.NewPath("spec")
	out := check.GeneratedFlagWarnings(spec.Child("extraArgs"), func() []string { return GeneratedFlags(fp) }, fp.Spec.ExtraArgs)
	return append(out, check.RestrictedVolumeWarnings(spec.Child("extraVolumes"), fp.Spec.ExtraVolumes)...)
}
