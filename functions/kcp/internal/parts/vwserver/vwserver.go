// Package vwserver renders a virtual workspace server run outside its shard (the
// VirtualWorkspace kind): its flags in kcp-operator's order, its pod (the server, its init
// containers and their kubeconfigs), its Deployment and its Service.
package vwserver

import (
	"fmt"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Container names, command and paths of the virtual workspace server, as kcp-operator has them.
const (
	ContainerName  = "kcp"
	DefaultCommand = "/virtual-workspaces"

	DirLogicalClusterAdminKubeconfig = "/etc/kcp/logical-cluster-admin-kubeconfig"
	DirServerKubeconfig              = "/etc/kcp/server-kubeconfig"
	DirInitKubeconfig                = "/etc/kcp/init-kubeconfig"
	DirLogicalClusterAdminCert       = "/etc/kcp/tls/logical-cluster-admin"

	volumeServerKubeconfig = "server-kubeconfig"
)

// Server describes one virtual workspace server with its target resolved.
type Server struct {
	// Name is the VirtualWorkspace's name.
	Name      string
	Namespace string
	Spec      *v1alpha1.VirtualWorkspaceSpec
	// Root is the RootShard whose CAs the server uses.
	Root names.RootShard
	// RootCASecret is the Secret holding the root CA (the caSecretRef Secret, or <rs>-ca).
	RootCASecret string
	// TargetKubeconfig is the target's <rs|sh>-logical-cluster-admin-kubeconfig Secret.
	TargetKubeconfig string
	// CacheServer is the effective CacheServer name, "" for none.
	CacheServer string
	// MergesClientCA is set when the RootShard or the VirtualWorkspace has a clientCABundleRef.
	MergesClientCA bool
}

func (s Server) name() names.VirtualWorkspace { return names.VirtualWorkspace(s.Name) }

// DeploymentName is <vw>-virtual-workspace, also the Service's name.
func (s Server) DeploymentName() string { return s.name().Deployment() }

// Labels are the resource labels of the Deployment, its pods and its Service.
func (s Server) Labels() map[string]string {
	return names.Labels(s.Name, names.ComponentVirtualWS)
}

// ClientCASecret is the client CA bundle the server trusts.
func (s Server) ClientCASecret() string {
	if s.MergesClientCA {
		return s.name().MergedClientCA()
	}
	return s.Root.CA(names.CAClient)
}

// Args returns the server's flags in kcp-operator's order; the same for kcp's own server
// and a custom spec.command. extraArgs come last, after every generated flag.
func (s Server) Args() []string {
	kubeconfig := DirLogicalClusterAdminKubeconfig
	if s.Spec.KubeconfigSecretRef != nil {
		kubeconfig = DirServerKubeconfig
	}
	args := []string{
		"--client-ca-file=/etc/kcp/tls/ca/client/tls.crt",
		"--tls-private-key-file=/etc/kcp/tls/server/tls.key",
		"--tls-cert-file=/etc/kcp/tls/server/tls.crt",
		"--bind-address=0.0.0.0",
		"--secure-port=6443",
		"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
		"--requestheader-allowed-names=kcp-front-proxy,kcp-root-shard-proxy",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--kubeconfig=" + kubeconfig + "/kubeconfig",
	}
	if len(s.Spec.Command) > 0 || kcpversion.ReadsExternalHostname(kcpimage.Resolve(s.Spec.Image).Tag) {
		// Unlike kcp-operator, which passes it to every server, not to kcp's own from 0.31,
		// which ignores it; a custom server gets kcp-operator's flags.
		args = append(args, "--shard-external-url=https://127.0.0.1:6443")
	}
	if len(s.Spec.Command) == 0 {
		// Unlike kcp-operator, which leaves kcp's server to find the hosting cluster's API
		// server for its delegated authentication (in-cluster config, through the pod's
		// service account token), point it at kcp, whose tokens it authenticates: our pods
		// mount no token, and without one kcp's server does not start ("unable to load
		// in-cluster configuration"). A custom command gets kcp-operator's flags only.
		args = append(args, "--authentication-kubeconfig="+kubeconfig+"/kubeconfig")
	}
	if s.CacheServer != "" {
		args = append(args, "--cache-kubeconfig="+kcpserver.PathCacheServerKubeconfig)
	}
	if l := s.Spec.Logging; l != nil && l.Level != 0 {
		args = append(args, "-v="+strconv.Itoa(l.Level))
	}
	if p := s.Spec.Profiling; p.On() && len(s.Spec.Command) == 0 {
		args = append(args, "--profiler-address="+p.Address())
	}
	return append(args, s.Spec.ExtraArgs...)
}

// sharedMounts are the Secrets every container mounts: the RootShard's CAs, the client CA
// bundle, the serving certificate and the cache server's Secrets.
func (s Server) sharedMounts() workload.Mounts {
	var m workload.Mounts
	m.Secret("kcp-ca", s.RootCASecret, "/etc/kcp/tls/ca/root")
	m.Secret("server-ca", s.Root.CA(names.CAServer), "/etc/kcp/tls/ca/server")
	m.Secret("requestheader-client-ca", s.Root.CA(names.CARequestHeaderClient), "/etc/kcp/tls/ca/requestheader-client")
	m.Secret("client-ca", s.ClientCASecret(), "/etc/kcp/tls/ca/client")
	m.Secret("server-cert", s.name().Cert("server"), "/etc/kcp/tls/server")
	if s.CacheServer != "" {
		cs := names.CacheServer(s.CacheServer)
		m.Secret("cache-server-kubeconfig", cs.Kubeconfig(), "/etc/cache-server/kubeconfig")
		m.Secret("cache-server-ca", cs.CA(), "/etc/cache-server/tls/ca/root")
		m.Secret("cache-server-client-cert", cs.ClientCertificate(), "/etc/cache-server/tls/client-certificate")
	}
	return m
}

// adminMounts are the privileged fallback identity of a container without its own
// kubeconfig: the target's logical-cluster-admin kubeconfig, with the VirtualWorkspace's
// client certificate where that kubeconfig expects its client certificate.
func (s Server) adminMounts() workload.Mounts {
	var m workload.Mounts
	m.Secret("logical-cluster-admin-kubeconfig", s.TargetKubeconfig, DirLogicalClusterAdminKubeconfig)
	m.Secret("client-cert", s.name().Cert("client"), DirLogicalClusterAdminCert)
	return m
}

// InitKubeconfigVolume is the volume of an init container's own kubeconfig.
func InitKubeconfigVolume(container string) string {
	return fmt.Sprintf("init-%s-kubeconfig", container)
}

// Pod is the assembled pod of the server.
type Pod struct {
	Server         corev1.Container
	InitContainers []corev1.Container
	// Volumes are de-duplicated by name, the first declaration winning.
	Volumes     []corev1.Volume
	PullSecrets []corev1.LocalObjectReference
	// Generated are the Secret volumes the function generates, for the gate.
	Generated workload.Mounts
}

// Pod assembles the containers and volumes as kcp-operator does. Volumes are pod-scoped and
// listed in this order: extraVolumes, the shared Secrets, the fallback pair (always declared,
// even when no container mounts it), the server's own kubeconfig, each init container's own
// kubeconfig, then every init container's volumes. Each container mounts the shared Secrets,
// then either its own kubeconfig or the fallback pair, then its own extra mounts.
func (s Server) Pod() Pod {
	spec := s.Spec
	shared, admin := s.sharedMounts(), s.adminMounts()
	generated := append(slices.Clone(shared), admin...)
	volumes := slices.Clone(spec.ExtraVolumes)
	volumes = append(volumes, generated.Volumes()...)

	containerMounts := func(ref *corev1.LocalObjectReference, volume, path string, extra []corev1.VolumeMount) []corev1.VolumeMount {
		mounts := shared.VolumeMounts()
		if ref == nil {
			mounts = append(mounts, admin.VolumeMounts()...)
		} else {
			var own workload.Mounts
			own.Secret(volume, ref.Name, path)
			generated = append(generated, own...)
			volumes = append(volumes, own.Volumes()...)
			mounts = append(mounts, own.VolumeMounts()...)
		}
		return append(mounts, extra...)
	}

	img := kcpimage.Resolve(spec.Image)
	command := []string{DefaultCommand}
	if len(spec.Command) > 0 {
		command = slices.Clone(spec.Command)
	}
	server := corev1.Container{
		Name:            ContainerName,
		Image:           img.String(),
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         command,
		Args:            s.Args(),
		Ports:           workload.HTTPSPort(),
		VolumeMounts:    containerMounts(spec.KubeconfigSecretRef, volumeServerKubeconfig, DirServerKubeconfig, spec.ExtraVolumeMounts),
		Resources:       workload.MergeResources(workload.ShardResources(), spec.Resources),
		SecurityContext: workload.ContainerSecurityContext(),
	}

	pullSecrets := slices.Clone(img.PullSecrets)
	var inits []corev1.Container
	var initVolumes []corev1.Volume
	for _, ic := range spec.InitContainers {
		image := img.String()
		if ic.Image != nil {
			own := kcpimage.Resolve(ic.Image)
			image = own.String()
			pullSecrets = append(pullSecrets, own.PullSecrets...)
		}
		initVolumes = append(initVolumes, ic.Volumes...)
		inits = append(inits, corev1.Container{
			Name:            ic.Name,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         slices.Clone(ic.Command),
			Args:            slices.Clone(ic.Args),
			VolumeMounts:    containerMounts(ic.KubeconfigSecretRef, InitKubeconfigVolume(ic.Name), DirInitKubeconfig, ic.VolumeMounts),
			Resources:       workload.MergeResources(workload.ShardResources(), ic.Resources),
		})
	}
	return Pod{
		Server:         server,
		InitContainers: inits,
		Volumes:        firstByName(append(volumes, initVolumes...), func(v corev1.Volume) string { return v.Name }),
		PullSecrets:    firstByName(pullSecrets, func(r corev1.LocalObjectReference) string { return r.Name }),
		Generated:      generated,
	}
}

// firstByName drops items whose name was seen before, the first declaration winning: the
// VirtualWorkspace and each init container may declare the same scratch volume, and the pod's
// image pull secrets are keyed by name for server-side apply.
func firstByName[T any](in []T, name func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, x := range in {
		if n := name(x); !seen[n] {
			seen[n] = true
			out = append(out, x)
		}
	}
	return out
}

// Deployment returns the server's Deployment. It has no probes: a custom server need not
// serve /readyz or /livez.
func (s Server) Deployment(replicas int32, podAnnotations map[string]string) *appsv1.Deployment {
	p := s.Pod()
	dep := workload.Deployment{
		Name: s.DeploymentName(), Namespace: s.Namespace, Labels: s.Labels(),
		Replicas:       replicas,
		Container:      p.Server,
		Volumes:        p.Volumes,
		PullSecrets:    p.PullSecrets,
		PodAnnotations: podAnnotations,
		Template:       s.Spec.DeploymentTemplate,
	}.Build()
	dep.Spec.Template.Spec.InitContainers = p.InitContainers
	return dep
}

// Service returns the server's ClusterIP Service on 6443.
func (s Server) Service() *corev1.Service {
	return workload.Service(s.DeploymentName(), s.Namespace, s.Labels(),
		[]corev1.ServicePort{workload.HTTPSServicePort("https", 6443, 6443)}, s.Spec.ServiceTemplate)
}
