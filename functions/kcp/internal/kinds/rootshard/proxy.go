package rootshard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/proxy"
)

// rootProxy describes the RootShard's internal proxy <rs>-proxy, through which admin
// clients reach every shard without the front-proxy dropping system:masters.
func (c *composer) rootProxy() proxy.Proxy {
	spec := c.rs.Spec.Proxy
	p := proxy.Proxy{
		Mode:             proxy.RootProxy,
		Name:             c.name.Proxy(),
		Namespace:        c.b.Namespace,
		Labels:           names.Labels(string(c.name), names.ComponentRootShardProxy),
		Image:            kcpimage.Resolve(nil),
		ServicePort:      6443,
		RootShardBaseURL: c.baseURL,
		Secrets: proxy.Secrets{
			DynamicKubeconfig: c.name.ProxyDynamicKubeconfig(),
			KubeconfigCert:    c.name.ProxyCert("kubeconfig"),
			ServingCert:       c.name.ProxyCert("server"),
			RequestHeaderCert: c.name.ProxyCert("requestheader"),
			RootCA:            names.RootCASecret(c.rs),
			RequestHeaderCA:   c.name.CA(names.CARequestHeaderClient),
			MergedClientCA:    c.name.ProxyMergedClientCA(),
			ConfigMap:         c.name.ProxyConfig(),
		},
	}
	if c.rs.Spec.CABundleSecretRef != nil {
		p.Secrets.MergedCABundle = c.name.ProxyMergedCABundle()
	}
	var replicas *int32
	if spec != nil {
		p.Image = kcpimage.Resolve(spec.Image)
		p.Resources = spec.Resources
		p.Logging = spec.Logging
		p.ExtraArgs = spec.ExtraArgs
		p.ExtraVolumes = spec.ExtraVolumes
		p.ExtraVolumeMounts = spec.ExtraVolumeMounts
		p.DeploymentTemplate = spec.DeploymentTemplate
		p.ServiceTemplate = spec.ServiceTemplate
		replicas = spec.Replicas
	}
	p.Replicas = c.b.Replicas(c.b.Key("deployment", "proxy"), replicas, builder.DefaultReplicas)
	return p
}

// composeProxy composes the internal proxy's path mapping, kubeconfig, Deployment and
// Service. Its certificates and client CA bundle are composed with the rest of the PKI.
func (c *composer) composeProxy() builder.Outcome {
	p := c.rootProxy()
	c.b.ConfigMap(p.Secrets.ConfigMap, p.Labels, map[string]string{"path-mapping.yaml": string(p.PathMappingYAML())})
	c.b.Secret(p.Secrets.DynamicKubeconfig, p.Labels, map[string][]byte{"kubeconfig": p.DynamicKubeconfig()})
	m, _, _ := p.Mounts()
	return c.b.Workload(builder.Workload{
		Name:          p.Name,
		DeploymentKey: c.b.Key("deployment", "proxy"),
		ServiceKey:    c.b.Key("service", "proxy"),
		Mounts:        m,
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return p.Deployment(podAnnotations), p.Service()
		},
	})
}
