package cacheserver

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/cache"
)

// server is what parts/cache renders for cs, running image.
func server(cs *v1alpha1.CacheServer, image kcpimage.Image) cache.Server {
	return cache.Server{Name: names.CacheServer(cs.GetName()), Namespace: cs.GetNamespace(), Spec: &cs.Spec, Image: image}
}

// composeWorkload composes the <cs>-cache-server Deployment and Service once the certificates
// it mounts are issued and the Secrets it mounts exist. While an input is missing an existing
// Deployment and Service are kept unchanged and nothing is created.
func (c *composer) composeWorkload() builder.Outcome {
	s := server(c.cs, c.image)
	name := c.name.Deployment()
	return c.b.Workload(builder.Workload{
		Name:          name,
		DeploymentKey: c.b.Key("deployment", name),
		ServiceKey:    c.b.Key("service", name),
		Mounts:        append(s.Scratch(), s.SecretMounts()...),
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return s.Deployment(podAnnotations), s.Service()
		},
		DisruptionBudget: c.cs.Spec.PodDisruptionBudget,
	})
}
