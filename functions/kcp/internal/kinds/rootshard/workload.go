package rootshard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
)

// server describes the root shard's kcp server.
func (c *composer) server() kcpserver.Server {
	srv := kcpserver.Server{
		Name:         string(c.name),
		Namespace:    c.b.Namespace,
		Root:         c.name,
		IsRoot:       true,
		Spec:         &c.rs.Spec.CommonShardSpec,
		BaseURL:      c.baseURL,
		RootExternal: c.rs.Spec.External,
		RootCASecret: names.RootCASecret(c.rs),
	}
	if a := c.rs.Spec.Auth; a != nil && a.ServiceAccount != nil && a.ServiceAccount.Enabled {
		srv.ServiceAccountCerts = kcpserver.ServiceAccountCerts(string(c.name), c.shardNames())
	}
	if ref := c.rs.Spec.Cache.Ref; ref != nil {
		srv.CacheServer = ref.Name
	}
	c.encryption.Apply(&srv, nil)
	if ref := c.rs.Spec.KcpVirtualWorkspace; ref != nil {
		c.b.Inputs.Require(required.Named(v1alpha1.KindVirtualWorkspace, ref.Name))
		if vw, ok := required.VirtualWorkspace(c.b.St, ref.Name); ok {
			srv.VirtualWorkspaceURL = names.ExternalURL(vw.Spec.External)
		}
	}
	return srv
}

// composeRootShardWorkload composes the <rs>-kcp Deployment and Service once every mounted
// Secret exists. An existing Deployment is kept unchanged while an input is missing.
func (c *composer) composeRootShardWorkload() builder.Outcome {
	srv := c.server()
	key := c.b.Key("deployment", "kcp")
	var blockers []string
	if ref := c.rs.Spec.KcpVirtualWorkspace; ref != nil && srv.VirtualWorkspaceURL == "" {
		// Without the VirtualWorkspace's URL the flags cannot be rendered: hold the workload.
		blockers = append(blockers, "VirtualWorkspace "+ref.Name+" (spec.kcpVirtualWorkspace.name)")
	}
	for _, sa := range srv.ServiceAccountCerts[min(1, len(srv.ServiceAccountCerts)):] {
		c.b.Inputs.External(inputs.KindSecret, sa.Secret, "spec.auth.serviceAccount (service account key of Shard "+sa.Owner+")")
	}
	blockers = c.encryption.Apply(&srv, blockers)
	return c.b.Workload(builder.Workload{
		Name:          srv.DeploymentName(),
		DeploymentKey: key,
		ServiceKey:    c.b.Key("service", "kcp"),
		Mounts:        append(srv.Mounts(), srv.Authentication().Mounts...),
		Blockers:      blockers,
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return srv.Deployment(c.b.Replicas(key, c.rs.Spec.Replicas, builder.DefaultReplicas), c.encryption.Annotate(podAnnotations)), srv.Service()
		},
		DisruptionBudget: c.rs.Spec.PodDisruptionBudget,
	})
}
