// Package kcpserver renders the kcp server workload shared by the root shard (<rs>-kcp) and
// regular shards (<sh>-shard-kcp): flags in kcp-operator's order, volumes and mounts, the
// container, Deployment and Service. The two differ only where kcp-operator makes them differ.
package kcpserver

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Paths inside the kcp container that kubeconfigs and flags refer to.
const (
	PathServerCA              = "/etc/kcp/tls/ca/server/tls.crt"
	PathCABundle              = "/etc/kcp/tls/ca/ca-bundle/tls.crt"
	DirLogicalClusterAdmin    = "/etc/kcp/tls/logical-cluster-admin"
	DirExternalLCA            = "/etc/kcp/tls/external-logical-cluster-admin"
	DirClientCert             = "/etc/kcp/tls/client"
	DirPublicServerCert       = "/etc/kcp/tls/public-server"
	PathClientKubeconfig      = "/etc/kcp/client-kubeconfig/kubeconfig"
	PathCacheServerKubeconfig = "/etc/cache-server/kubeconfig/kubeconfig"
	DirEncryptionConfig       = "/etc/kcp/encryption"
)

// Server describes one kcp server: the root shard or a regular shard.
type Server struct {
	// Name is the RootShard's or Shard's name; certificates and Secrets are <name>-<kind>.
	Name      string
	Namespace string
	// Root is the installation's RootShard, whose CAs every shard uses.
	Root names.RootShard
	// IsRoot is true for the root shard.
	IsRoot bool
	Spec   *v1alpha1.CommonShardSpec
	// BaseURL is this shard's URL; RootExternal is the installation's public address.
	BaseURL      string
	RootExternal v1alpha1.ExternalConfig
	// RootCASecret is the Secret holding the root CA (the caSecretRef Secret, or <rs>-ca).
	RootCASecret string
	// CacheServer is the effective CacheServer name, "" for the root shard's embedded cache.
	CacheServer string
	// VirtualWorkspaceURL is the external virtual workspace server's URL, "" for none.
	VirtualWorkspaceURL string
	// ServiceAccountCerts are the service-account certificates of every shard of the
	// installation, root first, for spec.auth.serviceAccount.
	ServiceAccountCerts []workload.ServiceAccountCert
	// InheritedClientCABundle is set on a shard whose RootShard has a clientCABundleRef:
	// the shard then trusts a merged client CA bundle too.
	InheritedClientCABundle bool
	// EncryptionConfig is the Secret holding the EncryptionConfiguration kcp reads, "" for
	// none (compose/rotation decides).
	EncryptionConfig string
}

// DeploymentName is <rs>-kcp for the root shard and <sh>-shard-kcp for a shard.
func (s Server) DeploymentName() string {
	if s.IsRoot {
		return names.RootShard(s.Name).Deployment()
	}
	return names.Shard(s.Name).Deployment()
}

// Component is the app.kubernetes.io/component label value.
func (s Server) Component() string {
	if s.IsRoot {
		return names.ComponentRootShard
	}
	return names.ComponentShard
}

// Cert is the name of one of this server's leaf certificates and its Secret.
func (s Server) Cert(kind string) string { return s.Name + "-" + kind }

// Image is the resolved container image.
func (s Server) Image() kcpimage.Image { return kcpimage.Resolve(s.Spec.Image) }

// mountsProxy reports whether the shard gets the mounts-proxy client certificate: regular
// shards on kcp versions that support it.
func (s Server) mountsProxy() bool {
	return !s.IsRoot && kcpversion.SupportsMountsProxyAndRequestHeader(s.Image().Tag)
}

