package rootshard

import (
	"github.com/crossplane/function-sdk-go/resource"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/gate"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/workload"
)

// DefaultReplicas of kcp Deployments when neither the spec nor a live Deployment says.
const DefaultReplicas = 2

// workloadOutcome says what happened to one Deployment.
type workloadOutcome struct {
	name string
	key  resource.Name
	// composed is true when the Deployment is in the desired state (built or kept).
	composed bool
	verdict  gate.Verdict
}

// server describes the root shard's kcp server.
func (c *composer) server() kcpserver.Server {
	srv := kcpserver.Server{
		Name:         string(c.name),
		Namespace:    c.namespace,
		Root:         c.name,
		IsRoot:       true,
		Spec:         &c.rs.Spec.CommonShardSpec,
		BaseURL:      c.baseURL,
		RootExternal: c.rs.Spec.External,
		RootCASecret: c.rootCASecret(),
		ServiceAccountCerts: []workload.ServiceAccountCert{
			{Owner: string(c.name), Secret: c.name.Cert("service-account")},
		},
	}
	if ref := c.rs.Spec.Cache.Ref; ref != nil {
		srv.CacheServer = ref.Name
	}
	return srv
}

// composeRootShardWorkload composes the <rs>-kcp Deployment and Service once every mounted
// Secret exists. An existing Deployment is kept unchanged while an input is missing.
func (c *composer) composeRootShardWorkload() workloadOutcome {
	srv := c.server()
	out := workloadOutcome{name: srv.DeploymentName(), key: c.key("deployment", "kcp")}
	out.verdict = c.inputs.Check(append(srv.Mounts(), srv.Authentication().Mounts...), c.st, &c.out.Desired)
	dep := srv.Deployment(c.replicas(out.key, c.rs.Spec.Replicas), out.verdict.Rollout.Annotations())
	out.composed = c.addWorkload(out.key, c.key("service", "kcp"), dep, srv.Service(), out.verdict)
	return out
}

// replicas is the spec's value, else the live Deployment's (so an autoscaler's choice
// survives), else DefaultReplicas.
func (c *composer) replicas(key resource.Name, spec *int32) int32 {
	if spec != nil {
		return *spec
	}
	if r, ok := c.st.DeploymentReplicas(key); ok {
		return r
	}
	return DefaultReplicas
}

// addWorkload composes a Deployment and its Service when the gate is open. While it is
// closed an existing Deployment and Service are kept exactly as they are, and nothing is
// created. It reports whether the Deployment is desired.
func (c *composer) addWorkload(depKey, svcKey resource.Name, dep *appsv1.Deployment, svc *corev1.Service, v gate.Verdict) bool {
	if v.Open() {
		c.out.Desired.Add(depKey, dep, readiness(c.st.DeploymentAvailable(depKey)))
		c.out.Desired.Add(svcKey, svc, readiness(c.st.Exists(svcKey)))
		return true
	}
	kept := false
	if u, ok := c.st.Get(depKey); ok {
		c.out.Desired.Keep(depKey, u, readiness(c.st.DeploymentAvailable(depKey)))
		kept = true
	}
	if u, ok := c.st.Get(svcKey); ok {
		c.out.Desired.Keep(svcKey, u, resource.ReadyTrue)
	}
	return kept
}
