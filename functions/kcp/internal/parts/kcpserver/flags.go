package kcpserver

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// GeneratedFlags are the names of the flags this renderer writes for s, and would write with
// every option of its spec on: a flag the spec does not switch on today is still the
// package's (the installation's own fields set it), so an extra argument setting it is
// judged the same whatever else the spec says. Extra arguments are left out.
func (s Server) GeneratedFlags() []string {
	actual := s.withSpec(func(*v1alpha1.CommonShardSpec) {})
	every := s.withSpec(func(sp *v1alpha1.CommonShardSpec) {
		sp.Image = &v1alpha1.ImageSpec{Tag: "main"} // not a version: every versioned flag on
		sp.Etcd = *workload.Everything[v1alpha1.EtcdConfig]()
		sp.Audit = workload.Everything[v1alpha1.AuditSpec]()
		sp.Authorization = workload.Everything[v1alpha1.AuthorizationSpec]()
		sp.Auth = workload.Everything[v1alpha1.AuthSpec]()
		sp.Logging = workload.Everything[v1alpha1.LoggingSpec]()
		sp.Public = workload.Everything[v1alpha1.PublicEndpoint]()
		sp.ObjectLimit = workload.Everything[v1alpha1.ObjectLimit]()
		sp.HomeWorkspaces = workload.Everything[v1alpha1.HomeWorkspaces]()
		sp.Profiling = workload.Everything[v1alpha1.Profiling]()
	})
	every.CacheServer, every.VirtualWorkspaceURL = "x", "x"
	every.ServiceAccountCerts = []workload.ServiceAccountCert{{Owner: "x", Secret: "x"}}
	public := every
	public.VirtualWorkspaceURL = "" // the public endpoint's branch of the virtual workspace flags
	return check.FlagNames(append(append(actual.Args(), every.Args()...), public.Args()...))
}

// withSpec is s with a copy of its spec, without extra arguments, changed by change.
func (s Server) withSpec(change func(*v1alpha1.CommonShardSpec)) Server {
	spec := *s.Spec
	spec.ExtraArgs = nil
	change(&spec)
	s.Spec = &spec
	return s
}
