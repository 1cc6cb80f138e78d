package rootshard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
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
			return srv.Deployment(c.replicas(key), c.encryption.Annotate(podAnnotations)), srv.Service()
		},
		DisruptionBudget: c.rs.Spec.PodDisruptionBudget,
	})
}

// replicas of the root shard's Deployment: spec.replicas, else the live count, else 2; with
// kcp's embedded etcd, which lives in the pod, spec.replicas or 1, whatever runs now (a
// second pod would be a second kcp with data of its own).
func (c *composer) replicas(key resource.Name) int32 {
	s := c.rs.Spec
	if s.Etcd.Embedded() {
		if s.Replicas != nil {
			return *s.Replicas // more than 1 is refused (check.EmbeddedEtcd)
		}
		return embeddedReplicas
	}
	return c.b.Replicas(key, s.Replicas, builder.DefaultReplicas)
}

// embeddedReplicas is the only replica count kcp's embedded etcd allows.
const embeddedReplicas = 1

// defaultReplicas is what runs without spec.replicas, for the disruption budget's check.
func defaultReplicas(s v1alpha1.RootShardSpec) int32 {
	if s.Etcd.Embedded() {
		return embeddedReplicas
	}
	return builder.DefaultReplicas
}