// baseArgs are the flags up to and including the add-ons, in kcp-operator's order.
// Authentication flags and then extraArgs follow.
func (s Server) baseArgs() []string {
	args := []string{
		"--root-ca-file=/etc/kcp/tls/ca/root/tls.crt",
		"--client-ca-file=/etc/kcp/tls/ca/client/tls.crt",
		"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
		"--requestheader-allowed-names=kcp-front-proxy,kcp-root-shard-proxy",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--tls-private-key-file=/etc/kcp/tls/server/tls.key",
		"--tls-cert-file=/etc/kcp/tls/server/tls.crt",
	}
	args = append(args, s.publicServerCertArgs()...)
	args = append(args,
		"--service-account-key-file=/etc/kcp/tls/service-account/tls.crt",
		"--service-account-private-key-file=/etc/kcp/tls/service-account/tls.key",
		"--service-account-lookup=false",
		"--shard-client-key-file="+DirClientCert+"/tls.key",
		"--shard-client-cert-file="+DirClientCert+"/tls.crt",
	)
	if !s.IsRoot {
		args = append(args, "--shard-name="+s.Name)
	}
	args = append(args,
		"--shard-base-url="+s.BaseURL,
		"--shard-external-url="+names.ExternalURL(s.RootExternal),
	)
	if !s.IsRoot {
		if kcpversion.ReadsExternalHostname(s.Image().Tag) {
			// Unlike kcp-operator, which passes it on every kcp, only where kcp reads it: from
			// kcp 0.31 it is ignored, and the external host comes from --shard-base-url.
			args = append(args, "--external-hostname="+s.RootExternal.Hostname)
		}
		cache := PathClientKubeconfig // the root shard serves as the cache
		if s.CacheServer != "" {
			cache = PathCacheServerKubeconfig
		}
		args = append(args,
			"--cache-kubeconfig="+cache,
			"--root-shard-kubeconfig-file="+PathClientKubeconfig,
		)
	}
	args = append(args,
		"--logical-cluster-admin-kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig",
		"--external-logical-cluster-admin-kubeconfig=/etc/kcp/external-logical-cluster-admin-kubeconfig/kubeconfig",
		s.batteriesArg(),
		"--root-directory=",
		"--enable-leader-election=true",
		"--logging-format=json",
	)
	if s.mountsProxy() {
		args = append(args,
			"--mount-proxy-client-cert-file=/etc/kcp/tls/mounts-proxy/tls.crt",
			"--mount-proxy-client-key-file=/etc/kcp/tls/mounts-proxy/tls.key",
		)
	}
	if l := s.Spec.Logging; l != nil && l.Level != 0 {
		args = append(args, "-v="+strconv.Itoa(l.Level))
	}
	if s.IsRoot && s.CacheServer != "" {
		args = append(args, "--cache-kubeconfig="+PathCacheServerKubeconfig)
	}
	switch {
	case s.VirtualWorkspaceURL != "":
		args = append(args,
			"--run-virtual-workspaces=false",
			"--shard-virtual-workspace-url="+s.VirtualWorkspaceURL,
			"--shard-virtual-workspace-ca-file="+PathServerCA,
		)
	case s.Spec.Public != nil:
		// The in-process virtual workspaces are served on the shard's port: advertise them
		// at the public name, so that APIExport endpoints work from outside the cluster,
		// while --shard-base-url keeps kcp's own traffic inside it.
		args = append(args, "--shard-virtual-workspace-url="+names.PublicURL(s.Spec.Public))
	}
	args = append(args, s.addons().Args...)
	args = append(args, s.objectLimitArgs()...)
	return append(args, s.featureArgs()...)
}

// objectLimitArgs are the flags of spec.objectLimit, which kcp-operator does not have: after
// all of kcp-operator's. Validation has refused them on a kcp without them
// (check.ObjectLimit).
func (s Server) objectLimitArgs() []string {
	l := s.Spec.ObjectLimit
	if l == nil {
		return nil
	}
	args := []string{"--logical-cluster-total-object-limit=" + strconv.FormatInt(l.Total, 10)}
	if l.ScanInterval != nil {
		args = append(args, "--logical-cluster-object-count-scan-interval="+l.ScanInterval.Duration.String())
	}
	return args
}

// publicServerCertArgs serve the public certificate to clients that ask for a public name
// (TLS SNI); every other client, kcp's own components included, gets the certificate from
// the installation's CA.
func (s Server) publicServerCertArgs() []string {
	p := s.Spec.Public
	if p == nil || p.ServerCertificate == nil {
		return nil
	}
	return []string{workload.SNICertKey(DirPublicServerCert, names.PublicDNSNames(p.ServerCertificate, p.Hostname))}
}

// addons are the optional etcd, audit and authorization flags and mounts, in kcp-operator's order.
func (s Server) addons() workload.Spec {
	var a workload.Spec
	a.Add(workload.Etcd(s.Spec.Etcd))
	a.Add(workload.Audit(s.Spec.Audit))
	a.Add(workload.Authorization(s.Spec.Authorization))
	return a
}

// Authentication is the auth add-on; its mounts follow the user's extra volumes.
func (s Server) Authentication() workload.Spec {
	return workload.Authentication(s.Spec.Auth, s.ServiceAccountCerts)
}

// Args returns every flag in order. Unlike kcp-operator (quirk 12) extraArgs come last, so
// users can override any generated flag.
func (s Server) Args() []string {
	args := append(s.baseArgs(), s.Authentication().Args...)
	return append(args, s.Spec.ExtraArgs...)
}

