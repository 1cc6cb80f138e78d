package rootshard

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/gate"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/proxy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/workload"
)

// rootProxy describes the RootShard's internal proxy <rs>-proxy, through which admin
// clients reach every shard without the front-proxy dropping system:masters.
func (c *composer) rootProxy() proxy.Proxy {
	spec := c.rs.Spec.Proxy
	p := proxy.Proxy{
		Mode:             proxy.RootProxy,
		Name:             c.name.Proxy(),
		Namespace:        c.namespace,
		Labels:           names.Labels(string(c.name), names.ComponentRootShardProxy),
		Image:            workload.ResolveImage(nil),
		ServicePort:      6443,
		RootShardBaseURL: c.baseURL,
		Secrets: proxy.Secrets{
			DynamicKubeconfig: c.name.ProxyDynamicKubeconfig(),
			KubeconfigCert:    c.name.ProxyCert("kubeconfig"),
			ServingCert:       c.name.ProxyCert("server"),
			RequestHeaderCert: c.name.ProxyCert("requestheader"),
			RootCA:            c.rootCASecret(),
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
		p.Image = workload.ResolveImage(spec.Image)
		p.Resources = spec.Resources
		p.Logging = spec.Logging
		p.ExtraArgs = spec.ExtraArgs
		p.ExtraVolumes = spec.ExtraVolumes
		p.ExtraVolumeMounts = spec.ExtraVolumeMounts
		p.DeploymentTemplate = spec.DeploymentTemplate
		p.ServiceTemplate = spec.ServiceTemplate
		replicas = spec.Replicas
	}
	p.Replicas = c.replicas(c.key("deployment", "proxy"), replicas)
	return p
}

// composeProxy composes the internal proxy's path mapping, kubeconfig, Deployment and
// Service. Its certificates and client CA bundle are composed with the rest of the PKI.
func (c *composer) composeProxy() workloadOutcome {
	p := c.rootProxy()

	cmKey := c.key("configmap", p.Secrets.ConfigMap)
	c.inputs.Composed(gate.KindConfigMap, p.Secrets.ConfigMap, cmKey)
	c.out.Desired.Add(cmKey, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Secrets.ConfigMap, Namespace: c.namespace, Labels: p.Labels},
		Data:       map[string]string{"path-mapping.yaml": string(p.PathMappingYAML())},
	}, readiness(c.st.Exists(cmKey)))

	kcKey := c.key("secret", p.Secrets.DynamicKubeconfig)
	c.inputs.Composed(gate.KindSecret, p.Secrets.DynamicKubeconfig, kcKey)
	c.out.Desired.Add(kcKey, &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Secrets.DynamicKubeconfig, Namespace: c.namespace, Labels: p.Labels},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"kubeconfig": p.DynamicKubeconfig()},
	}, readiness(c.st.Exists(kcKey)))

	m, _, _ := p.Mounts()
	out := workloadOutcome{name: p.Name, key: c.key("deployment", "proxy")}
	out.verdict = c.inputs.Check(m, c.st, &c.out.Desired)
	out.composed = c.addWorkload(out.key, c.key("service", "proxy"), p.Deployment(out.verdict.Rollout.Annotations()), p.Service(), out.verdict)
	return out
}
