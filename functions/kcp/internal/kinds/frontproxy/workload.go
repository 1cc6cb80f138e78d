package frontproxy

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/proxy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// serviceAccountsEnabled reports whether the front-proxy authenticates service accounts.
func (c *composer) serviceAccountsEnabled() bool {
	a := c.fp.Spec.Auth
	return a != nil && a.ServiceAccount != nil && a.ServiceAccount.Enabled
}

// serviceAccountCerts are the service-account certificate Secrets of the RootShard and every
// Shard of the RootShard, root first, then shards sorted by name: the front-proxy accepts
// tokens signed by any of them.
func (c *composer) serviceAccountCerts() []workload.ServiceAccountCert {
	if !c.serviceAccountsEnabled() {
		return nil
	}
	var shards []string
	if c.read.SameNamespace(c.b.Namespace) {
		// The Shards of a RootShard of another namespace are there, not here: the
		// front-proxy accepts tokens of the RootShard's key only.
		c.b.Inputs.Require(required.All(v1alpha1.KindShard))
		for _, sh := range required.ShardsOf(c.b.St, c.rs.Name) {
			shards = append(shards, sh.Name)
		}
	}
	return kcpserver.ServiceAccountCerts(c.rs.Name, shards)
}

// proxy describes the front-proxy workload.
func (c *composer) proxy() proxy.Proxy {
	s := c.fp.Spec
	p := proxy.Proxy{
		Mode:               proxy.FrontProxy,
		Name:               c.name.Deployment(),
		Namespace:          c.b.Namespace,
		Labels:             names.Labels(string(c.name), names.ComponentFrontProxy),
		Image:              kcpimage.Resolve(s.Image),
		Resources:          s.Resources,
		Logging:            s.Logging,
		ExtraArgs:          s.ExtraArgs,
		ExtraVolumes:       s.ExtraVolumes,
		ExtraVolumeMounts:  s.ExtraVolumeMounts,
		DeploymentTemplate: s.DeploymentTemplate,
		ServiceTemplate:    s.ServiceTemplate,
		ServicePort:        ServicePort(c.fp, c.rs),
		// Only /clusters/ and /services/ are mapped, to the root shard, as kcp-operator
		// does, not each Shard of the RootShard: kcp-front-proxy learns the shards and their
		// URLs from the root shard (--shards-kubeconfig) and routes each workspace's requests
		// to the shard that holds it. Mapping /clusters/ to every shard would make the first
		// mapping shadow the others.
		RootShardBaseURL:    names.RootShardURL(c.rs),
		Secrets:             secrets(c.name, c.root, names.RootCASecret(c.rs), s.CABundleSecretRef != nil),
		Auth:                s.Auth,
		ServiceAccountCerts: c.serviceAccountCerts(),
		Profiling:           s.Profiling,
	}
	if s.PublicServerCertificate != nil {
		p.PublicServingCert = c.name.Cert(c.root, names.CertPublicServer)
		p.PublicDNSNames = c.publicDNSNames()
	}
	for _, m := range s.AdditionalPathMappings {
		p.AdditionalPathMappings = append(p.AdditionalPathMappings, proxy.PathMapping{
			Path: m.Path, Backend: m.Backend, BackendServerCA: m.BackendServerCA, ProxyClientCert: m.ProxyClientCert, ProxyClientKey: m.ProxyClientKey,
		})
	}
	p.Replicas = c.b.Replicas(c.b.Key("deployment", p.Name), s.Replicas, builder.DefaultReplicas)
	return p
}

// secrets names what the front-proxy mounts.
func secrets(fp names.FrontProxy, root names.RootShard, rootCA string, caBundle bool) proxy.Secrets {
	s := proxy.Secrets{
		DynamicKubeconfig: fp.DynamicKubeconfig(root),
		KubeconfigCert:    fp.Cert(root, "kubeconfig"),
		ServingCert:       fp.Cert(root, "server"),
		RequestHeaderCert: fp.Cert(root, "requestheader"),
		RootCA:            rootCA,
		RequestHeaderCA:   root.CA(names.CARequestHeaderClient),
		MergedClientCA:    fp.MergedClientCA(),
		ConfigMap:         fp.Config(),
	}
	if caBundle {
		s.MergedCABundle = fp.MergedCABundle()
	}
	return s
}

