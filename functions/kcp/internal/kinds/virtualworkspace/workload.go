package virtualworkspace

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/vwserver"
)

// composeWorkload composes the server's Deployment and Service once every input exists.
func (c *composer) composeWorkload(srv vwserver.Server) builder.Outcome {
	key := c.b.Key("deployment", srv.DeploymentName())
	return c.b.Workload(builder.Workload{
		Name:          srv.DeploymentName(),
		DeploymentKey: key,
		ServiceKey:    c.b.Key("service", srv.DeploymentName()),
		Mounts:        srv.Pod().Generated,
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return srv.Deployment(c.b.Replicas(key, c.vw.Spec.Replicas, builder.DefaultReplicas), podAnnotations), srv.Service()
		},
		DisruptionBudget: c.vw.Spec.PodDisruptionBudget,
	})
}
