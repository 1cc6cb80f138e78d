// Package proxy renders kcp-front-proxy workloads. The same renderer serves the FrontProxy
// kind ("front-proxy mode") and the RootShard's internal admin proxy <rs>-proxy ("root proxy
// mode"), as in kcp-operator.
package proxy

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Mode selects between the two kinds of proxy.
type Mode int

// Proxy modes.
const (
	// RootProxy is the RootShard's internal proxy: no authentication options.
	RootProxy Mode = iota
	// FrontProxy is the user-facing front-proxy.
	FrontProxy
)

// Paths inside the proxy container.
const (
	dirKubeconfig       = "/etc/kcp-front-proxy/kubeconfig"
	dirKubeconfigCert   = "/etc/kcp-front-proxy/kubeconfig-client-cert"
	dirServing          = "/etc/kcp-front-proxy/tls"
	dirPublicServing    = "/etc/kcp-front-proxy/public-tls"
	dirRequestHeader    = "/etc/kcp-front-proxy/requestheader-client"
	dirClientCA         = "/etc/kcp-front-proxy/client-ca"
	dirConfig           = "/etc/kcp-front-proxy/config"
	dirRootCA           = "/etc/kcp/tls/ca"
	dirRequestHeaderCA  = "/etc/kcp/tls/ca/requestheader-client"
	dirCABundle         = "/etc/kcp/tls/ca/ca-bundle"
	kubeconfigFileName  = "kubeconfig"
	containerName       = "kcp-front-proxy"
	allowedNamesRoot    = "kcp-root-shard-proxy,kcp-mounts-proxy"
	allowedNamesFront   = "kcp-front-proxy,kcp-mounts-proxy"
	dynamicKubeconfigID = "system:admin"
)

// MappingFileName is the key of the path mapping in the proxy's ConfigMap.
const MappingFileName = "path-mapping.yaml"

// Secrets names the Secrets and ConfigMap a proxy mounts.
type Secrets struct {
	DynamicKubeconfig string
	KubeconfigCert    string
	ServingCert       string
	RequestHeaderCert string
	RootCA            string
	RequestHeaderCA   string
	// MergedCABundle is empty unless a caBundleSecretRef is set.
	MergedCABundle string
	MergedClientCA string
	ConfigMap      string
}

// Proxy describes one proxy.
type Proxy struct {
	Mode      Mode
	Name      string
	Namespace string
	Labels    map[string]string
	Image     kcpimage.Image
	Replicas  int32
	// Resources are unset unless the user sets them, like kcp-operator.
	Resources          *corev1.ResourceRequirements
	Logging            *v1alpha1.LoggingSpec
	ExtraArgs          []string
	ExtraVolumes       []corev1.Volume
	ExtraVolumeMounts  []corev1.VolumeMount
	DeploymentTemplate *v1alpha1.DeploymentTemplate
	ServiceTemplate    *v1alpha1.ServiceTemplate
	ServicePort        int32
	// RootShardBaseURL is where the proxy sends /clusters/ and /services/.
	RootShardBaseURL string
	Secrets          Secrets
	// PublicServingCert is the Secret of the certificate served for PublicDNSNames (TLS SNI),
	// "" for none; front-proxy only.
	PublicServingCert string
	PublicDNSNames    []string
	// Auth and AdditionalPathMappings are front-proxy only.
	Auth                   *v1alpha1.AuthSpec
	ServiceAccountCerts    []workload.ServiceAccountCert
	AdditionalPathMappings []PathMapping
	// Profiling is front-proxy only, as in the FrontProxy's spec.
	Profiling *v1alpha1.Profiling
}

// PathMapping is one entry of kcp-front-proxy's mapping file. Fields are declared in the
// order of their sorted keys, the order kcp-operator's writer (JSON, then YAML from a map)
// puts them in.
type PathMapping struct {
	Backend         string `yaml:"backend"`
	BackendServerCA string `yaml:"backend_server_ca"`
	Path            string `yaml:"path"`
	ProxyClientCert string `yaml:"proxy_client_cert"`
	ProxyClientKey  string `yaml:"proxy_client_key"`
}

func (p Proxy) requestHeaderSupported() bool {
	return kcpversion.SupportsMountsProxyAndRequestHeader(p.Image.Tag)
}

// PathMappingYAML is the content of the mapping file.
func (p Proxy) PathMappingYAML() []byte {
	b, err := yaml.Marshal(p.mappings())
	if err != nil {
		// Plain strings only: cannot fail.
		panic(err)
	}
	return b
}

// mappings sends /clusters/ and /services/ to the root shard, then the user's own.
func (p Proxy) mappings() []PathMapping {
	ca := dirRootCA + "/tls.crt"
	if p.Secrets.MergedCABundle != "" {
		ca = dirCABundle + "/tls.crt"
	}
	var entries []PathMapping
	for _, path := range []string{"/clusters/", "/services/"} {
		entries = append(entries, PathMapping{
			Path:            path,
			Backend:         p.RootShardBaseURL,
			BackendServerCA: ca,
			ProxyClientCert: dirRequestHeader + "/tls.crt",
			ProxyClientKey:  dirRequestHeader + "/tls.key",
		})
	}
	return append(entries, p.AdditionalPathMappings...)
}

// DynamicKubeconfig is the kubeconfig the proxy uses to reach the root shard and to discover
// shards. kcp-operator writes it without apiVersion and kind.
func (p Proxy) DynamicKubeconfig() []byte {
	return kubeconfigfile.Files{
		ClusterName: dynamicKubeconfigID,
		Server:      p.RootShardBaseURL,
		CAFile:      dirRootCA + "/tls.crt",
		UserName:    "admin",
		CertFile:    dirKubeconfigCert + "/tls.crt",
		KeyFile:     dirKubeconfigCert + "/tls.key",
		ContextName: dynamicKubeconfigID,
	}.Config().WithoutTypeMeta().Marshal()
}