// registerExternalInputs declares the Secrets the front-proxy mounts but does not compose:
// the RootShard's CAs, the service account keys of the RootShard and its Shards, and the
// user's authentication Secrets.
func (c *composer) registerExternalInputs(p proxy.Proxy) {
	rsRef := c.read.Field()
	c.b.Inputs.External(inputs.KindSecret, p.Secrets.RootCA, rsRef)
	m, _, _ := p.Mounts()
	if slices.Contains(m.SecretNames(), p.Secrets.RequestHeaderCA) {
		c.b.Inputs.External(inputs.KindSecret, p.Secrets.RequestHeaderCA, rsRef)
	}
	for _, sa := range p.ServiceAccountCerts {
		c.b.Inputs.External(inputs.KindSecret, sa.Secret, "spec.auth.serviceAccount (service account key of "+sa.Owner+")")
	}
	if a := c.fp.Spec.Auth; a != nil {
		if a.OIDC != nil && a.OIDC.CAFileRef != nil {
			c.b.Inputs.External(inputs.KindSecret, a.OIDC.CAFileRef.Name, "spec.auth.oidc.caFileRef.name")
		}
		if cfg := a.AuthenticationConfiguration; cfg != nil {
			c.b.Inputs.External(inputs.KindConfigMap, cfg.Name, "spec.auth.authenticationConfiguration.name")
		}
		if a.Webhook != nil {
			c.b.Inputs.External(inputs.KindSecret, a.Webhook.ConfigSecretName, "spec.auth.webhook.configSecretName")
		}
		if a.TokenAuthFile != nil {
			c.b.Inputs.External(inputs.KindSecret, a.TokenAuthFile.SecretName, "spec.auth.tokenAuthFile.secretName")
		}
	}
}

// composeMergedBundles composes <fp>-merged-client-ca, always: the RootShard's client CA, then
// the RootShard's and the FrontProxy's clientCABundleRef; and with a caBundleSecretRef
// <fp>-merged-ca-bundle: the RootShard's server CA, then that bundle.
func (c *composer) composeMergedBundles() {
	labels := map[string]string{names.LabelOwnerFrontProxy: string(c.name)}
	sources := []string{c.root.CA(names.CAClient)}
	if ref := c.rs.Spec.ClientCABundleRef; ref != nil {
		sources = append(sources, ref.Name)
	}
	if ref := c.fp.Spec.ClientCABundleRef; ref != nil {
		sources = append(sources, ref.Name)
	}
	c.b.MergedBundle(c.name.MergedClientCA(), labels, sources...)
	if ref := c.fp.Spec.CABundleSecretRef; ref != nil {
		c.b.MergedBundle(c.name.MergedCABundle(), labels, c.root.CA(names.CAServer), ref.Name)
	}
}

// composeWorkload composes the path mapping, the dynamic kubeconfig, and the Deployment and
// Service once every input exists.
func (c *composer) composeWorkload(p proxy.Proxy) builder.Outcome {
	c.b.ConfigMap(p.Secrets.ConfigMap, p.Labels, map[string]string{proxy.MappingFileName: string(p.PathMappingYAML())})
	c.b.Secret(p.Secrets.DynamicKubeconfig, p.Labels, map[string][]byte{"kubeconfig": p.DynamicKubeconfig()})
	m, _, _ := p.Mounts()
	return c.b.Workload(builder.Workload{
		Name:          p.Name,
		DeploymentKey: c.b.Key("deployment", p.Name),
		ServiceKey:    c.b.Key("service", p.Name),
		Mounts:        m,
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return p.Deployment(podAnnotations), p.Service()
		},
		Placement:        c.placement,
		CertificateOnly:  othersCertificates(p),
		DisruptionBudget: c.fp.Spec.PodDisruptionBudget,
	})
}

// othersCertificates are the mounted Secrets a placed front-proxy gets only the certificate
// of: the RootShard's CAs and the service account keys of the shards.
func othersCertificates(p proxy.Proxy) map[string]bool {
	out := map[string]bool{p.Secrets.RootCA: true, p.Secrets.RequestHeaderCA: true}
	for _, sa := range p.ServiceAccountCerts {
		out[sa.Secret] = true
	}
	return out
}

// generatedVolumeNames lists every volume name the front-proxy may generate, with every
// optional volume switched on, so that any possible clash with an extra volume is caught.
// The service account keys of Shards are not known here; only the RootShard's is listed.
// The public serving certificate's volume is listed when spec.publicServerCertificate is set.
func generatedVolumeNames(fp *v1alpha1.FrontProxy, root names.RootShard) []string {
	p := proxy.Proxy{
		Mode:    proxy.FrontProxy,
		Image:   kcpimage.Resolve(nil),
		Secrets: secrets(names.FrontProxy(fp.Name), root, root.RootCA(), true),
		Auth: &v1alpha1.AuthSpec{
			OIDC:                        &v1alpha1.OIDCConfiguration{CAFileRef: &v1alpha1.SecretKeyRef{Name: "x"}},
			AuthenticationConfiguration: &v1alpha1.LocalDataKeyReference{Name: "x", Key: "x"},
			Webhook:                     &v1alpha1.AuthenticationWebhookSpec{ConfigSecretName: "x"},
			TokenAuthFile:               &v1alpha1.TokenAuthFileSpec{SecretName: "x"},
			ServiceAccount:              &v1alpha1.ServiceAccountAuthentication{Enabled: true},
		},
		ServiceAccountCerts: kcpserver.ServiceAccountCerts(string(root), nil),
	}
	if fp.Spec.PublicServerCertificate != nil {
		p.PublicServingCert = names.FrontProxy(fp.Name).Cert(root, names.CertPublicServer)
	}
	m, _, _ := p.Mounts()
	var out []string
	for _, v := range m.Volumes() {
		out = append(out, v.Name)
	}
	return out
}