// Mounts returns the generated volumes in kcp-operator's order, without the user's extra
// volumes and the authentication volumes that follow them.
func (s Server) Mounts() workload.Mounts {
	var m workload.Mounts
	// Unlike kcp-operator (quirk 5) the root CA is the caSecretRef Secret when one is given.
	m.Secret("kcp-ca", s.RootCASecret, "/etc/kcp/tls/ca/root")
	if !s.IsRoot {
		m.Secret("client-kubeconfig", names.Shard(s.Name).ClientKubeconfig(), "/etc/kcp/client-kubeconfig")
	}
	m.Secret("logical-cluster-admin-kubeconfig", s.Name+"-logical-cluster-admin-kubeconfig", "/etc/kcp/logical-cluster-admin-kubeconfig")
	m.Secret("external-logical-cluster-admin-kubeconfig", s.Name+"-external-logical-cluster-admin-kubeconfig", "/etc/kcp/external-logical-cluster-admin-kubeconfig")
	m.Secret("server-ca", s.Root.CA(names.CAServer), "/etc/kcp/tls/ca/server")
	m.Secret("service-account-ca", s.Root.CA(names.CAServiceAccount), "/etc/kcp/tls/ca/service-account")
	m.Secret("requestheader-client-ca", s.Root.CA(names.CARequestHeaderClient), "/etc/kcp/tls/ca/requestheader-client")
	m.Secret("client-ca", s.ClientCASecret(), "/etc/kcp/tls/ca/client")
	m.Secret("server-cert", s.Cert("server"), "/etc/kcp/tls/server")
	if p := s.Spec.Public; p != nil && p.ServerCertificate != nil {
		m.Secret("public-server-cert", s.Cert(names.CertPublicServer), DirPublicServerCert)
	}
	m.Secret("service-account-cert", s.Cert("service-account"), "/etc/kcp/tls/service-account")
	m.Secret("client-cert", s.Cert("client"), DirClientCert)
	m.Secret("logical-cluster-admin-cert", s.Cert("logical-cluster-admin"), DirLogicalClusterAdmin)
	m.Secret("external-logical-cluster-admin-cert", s.Cert("external-logical-cluster-admin"), DirExternalLCA)
	if s.mountsProxy() {
		m.Secret("mounts-proxy-cert", s.Cert("mounts-proxy"), "/etc/kcp/tls/mounts-proxy")
	}
	if s.Spec.CABundleSecretRef != nil {
		m.Secret("ca-bundle", s.Name+"-merged-ca-bundle", "/etc/kcp/tls/ca/ca-bundle")
	}
	if s.CacheServer != "" {
		cs := names.CacheServer(s.CacheServer)
		m.Secret("cache-server-kubeconfig", cs.Kubeconfig(), "/etc/cache-server/kubeconfig")
		m.Secret("cache-server-ca", cs.CA(), "/etc/cache-server/tls/ca/root")
		m.Secret("cache-server-client-cert", cs.ClientCertificate(), "/etc/cache-server/tls/client-certificate")
	}
	m = append(m, s.addons().Mounts...)
	if s.EncryptionConfig != "" {
		m.Secret("encryption-config", s.EncryptionConfig, DirEncryptionConfig)
	}
	return append(m, s.auditLog().Mounts...)
}

// ClientCASecret is the client CA bundle the server trusts: the merged bundle when a client
// CA bundle is configured (on the RootShard for every shard, or on this shard), else the
// root shard's client CA.
func (s Server) ClientCASecret() string {
	if s.MergesClientCA() {
		return s.Name + "-merged-client-ca"
	}
	return s.Root.CA(names.CAClient)
}

// MergesClientCA reports whether this server trusts a merged client CA bundle: with its own
// clientCABundleRef or, for a shard, the RootShard's.
func (s Server) MergesClientCA() bool {
	return s.Spec.ClientCABundleRef != nil || s.InheritedClientCABundle
}

// Labels are the resource labels of the Deployment, its pods and its Service.
func (s Server) Labels() map[string]string { return names.Labels(s.Name, s.Component()) }