// Args returns the proxy's command-line flags, in kcp-operator's order.
func (p Proxy) Args() []string {
	kc := dirKubeconfig + "/" + kubeconfigFileName
	args := []string{
		"--secure-port=6443",
		"--root-kubeconfig=" + kc,
		"--shards-kubeconfig=" + kc,
		"--tls-private-key-file=" + dirServing + "/tls.key",
		"--tls-cert-file=" + dirServing + "/tls.crt",
	}
	if p.PublicServingCert != "" {
		args = append(args, workload.SNICertKey(dirPublicServing, p.PublicDNSNames))
	}
	args = append(args,
		"--mapping-file="+dirConfig+"/"+MappingFileName,
		"--client-ca-file="+dirClientCA+"/tls.crt",
	)
	if p.requestHeaderSupported() {
		allowed := allowedNamesRoot
		if p.Mode == FrontProxy {
			allowed = allowedNamesFront
		}
		args = append(args,
			"--requestheader-client-ca-file="+dirRequestHeaderCA+"/tls.crt",
			"--requestheader-allowed-names="+allowed,
			"--requestheader-username-headers=X-Remote-User",
			"--requestheader-group-headers=X-Remote-Group",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		)
	}
	if p.Mode == FrontProxy && p.Auth != nil {
		// Unlike kcp-operator (quirk 2) the groups are not wrapped in literal quotes, so
		// kcp parses a list of several groups as several groups. An explicitly empty list
		// is passed on: it clears kcp's default list.
		if p.Auth.DropGroups != nil {
			args = append(args, "--authentication-drop-groups="+strings.Join(p.Auth.DropGroups, ","))
		}
		if p.Auth.PassOnGroups != nil {
			args = append(args, "--authentication-pass-on-groups="+strings.Join(p.Auth.PassOnGroups, ","))
		}
	}
	if p.Logging != nil && p.Logging.Level != 0 {
		args = append(args, "-v="+strconv.Itoa(p.Logging.Level))
	}
	if p.Mode == FrontProxy {
		args = append(args, workload.Authentication(p.Auth, p.ServiceAccountCerts).Args...)
	}
	if p.Profiling.On() {
		args = append(args, "--profiler-address="+p.Profiling.Address())
	}
	// Unlike kcp-operator (quirk 12) extra arguments come last, so they can override.
	return append(args, p.ExtraArgs...)
}

// Mounts returns the proxy's volumes and mounts, extra volumes first as in kcp-operator.
func (p Proxy) Mounts() (workload.Mounts, []corev1.Volume, []corev1.VolumeMount) {
	s := p.Secrets
	var m workload.Mounts
	m.WritableSecret(s.DynamicKubeconfig, s.DynamicKubeconfig, dirKubeconfig)
	m.Secret(s.KubeconfigCert, s.KubeconfigCert, dirKubeconfigCert)
	m.Secret(s.ServingCert, s.ServingCert, dirServing)
	if p.PublicServingCert != "" {
		m.Secret(p.PublicServingCert, p.PublicServingCert, dirPublicServing)
	}
	m.Secret(s.RequestHeaderCert, s.RequestHeaderCert, dirRequestHeader)
	m.Secret(s.RootCA, s.RootCA, dirRootCA)
	if p.requestHeaderSupported() {
		m.Secret(s.RequestHeaderCA, s.RequestHeaderCA, dirRequestHeaderCA)
	}
	if s.MergedCABundle != "" {
		m.Secret(s.MergedCABundle, s.MergedCABundle, dirCABundle)
	}
	m.Secret(s.MergedClientCA, s.MergedClientCA, dirClientCA)
	m.ConfigMap(s.ConfigMap, s.ConfigMap, dirConfig)
	if p.Mode == FrontProxy {
		m = append(m, workload.Authentication(p.Auth, p.ServiceAccountCerts).Mounts...)
	}
	vols := append(append([]corev1.Volume{}, p.ExtraVolumes...), m.Volumes()...)
	mounts := append(append([]corev1.VolumeMount{}, p.ExtraVolumeMounts...), m.VolumeMounts()...)
	return m, vols, mounts
}

// Deployment returns the proxy Deployment; podAnnotations roll it on changes.
func (p Proxy) Deployment(podAnnotations map[string]string) *appsv1.Deployment {
	_, vols, mounts := p.Mounts()
	c := corev1.Container{
		Name:            containerName,
		Image:           p.Image.String(),
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/kcp-front-proxy"},
		Args:            p.Args(),
		Ports:           workload.HTTPSPort(),
		VolumeMounts:    mounts,
		SecurityContext: workload.ContainerSecurityContext(),
		ReadinessProbe:  workload.HTTPSProbe("/readyz", 15, 10, 10, 3),
		LivenessProbe:   workload.HTTPSProbe("/livez", 15, 10, 10, 3),
	}
	if p.Resources != nil {
		c.Resources = *p.Resources.DeepCopy()
	}
	return workload.Deployment{
		Name:           p.Name,
		Namespace:      p.Namespace,
		Labels:         p.Labels,
		Replicas:       p.Replicas,
		Container:      c,
		Volumes:        vols,
		PullSecrets:    p.Image.PullSecrets,
		PodAnnotations: podAnnotations,
		Template:       p.DeploymentTemplate,
	}.Build()
}

// Service returns the proxy Service.
func (p Proxy) Service() *corev1.Service {
	return workload.Service(p.Name, p.Namespace, p.Labels,
		[]corev1.ServicePort{workload.HTTPSServicePort("https", p.ServicePort, 6443)}, p.ServiceTemplate)
}
