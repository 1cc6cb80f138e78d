package proxy

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// GeneratedFlags are the names of the flags this renderer writes for p, and would write with
// every option on (kcpserver.Server.GeneratedFlags says why). Extra arguments are left out.
func (p Proxy) GeneratedFlags() []string {
	p.ExtraArgs = nil
	every := p
	every.Image = kcpimage.Resolve(&v1alpha1.ImageSpec{Tag: "main"}) // not a version: every versioned flag on
	every.PublicServingCert, every.PublicDNSNames = "x", []string{"x"}
	every.Logging = workload.Everything[v1alpha1.LoggingSpec]()
	every.Auth = workload.Everything[v1alpha1.AuthSpec]()
	every.Profiling = workload.Everything[v1alpha1.Profiling]()
	every.ServiceAccountCerts = []workload.ServiceAccountCert{{Owner: "x", Secret: "x"}}
	return check.FlagNames(append(p.Args(), every.Args()...))
}