// Deployment returns the server's Deployment.
func (s Server) Deployment(replicas int32, podAnnotations map[string]string) *appsv1.Deployment {
	generated := s.Mounts()
	auth := s.Authentication()
	volumes := append(append(generated.Volumes(), s.Spec.ExtraVolumes...), auth.Mounts.Volumes()...)
	mounts := append(append(generated.VolumeMounts(), s.Spec.ExtraVolumeMounts...), auth.Mounts.VolumeMounts()...)
	img := s.Image()
	container := corev1.Container{
		Name:            "kcp",
		Image:           img.String(),
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/kcp", "start"},
		Args:            s.Args(),
		Env:             s.auditLog().Env,
		Ports:           workload.HTTPSPort(),
		VolumeMounts:    mounts,
		Resources:       workload.MergeResources(workload.ShardResources(), s.Spec.Resources),
		SecurityContext: workload.ContainerSecurityContext(),
		StartupProbe:    workload.HTTPSProbe("/readyz", 10, 5, 10, 60),
		ReadinessProbe:  workload.HTTPSProbe("/readyz", 10, 10, 10, 6),
		LivenessProbe:   workload.HTTPSProbe("/livez", 10, 10, 10, 6),
	}
	return workload.Deployment{
		Name: s.DeploymentName(), Namespace: s.Namespace, Labels: s.Labels(),
		Replicas:       replicas,
		Container:      container,
		Volumes:        volumes,
		PullSecrets:    img.PullSecrets,
		PodAnnotations: podAnnotations,
		Template:       s.Spec.DeploymentTemplate,
		FSGroup:        s.auditLog().FSGroup,
	}.Build()
}

// Service returns the server's Service: 6443, plus 6444 for in-process virtual workspaces
// (kcp-operator declares it although the container does not listen on it; quirk 16 kept).
func (s Server) Service() *corev1.Service {
	ports := []corev1.ServicePort{workload.HTTPSServicePort("https", 6443, 6443)}
	if s.Spec.KcpVirtualWorkspace == nil {
		ports = append(ports, workload.HTTPSServicePort("https-virtual-workspaces", 6444, 6444))
	}
	return workload.Service(s.DeploymentName(), s.Namespace, s.Labels(), ports, s.Spec.ServiceTemplate)
}

// AllVolumeNames lists every volume name the server generates, for validating extra volumes.
func (s Server) AllVolumeNames() []string {
	var out []string
	for _, v := range append(s.Mounts().Volumes(), s.Authentication().Mounts.Volumes()...) {
		out = append(out, v.Name)
	}
	return out
}

// ServiceAccountCerts lists the service-account certificate Secrets of the root shard and
// each of its shards, root first and shards sorted by name, as kcp-operator orders them.
func ServiceAccountCerts(root string, shards []string) []workload.ServiceAccountCert {
	out := []workload.ServiceAccountCert{{Owner: root, Secret: root + "-service-account"}}
	for _, sh := range shards {
		out = append(out, workload.ServiceAccountCert{Owner: sh, Secret: sh + "-service-account"})
	}
	return out
}

// UserObject is a Secret or ConfigMap of the user's that a shard's pods mount, with the spec
// field that names it.
type UserObject struct{ Kind, Name, Field string }

// UserObjects lists the Secrets and ConfigMaps of the user that a shard's spec references and
// its pods mount (etcd TLS, audit, authorization and authentication). The kinds register them
// as inputs, so they are read as required resources and gate the workload.
func UserObjects(s *v1alpha1.CommonShardSpec) []UserObject {
	var out []UserObject
	add := func(kind, name, field string) { out = append(out, UserObject{Kind: kind, Name: name, Field: field}) }
	if t := s.Etcd.TLSConfig; t != nil {
		add(resource.KindSecret, t.SecretRef.Name, "spec.etcd.tlsConfig.secretRef.name")
	}
	if a := s.Audit; a != nil {
		if a.Policy != nil && a.Policy.ConfigMap != nil {
			add(resource.KindConfigMap, a.Policy.ConfigMap.Name, "spec.audit.policy.configMap.name")
		}
		if a.Webhook != nil && a.Webhook.ConfigSecretName != "" {
			add(resource.KindSecret, a.Webhook.ConfigSecretName, "spec.audit.webhook.configSecretName")
		}
	}
	if a := s.Authorization; a != nil && a.Webhook != nil && a.Webhook.ConfigSecretName != "" {
		add(resource.KindSecret, a.Webhook.ConfigSecretName, "spec.authorization.webhook.configSecretName")
	}
	if a := s.Auth; a != nil {
		if a.OIDC != nil && a.OIDC.CAFileRef != nil {
			add(resource.KindSecret, a.OIDC.CAFileRef.Name, "spec.auth.oidc.caFileRef.name")
		}
		if c := a.AuthenticationConfiguration; c != nil {
			add(resource.KindConfigMap, c.Name, "spec.auth.authenticationConfiguration.name")
		}
		if a.Webhook != nil {
			add(resource.KindSecret, a.Webhook.ConfigSecretName, "spec.auth.webhook.configSecretName")
		}
		if a.TokenAuthFile != nil {
			add(resource.KindSecret, a.TokenAuthFile.SecretName, "spec.auth.tokenAuthFile.secretName")
		}
	}
	return out
}
