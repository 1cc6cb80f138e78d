package rootshard

import (
	"strconv"

	"github.com/crossplane/function-sdk-go/resource"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/gate"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
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

// args returns the root shard's flags up to and including the add-ons, in kcp-operator's
// order. Authentication flags and then extraArgs follow.
func (c *composer) args() []string {
	s := c.rs.Spec
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
		"--service-account-key-file=/etc/kcp/tls/service-account/tls.crt",
		"--service-account-private-key-file=/etc/kcp/tls/service-account/tls.key",
		"--service-account-lookup=false",
		"--shard-client-key-file=/etc/kcp/tls/client/tls.key",
		"--shard-client-cert-file=/etc/kcp/tls/client/tls.crt",
		"--shard-base-url=" + c.baseURL,
		"--shard-external-url=" + ExternalURL(c.rs),
		"--logical-cluster-admin-kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig",
		"--external-logical-cluster-admin-kubeconfig=/etc/kcp/external-logical-cluster-admin-kubeconfig/kubeconfig",
		"--batteries-included=workspace-types",
		"--root-directory=",
		"--enable-leader-election=true",
		"--logging-format=json",
	}
	if s.Logging != nil && s.Logging.Level != 0 {
		args = append(args, "-v="+strconv.Itoa(s.Logging.Level))
	}
	if s.Cache.Ref != nil {
		args = append(args, "--cache-kubeconfig=/etc/cache-server/kubeconfig/kubeconfig")
	}
	return append(args, c.addons().Args...)
}

// addons are the optional flags and mounts, in kcp-operator's order.
func (c *composer) addons() workload.Spec {
	s := c.rs.Spec
	var a workload.Spec
	a.Add(workload.Etcd(s.Etcd))
	a.Add(workload.Audit(s.Audit))
	a.Add(workload.Authorization(s.Authorization))
	return a
}

// authentication is the auth add-on; its mounts follow the user's extra volumes.
func (c *composer) authentication() workload.Spec {
	return workload.Authentication(c.rs.Spec.Auth, []workload.ServiceAccountCert{
		{Owner: string(c.name), Secret: c.name.Cert("service-account")},
	})
}

// mounts returns the root shard's generated volumes in kcp-operator's order. User extra
// volumes are placed between the add-ons and authentication, as kcp-operator does.
func (c *composer) mounts() workload.Mounts {
	s := c.rs.Spec
	var m workload.Mounts
	// Unlike kcp-operator (quirk 5) the root CA is the caSecretRef Secret when one is given.
	m.Secret("kcp-ca", c.rootCASecret(), "/etc/kcp/tls/ca/root")
	m.Secret("logical-cluster-admin-kubeconfig", c.name.LogicalClusterAdminKubeconfig(), "/etc/kcp/logical-cluster-admin-kubeconfig")
	m.Secret("external-logical-cluster-admin-kubeconfig", c.name.ExternalLogicalClusterAdminKubeconfig(), "/etc/kcp/external-logical-cluster-admin-kubeconfig")
	m.Secret("server-ca", c.name.CA(names.CAServer), "/etc/kcp/tls/ca/server")
	m.Secret("service-account-ca", c.name.CA(names.CAServiceAccount), "/etc/kcp/tls/ca/service-account")
	m.Secret("requestheader-client-ca", c.name.CA(names.CARequestHeaderClient), "/etc/kcp/tls/ca/requestheader-client")
	clientCA := c.name.CA(names.CAClient)
	if s.ClientCABundleRef != nil {
		clientCA = c.name.MergedClientCA()
	}
	m.Secret("client-ca", clientCA, "/etc/kcp/tls/ca/client")
	m.Secret("server-cert", c.name.Cert("server"), "/etc/kcp/tls/server")
	m.Secret("service-account-cert", c.name.Cert("service-account"), "/etc/kcp/tls/service-account")
	m.Secret("client-cert", c.name.Cert("client"), "/etc/kcp/tls/client")
	m.Secret("logical-cluster-admin-cert", c.name.Cert("logical-cluster-admin"), dirLCACert)
	m.Secret("external-logical-cluster-admin-cert", c.name.Cert("external-logical-cluster-admin"), dirExternalLCACrt)
	if s.CABundleSecretRef != nil {
		m.Secret("ca-bundle", c.name.MergedCABundle(), "/etc/kcp/tls/ca/ca-bundle")
	}
	if ref := s.Cache.Ref; ref != nil {
		cs := names.CacheServer(ref.Name)
		m.Secret("cache-server-kubeconfig", cs.Kubeconfig(), "/etc/cache-server/kubeconfig")
		m.Secret("cache-server-ca", cs.CA(), "/etc/cache-server/tls/ca/root")
		m.Secret("cache-server-client-cert", cs.ClientCertificate(), "/etc/cache-server/tls/client-certificate")
	}
	m = append(m, c.addons().Mounts...)
	return m
}

// composeRootShardWorkload composes the <rs>-kcp Deployment and Service once every mounted
// Secret exists. An existing Deployment is kept unchanged while an input is missing.
func (c *composer) composeRootShardWorkload() workloadOutcome {
	s := c.rs.Spec
	generated := c.mounts()
	auth := c.authentication()
	volumes := append(append(generated.Volumes(), s.ExtraVolumes...), auth.Mounts.Volumes()...)
	mounts := append(append(generated.VolumeMounts(), s.ExtraVolumeMounts...), auth.Mounts.VolumeMounts()...)
	// Unlike kcp-operator (quirk 12) extraArgs come last, so users can override any flag.
	args := append(append(c.args(), auth.Args...), s.ExtraArgs...)

	name := c.name.Deployment()
	out := workloadOutcome{name: name, key: c.key("deployment", "kcp")}
	out.verdict = c.inputs.Check(append(generated, auth.Mounts...), c.st, &c.out.Desired)

	container := corev1.Container{
		Name:            "kcp",
		Image:           c.image.String(),
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/kcp", "start"},
		Args:            args,
		Ports:           workload.HTTPSPort(),
		VolumeMounts:    mounts,
		Resources:       workload.MergeResources(workload.ShardResources(), s.Resources),
		SecurityContext: workload.ContainerSecurityContext(),
		StartupProbe:    workload.HTTPSProbe("/readyz", 10, 5, 10, 60),
		ReadinessProbe:  workload.HTTPSProbe("/readyz", 10, 10, 10, 6),
		LivenessProbe:   workload.HTTPSProbe("/livez", 10, 10, 10, 6),
	}
	labels := names.Labels(string(c.name), names.ComponentRootShard)
	dep := workload.Deployment{
		Name: name, Namespace: c.namespace, Labels: labels,
		Replicas:       c.replicas(out.key, s.Replicas),
		Container:      container,
		Volumes:        volumes,
		PullSecrets:    c.image.PullSecrets,
		PodAnnotations: out.verdict.Rollout.Annotations(),
		Template:       s.DeploymentTemplate,
	}.Build()

	ports := []corev1.ServicePort{workload.HTTPSServicePort("https", 6443, 6443)}
	if s.KcpVirtualWorkspace == nil {
		ports = append(ports, workload.HTTPSServicePort("https-virtual-workspaces", 6444, 6444))
	}
	svc := workload.Service(name, c.namespace, labels, ports, s.ServiceTemplate)
	out.composed = c.addWorkload(out.key, c.key("service", "kcp"), dep, svc, out.verdict)
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
