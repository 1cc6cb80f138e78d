package rootshard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/workload"
)

// server describes the root shard's kcp server.
func (c *composer) server() kcpserver.Server {
	srv := kcpserver.Server{
		Name:         string(c.name),
		Namespace:    c.Namespace,
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
func (c *composer) composeRootShardWorkload() compose.Outcome {
	srv := c.server()
	key := c.Key("deployment", "kcp")
	return c.Workload(compose.Workload{
		Name:          srv.DeploymentName(),
		DeploymentKey: key,
		ServiceKey:    c.Key("service", "kcp"),
		Mounts:        append(srv.Mounts(), srv.Authentication().Mounts...),
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return srv.Deployment(c.Replicas(key, c.rs.Spec.Replicas, compose.DefaultReplicas), podAnnotations), srv.Service()
		},
	})
}
