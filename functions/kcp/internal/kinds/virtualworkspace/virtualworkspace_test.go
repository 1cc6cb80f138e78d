package virtualworkspace

import (
	"strings"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func shard(mods ...func(*v1alpha1.Shard)) *v1alpha1.Shard {
	sh := &v1alpha1.Shard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard"},
		ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: "kcp"},
		Spec: v1alpha1.ShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-alpha:2379"}}},
			RootShard:       v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
		},
	}
	for _, m := range mods {
		m(sh)
	}
	return sh
}

// virtualWorkspace is the smallest VirtualWorkspace: it serves the root shard.
func virtualWorkspace(mods ...func(*v1alpha1.VirtualWorkspace)) *v1alpha1.VirtualWorkspace {
	vw := &v1alpha1.VirtualWorkspace{
		ObjectMeta: metav1.ObjectMeta{Name: "vw", Namespace: "kcp", Labels: map[string]string{"team": "platform"}},
		Spec: v1alpha1.VirtualWorkspaceSpec{
			Target:   v1alpha1.VirtualWorkspaceTarget{RootShardRef: &corev1.LocalObjectReference{Name: "root"}},
			External: v1alpha1.ExternalConfig{Hostname: "vw.example.com", Port: 443},
		},
	}
	for _, m := range mods {
		m(vw)
	}
	return vw
}

func targetShard(name string) func(*v1alpha1.VirtualWorkspace) {
	return func(vw *v1alpha1.VirtualWorkspace) {
		vw.Spec.Target = v1alpha1.VirtualWorkspaceTarget{ShardRef: &corev1.LocalObjectReference{Name: name}}
	}
}

// installation is a world with the RootShard, its CA Secrets and its logical-cluster-admin
// kubeconfig: what a running root shard provides.
func installation(rs *v1alpha1.RootShard) *testworld.World {
	return testworld.New().Object(rs).Secret("root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca", "root-logical-cluster-admin-kubeconfig")
}

// converge composes until the desired set settles, in a world built by base.
func converge(vw *v1alpha1.VirtualWorkspace, base func() *testworld.World) (Result, *testworld.World) {
	r := composeOK(vw, base().State())
	var w *testworld.World
	for range 4 {
		w = base().Settle(r.Desired)
		r = composeOK(vw, w.State())
	}
	return r, w
}

// withRoot is the world of a running RootShard, plus extra.
func withRoot(rs *v1alpha1.RootShard, extra ...func(*testworld.World)) func() *testworld.World {
	return func() *testworld.World {
		w := installation(rs)
		for _, e := range extra {
			e(w)
		}
		return w
	}
}

func deployment(t *testing.T, r Result) *appsv1.Deployment {
	t.Helper()
	o, ok := r.Desired.Get("deployment-virtual-workspace")
	if !ok {
		t.Fatalf("deployment-virtual-workspace is not desired; desired: %v; conditions: %+v", r.Desired.Names(), r.Conditions)
	}
	d, ok := o.Resource.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("deployment-virtual-workspace is kept, not built")
	}
	return d
}

func certificate(t *testing.T, r Result, key resource.Name) *cmv1.Certificate {
	t.Helper()
	o, ok := r.Desired.Get(key)
	if !ok {
		t.Fatalf("%s is not desired; desired: %v", key, r.Desired.Names())
	}
	return o.Resource.(*cmv1.Certificate)
}

func conditionOf(r Result, typ string) condition.Condition {
	for _, c := range r.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return condition.Condition{}
}

func quantity(s string) kresource.Quantity { return kresource.MustParse(s) }

func defaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: quantity("1"), corev1.ResourceMemory: quantity("1Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: quantity("2"), corev1.ResourceMemory: quantity("2Gi")},
	}
}

func secretVolume(name, secret string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}
}

func emptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

func ro(name, path string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true}
}

var (
	sharedMounts = []corev1.VolumeMount{
		ro("kcp-ca", "/etc/kcp/tls/ca/root"),
		ro("server-ca", "/etc/kcp/tls/ca/server"),
		ro("requestheader-client-ca", "/etc/kcp/tls/ca/requestheader-client"),
		ro("client-ca", "/etc/kcp/tls/ca/client"),
		ro("server-cert", "/etc/kcp/tls/server"),
	}
	cacheMounts = []corev1.VolumeMount{
		ro("cache-server-kubeconfig", "/etc/cache-server/kubeconfig"),
		ro("cache-server-ca", "/etc/cache-server/tls/ca/root"),
		ro("cache-server-client-cert", "/etc/cache-server/tls/client-certificate"),
	}
	adminMounts = []corev1.VolumeMount{
		ro("logical-cluster-admin-kubeconfig", "/etc/kcp/logical-cluster-admin-kubeconfig"),
		ro("client-cert", "/etc/kcp/tls/logical-cluster-admin"),
	}
)

func join[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestComposeConverged(t *testing.T) {
	r, _ := converge(virtualWorkspace(), withRoot(testworld.RootShard()))

	wantKeys := []resource.Name{"certificate-client", "certificate-server", "deployment-virtual-workspace", "poddisruptionbudget-virtual-workspace", "service-virtual-workspace"}
	if diff := cmp.Diff(wantKeys, r.Desired.Names()); diff != "" {
		t.Errorf("A VirtualWorkspace composes kcp-operator's 2 certificates, Deployment and Service, and a PodDisruptionBudget for its 2 replicas.\n-want, +got:\n%s", diff)
	}
	for _, c := range r.Conditions {
		if !c.Status {
			t.Errorf("converged: condition %s is False: %s", c.Type, c.Message)
		}
	}
	for _, o := range r.Desired.Objects() {
		if o.Ready != resource.ReadyTrue {
			t.Errorf("converged: %s is not ready", o.Name)
		}
	}
	if r.NotReady {
		t.Errorf("converged: the XR must not be forced not ready")
	}
	wantStatus := v1alpha1.VirtualWorkspaceStatus{Phase: v1alpha1.PhaseRunning, Image: "ghcr.io/kcp-dev/kcp:v0.32.3", URL: "https://vw.example.com:443"}
	if diff := cmp.Diff(wantStatus, r.Status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
	wantReq := []result.Requirement{
		{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard", Name: "root"},
		{Kind: "Secret", Name: "root-ca"},
		{Kind: "Secret", Name: "root-server-ca"},
		{Kind: "Secret", Name: "root-requestheader-client-ca"},
		{Kind: "Secret", Name: "root-client-ca"},
		{Kind: "Secret", Name: "root-logical-cluster-admin-kubeconfig"},
	}
	if diff := cmp.Diff(wantReq, r.Requirements); diff != "" {
		t.Errorf("The target RootShard and the Secrets it provides are read as required resources.\n-want, +got:\n%s", diff)
	}

	d := deployment(t, r)
	labels := map[string]string{
		"app.kubernetes.io/managed-by": "configuration-kcp", "app.kubernetes.io/name": "kcp",
		"app.kubernetes.io/instance": "vw", "app.kubernetes.io/component": "virtual-workspace",
	}
	annotations := d.Spec.Template.Annotations
	if got := annotations[names.AnnotationCertificateRevisions]; got != "vw-client=1,vw-server=1" {
		t.Errorf("the pods roll when either certificate is renewed; revisions annotation = %q", got)
	}
	if annotations[names.AnnotationConfigHash] == "" {
		t.Errorf("the pods roll when a mounted RootShard Secret changes; config hash missing")
	}
	want := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "vw-virtual-workspace", Namespace: "kcp", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:            "kcp",
						Image:           "ghcr.io/kcp-dev/kcp:v0.32.3",
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         []string{"/virtual-workspaces"},
						Args: []string{
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
							"--kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig",
							"--authentication-kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig",
						},
						Ports:        []corev1.ContainerPort{{Name: "https", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}},
						VolumeMounts: join(sharedMounts, adminMounts),
						Resources:    defaultResources(),
						SecurityContext: &corev1.SecurityContext{
							SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
							ReadOnlyRootFilesystem:   ptr.To(true),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: []corev1.Volume{
						secretVolume("kcp-ca", "root-ca"),
						secretVolume("server-ca", "root-server-ca"),
						secretVolume("requestheader-client-ca", "root-requestheader-client-ca"),
						secretVolume("client-ca", "root-client-ca"),
						secretVolume("server-cert", "vw-server"),
						secretVolume("logical-cluster-admin-kubeconfig", "root-logical-cluster-admin-kubeconfig"),
						secretVolume("client-cert", "vw-client"),
					},
					SecurityContext:              &corev1.PodSecurityContext{RunAsNonRoot: &restricted, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					AutomountServiceAccountToken: &noToken,
					TopologySpreadConstraints:    workload.DefaultSpread(labels, true), // Unlike kcp-operator: spread where the scheduler can.
				},
			},
		},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("The Deployment must match kcp-operator's: flags and volumes in order, no probes, shard resources.\n-want, +got:\n%s", diff)
	}

	o, _ := r.Desired.Get("service-virtual-workspace")
	wantSvc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "vw-virtual-workspace", Namespace: "kcp", Labels: labels},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels,
			Ports: []corev1.ServicePort{{
				Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443, TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https"),
			}},
		},
	}
	if diff := cmp.Diff(wantSvc, o.Resource); diff != "" {
		t.Errorf("Service: -want, +got:\n%s", diff)
	}
}

func TestCertificates(t *testing.T) {
	secretLabels := map[string]string{"operator.kcp.io/rootshard": "root", "operator.kcp.io/virtual-workspace": "vw"}
	leaf := func(name string) *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp"},
			Spec: cmv1.CertificateSpec{
				SecretName:     name,
				SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: secretLabels},
				PrivateKey:     &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096},
				Duration:       &metav1.Duration{Duration: 8760 * time.Hour},
				RenewBefore:    &metav1.Duration{Duration: 168 * time.Hour},
			},
		}
	}
	client := func(labels map[string]string) *cmv1.Certificate {
		c := leaf("vw-client")
		c.Labels = labels
		c.Spec.CommonName = "vw-virtual-workspace"
		c.Spec.Subject = &cmv1.X509Subject{Organizations: []string{"system:masters"}}
		c.Spec.Usages = []cmv1.KeyUsage{cmv1.UsageClientAuth}
		c.Spec.IssuerRef = cmmeta.IssuerReference{Name: "root-client-ca", Kind: "Issuer", Group: "cert-manager.io"}
		return c
	}
	server := func(dnsNames ...string) *cmv1.Certificate {
		c := leaf("vw-server")
		c.Labels = names.Labels("vw", "virtual-workspace")
		c.Spec.DNSNames = dnsNames
		c.Spec.Usages = []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature}
		c.Spec.IssuerRef = cmmeta.IssuerReference{Name: "root-server-ca", Kind: "Issuer", Group: "cert-manager.io"}
		return c
	}

	cases := map[string]struct {
		reason     string
		vw         *v1alpha1.VirtualWorkspace
		base       *testworld.World
		wantClient *cmv1.Certificate
		wantServer *cmv1.Certificate
	}{
		"RootShardTarget": {
			reason:     "The client certificate carries a copy of the VirtualWorkspace's labels (kcp-operator's quirk, kept); the server certificate the resource labels, and covers spec.external.hostname (unlike kcp-operator), the name shards advertise.",
			vw:         virtualWorkspace(),
			base:       installation(testworld.RootShard()),
			wantClient: client(map[string]string{"team": "platform"}),
			wantServer: server("localhost", "vw-virtual-workspace.kcp.svc.cluster.local", "vw.example.com"),
		},
		"NoLabelsClusterDomain": {
			reason:     "Without labels on the VirtualWorkspace the client certificate has none; clusterDomain goes into the server SAN.",
			vw:         virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) { vw.Labels = nil; vw.Spec.ClusterDomain = "corp.internal" }),
			base:       installation(testworld.RootShard()),
			wantClient: client(nil),
			wantServer: server("localhost", "vw-virtual-workspace.kcp.svc.corp.internal", "vw.example.com"),
		},
		"ShardTarget": {
			reason:     "A Shard target's certificates are issued by its RootShard's CAs and labelled with that RootShard.",
			vw:         virtualWorkspace(targetShard("alpha")),
			base:       installation(testworld.RootShard()).Object(shard()),
			wantClient: client(map[string]string{"team": "platform"}),
			wantServer: server("localhost", "vw-virtual-workspace.kcp.svc.cluster.local", "vw.example.com"),
		},
		"Templates": {
			reason: "Certificate templates apply per key: client and server; a name already there is listed once.",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{
					"server": {Spec: &v1alpha1.CertificateSpecTemplate{DNSNames: []string{"vw.example.com"}}},
				}
			}),
			base:       installation(testworld.RootShard()),
			wantClient: client(map[string]string{"team": "platform"}),
			wantServer: server("localhost", "vw-virtual-workspace.kcp.svc.cluster.local", "vw.example.com"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(tc.vw, tc.base.State())
			if diff := cmp.Diff(tc.wantClient, certificate(t, r, "certificate-client")); diff != "" {
				t.Errorf("%s\nclient certificate: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantServer, certificate(t, r, "certificate-server")); diff != "" {
				t.Errorf("%s\nserver certificate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	base := []string{
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
	}
	const (
		admin = "--kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig"
		own   = "--kubeconfig=/etc/kcp/server-kubeconfig/kubeconfig"
		// kcp-operator's, which kcp's own server ignores from 0.31: a custom server only.
		ext   = "--shard-external-url=https://127.0.0.1:6443"
		cache = "--cache-kubeconfig=/etc/cache-server/kubeconfig/kubeconfig"
		// Not in kcp-operator: kcp's own server authenticates tokens against kcp.
		authnAdmin = "--authentication-kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig"
		authnOwn   = "--authentication-kubeconfig=/etc/kcp/server-kubeconfig/kubeconfig"
	)
	cacheSecrets := func(cs string) func(*testworld.World) {
		return func(w *testworld.World) { w.Secret(cs+"-kubeconfig", cs+"-ca", cs+"-client-certificate") }
	}
	withCache := func(cs string) func(*v1alpha1.RootShard) {
		return func(rs *v1alpha1.RootShard) { rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: cs} }
	}
	shardWorld := func(sh *v1alpha1.Shard) func(*testworld.World) {
		return func(w *testworld.World) { w.Object(sh).Secret("alpha-logical-cluster-admin-kubeconfig") }
	}

	cases := map[string]struct {
		reason  string
		vw      *v1alpha1.VirtualWorkspace
		base    func() *testworld.World
		command []string
		args    []string
	}{
		"Default": {
			reason:  "kcp's own server, the target's logical-cluster-admin kubeconfig, no cache server",
			vw:      virtualWorkspace(),
			base:    withRoot(testworld.RootShard()),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin}),
		},
		"CustomCommand": {
			reason: "spec.command picks the binary and gets kcp-operator's flags (its TestVirtualWorkspaceArgumentSurface), without the --authentication-kubeconfig a custom server may not know",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Command = []string{"/access-vw", "serve"}
			}),
			base:    withRoot(testworld.RootShard()),
			command: []string{"/access-vw", "serve"},
			args:    join(base, []string{admin, ext}),
		},
		"KubeconfigSecretRef": {
			reason: "a kubeconfigSecretRef replaces the privileged fallback as the server's kubeconfig",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: "vw-kubeconfig"}
			}),
			base:    withRoot(testworld.RootShard(), func(w *testworld.World) { w.Secret("vw-kubeconfig") }),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{own, authnOwn}),
		},
		"RootShardCache": {
			reason:  "the RootShard's cache server is the effective cache of a RootShard target",
			vw:      virtualWorkspace(),
			base:    withRoot(testworld.RootShard(withCache("cache")), cacheSecrets("cache")),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin, cache}),
		},
		"ShardInheritsRootShardCache": {
			reason:  "a Shard without a cache ref uses its RootShard's cache server",
			vw:      virtualWorkspace(targetShard("alpha")),
			base:    withRoot(testworld.RootShard(withCache("cache")), cacheSecrets("cache"), shardWorld(shard())),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin, cache}),
		},
		"ShardCache": {
			reason: "a Shard's own cache ref is the effective cache",
			vw:     virtualWorkspace(targetShard("alpha")),
			base: withRoot(testworld.RootShard(), cacheSecrets("shard-cache"), shardWorld(shard(func(sh *v1alpha1.Shard) {
				sh.Spec.Cache = &v1alpha1.ShardCacheConfig{Ref: &corev1.LocalObjectReference{Name: "shard-cache"}}
			}))),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin, cache}),
		},
		"ShardWithoutCache": {
			reason:  "without a cache ref anywhere there is no cache kubeconfig",
			vw:      virtualWorkspace(targetShard("alpha")),
			base:    withRoot(testworld.RootShard(), shardWorld(shard())),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin}),
		},
		"LoggingThenExtraArgs": {
			reason: "quirk 12 fixed: extraArgs follow every generated flag, -v included",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Logging = &v1alpha1.LoggingSpec{Level: 4}
				vw.Spec.ExtraArgs = []string{"--shard-external-url=https://api.example.com:6443", "--endpoint-base=x"}
			}),
			base:    withRoot(testworld.RootShard(withCache("cache")), cacheSecrets("cache")),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin, cache, "-v=4", "--shard-external-url=https://api.example.com:6443", "--endpoint-base=x"}),
		},
		"Profiling": {
			reason: "the profiler listens on the pod's loopback address, after every flag of kcp-operator's and before extraArgs",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Profiling = &v1alpha1.Profiling{Enabled: true, Port: 7070}
				vw.Spec.ExtraArgs = []string{"--endpoint-base=x"}
			}),
			base:    withRoot(testworld.RootShard()),
			command: []string{"/virtual-workspaces"},
			args:    join(base, []string{admin, authnAdmin, "--profiler-address=127.0.0.1:7070", "--endpoint-base=x"}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.vw, tc.base)
			c := deployment(t, r).Spec.Template.Spec.Containers[0]
			if diff := cmp.Diff(tc.command, c.Command); diff != "" {
				t.Errorf("%s\ncommand: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.args, c.Args); diff != "" {
				t.Errorf("%s\nargs: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestVolumes(t *testing.T) {
	rootVolumes := []corev1.Volume{
		secretVolume("kcp-ca", "root-ca"),
		secretVolume("server-ca", "root-server-ca"),
		secretVolume("requestheader-client-ca", "root-requestheader-client-ca"),
		secretVolume("client-ca", "root-client-ca"),
		secretVolume("server-cert", "vw-server"),
	}
	rootAdmin := []corev1.Volume{
		secretVolume("logical-cluster-admin-kubeconfig", "root-logical-cluster-admin-kubeconfig"),
		secretVolume("client-cert", "vw-client"),
	}
	type pod struct {
		Volumes []corev1.Volume
		Server  []corev1.VolumeMount
		Inits   map[string][]corev1.VolumeMount
	}
	cases := map[string]struct {
		reason string
		vw     *v1alpha1.VirtualWorkspace
		base   func() *testworld.World
		want   pod
	}{
		"ExtraVolumesFirst": {
			reason: "extraVolumes come first; the server mounts its extraVolumeMounts after the generated ones",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.ExtraVolumes = []corev1.Volume{emptyDir("scratch")}
				vw.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
			}),
			base: withRoot(testworld.RootShard()),
			want: pod{
				Volumes: join([]corev1.Volume{emptyDir("scratch")}, rootVolumes, rootAdmin),
				Server:  join(sharedMounts, adminMounts, []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}),
			},
		},
		"KubeconfigSecretRef": {
			reason: "with kubeconfigSecretRef the server mounts its own kubeconfig instead of the fallback pair, which the pod still declares as kcp-operator does",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: "vw-kubeconfig"}
			}),
			base: withRoot(testworld.RootShard(), func(w *testworld.World) { w.Secret("vw-kubeconfig") }),
			want: pod{
				Volumes: join(rootVolumes, rootAdmin, []corev1.Volume{secretVolume("server-kubeconfig", "vw-kubeconfig")}),
				Server:  join(sharedMounts, []corev1.VolumeMount{ro("server-kubeconfig", "/etc/kcp/server-kubeconfig")}),
			},
		},
		"ShardTargetCASecretRefMergedClientCA": {
			reason: "a Shard target lends its own logical-cluster-admin kubeconfig; the root CA is the caSecretRef Secret (quirk 5 fixed); a client CA bundle switches to the merged client CA; the cache trio follows the shared CAs",
			vw:     virtualWorkspace(targetShard("alpha")),
			base: withRoot(testworld.RootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "extra-client-cas"}
				rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"}
			}), func(w *testworld.World) {
				w.Object(shard()).Secret("alpha-logical-cluster-admin-kubeconfig", "my-ca", "extra-client-cas", "cache-kubeconfig", "cache-ca", "cache-client-certificate")
			}),
			want: pod{
				Volumes: []corev1.Volume{
					secretVolume("kcp-ca", "my-ca"),
					secretVolume("server-ca", "root-server-ca"),
					secretVolume("requestheader-client-ca", "root-requestheader-client-ca"),
					secretVolume("client-ca", "vw-merged-client-ca"),
					secretVolume("server-cert", "vw-server"),
					secretVolume("cache-server-kubeconfig", "cache-kubeconfig"),
					secretVolume("cache-server-ca", "cache-ca"),
					secretVolume("cache-server-client-cert", "cache-client-certificate"),
					secretVolume("logical-cluster-admin-kubeconfig", "alpha-logical-cluster-admin-kubeconfig"),
					secretVolume("client-cert", "vw-client"),
				},
				Server: join(sharedMounts, cacheMounts, adminMounts),
			},
		},
		"InitContainers": {
			reason: "init containers get the shared mounts, then their own kubeconfig or the fallback pair, then their own mounts; " +
				"their kubeconfig volumes follow the server's, their volumes come last, and a repeated volume name is declared once (first wins)",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: "vw-kubeconfig"}
				vw.Spec.ExtraVolumes = []corev1.Volume{emptyDir("shared")}
				vw.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "shared", MountPath: "/shared"}}
				vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{
					{
						Name:                "bootstrap",
						KubeconfigSecretRef: &corev1.LocalObjectReference{Name: "bootstrap-kubeconfig"},
						Volumes:             []corev1.Volume{emptyDir("first-scratch"), {Name: "shared", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}}},
						VolumeMounts:        []corev1.VolumeMount{{Name: "first-scratch", MountPath: "/first"}, {Name: "shared", MountPath: "/shared"}},
					},
					{
						Name:         "migrate",
						Volumes:      []corev1.Volume{emptyDir("first-scratch")},
						VolumeMounts: []corev1.VolumeMount{{Name: "first-scratch", MountPath: "/first"}},
					},
				}
			}),
			base: withRoot(testworld.RootShard(), func(w *testworld.World) { w.Secret("vw-kubeconfig", "bootstrap-kubeconfig") }),
			want: pod{
				Volumes: join(
					[]corev1.Volume{emptyDir("shared")}, rootVolumes, rootAdmin,
					[]corev1.Volume{
						secretVolume("server-kubeconfig", "vw-kubeconfig"),
						secretVolume("init-bootstrap-kubeconfig", "bootstrap-kubeconfig"),
						emptyDir("first-scratch"),
					}),
				Server: join(sharedMounts, []corev1.VolumeMount{ro("server-kubeconfig", "/etc/kcp/server-kubeconfig"), {Name: "shared", MountPath: "/shared"}}),
				Inits: map[string][]corev1.VolumeMount{
					"bootstrap": join(sharedMounts, []corev1.VolumeMount{
						ro("init-bootstrap-kubeconfig", "/etc/kcp/init-kubeconfig"),
						{Name: "first-scratch", MountPath: "/first"}, {Name: "shared", MountPath: "/shared"},
					}),
					"migrate": join(sharedMounts, adminMounts, []corev1.VolumeMount{{Name: "first-scratch", MountPath: "/first"}}),
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.vw, tc.base)
			ps := deployment(t, r).Spec.Template.Spec
			got := pod{Volumes: ps.Volumes, Server: ps.Containers[0].VolumeMounts}
			for _, c := range ps.InitContainers {
				if got.Inits == nil {
					got.Inits = map[string][]corev1.VolumeMount{}
				}
				got.Inits[c.Name] = c.VolumeMounts
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestInitContainers(t *testing.T) {
	vw := virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
		vw.Spec.Image = &v1alpha1.ImageSpec{Repository: "ghcr.io/kcp-dev/contrib-access-vw", Tag: "v1", ImagePullSecrets: []corev1.LocalObjectReference{{Name: "ghcr"}}}
		vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{
			{Name: "same-image", Command: []string{"/init"}, Args: []string{"--prefix=root:access"}},
			{
				Name:  "own-image",
				Image: &v1alpha1.ImageSpec{Tag: "v0.31.0", ImagePullSecrets: []corev1.LocalObjectReference{{Name: "quay"}, {Name: "ghcr"}}},
				Resources: &corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: quantity("100m")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: quantity("256Mi")},
				},
			},
		}
	})
	r, _ := converge(vw, withRoot(testworld.RootShard()))
	ps := deployment(t, r).Spec.Template.Spec
	fallback := join(sharedMounts, adminMounts)
	want := []corev1.Container{
		{
			Name: "same-image", Image: "ghcr.io/kcp-dev/contrib-access-vw:v1", ImagePullPolicy: corev1.PullIfNotPresent,
			Command: []string{"/init"}, Args: []string{"--prefix=root:access"},
			VolumeMounts: fallback, Resources: defaultResources(),
		},
		{
			// An own image defaults its repository to kcp's, not the server's, as kcp-operator does.
			Name: "own-image", Image: "ghcr.io/kcp-dev/kcp:v0.31.0", ImagePullPolicy: corev1.PullIfNotPresent,
			VolumeMounts: fallback,
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: quantity("100m"), corev1.ResourceMemory: quantity("1Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: quantity("2"), corev1.ResourceMemory: quantity("256Mi")},
			},
		},
	}
	if diff := cmp.Diff(want, ps.InitContainers); diff != "" {
		t.Errorf("Init containers default to the server image and shard resources, overridden key by key.\n-want, +got:\n%s", diff)
	}
	wantPull := []corev1.LocalObjectReference{{Name: "ghcr"}, {Name: "quay"}}
	if diff := cmp.Diff(wantPull, ps.ImagePullSecrets); diff != "" {
		t.Errorf("An own image's pull secrets are appended, each listed once.\n-want, +got:\n%s", diff)
	}
	if c := ps.Containers[0]; c.Image != "ghcr.io/kcp-dev/contrib-access-vw:v1" || c.StartupProbe != nil || c.ReadinessProbe != nil || c.LivenessProbe != nil {
		t.Errorf("server container: image %q, probes %v %v %v", c.Image, c.StartupProbe, c.ReadinessProbe, c.LivenessProbe)
	}
}

func TestMergedClientCA(t *testing.T) {
	cases := map[string]struct {
		reason string
		rs     *v1alpha1.RootShard
		vw     *v1alpha1.VirtualWorkspace
		want   string
	}{
		"RootShardBundle": {
			reason: "a RootShard's clientCABundleRef is inherited",
			rs: testworld.RootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "rs-bundle"}
			}),
			vw:   virtualWorkspace(),
			want: "PEM(root-client-ca)\nPEM(rs-bundle)",
		},
		"OwnBundle": {
			reason: "the VirtualWorkspace's own clientCABundleRef",
			rs:     testworld.RootShard(),
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "vw-bundle"}
			}),
			want: "PEM(root-client-ca)\nPEM(vw-bundle)",
		},
		"Both": {
			reason: "the client CA, then the RootShard's bundle, then the VirtualWorkspace's",
			rs: testworld.RootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "rs-bundle"}
			}),
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "vw-bundle"}
			}),
			want: "PEM(root-client-ca)\nPEM(rs-bundle)\nPEM(vw-bundle)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.vw, withRoot(tc.rs, func(w *testworld.World) { w.Secret("rs-bundle", "vw-bundle") }))
			o, ok := r.Desired.Get("secret-merged-client-ca")
			if !ok {
				t.Fatalf("%s: vw-merged-client-ca is not composed; desired %v", tc.reason, r.Desired.Names())
			}
			s := o.Resource.(*corev1.Secret)
			if got := string(s.Data["tls.crt"]); got != tc.want {
				t.Errorf("%s: tls.crt = %q, want %q", tc.reason, got, tc.want)
			}
			wantLabels := map[string]string{"operator.kcp.io/rootshard": "root", "operator.kcp.io/virtual-workspace": "vw"}
			if diff := cmp.Diff(wantLabels, s.Labels); diff != "" {
				t.Errorf("labels: -want, +got:\n%s", diff)
			}
			if got := deployment(t, r).Spec.Template.Spec.Volumes[3]; got.Name != "client-ca" || got.Secret.SecretName != "vw-merged-client-ca" {
				t.Errorf("the server must trust the merged client CA, got %+v", got)
			}
		})
	}

	t.Run("MissingBundle", func(t *testing.T) {
		vw := virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
			vw.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "vw-bundle"}
		})
		r, _ := converge(vw, withRoot(testworld.RootShard()))
		if r.Desired.Has("secret-merged-client-ca") || r.Desired.Has("deployment-virtual-workspace") {
			t.Errorf("Without the bundle Secret neither the merged client CA nor the Deployment can be built; desired %v", r.Desired.Names())
		}
		c := conditionOf(r, condition.TypeInputsReady)
		if want := "Waiting for tls.crt of Secret vw-bundle (to build Secret vw-merged-client-ca)."; c.Status || c.Message != want {
			t.Errorf("InputsReady = %+v, want False with %q", c, want)
		}
	})
}

func TestMissingTarget(t *testing.T) {
	cases := map[string]struct {
		reason  string
		vw      *v1alpha1.VirtualWorkspace
		running func() *testworld.World
		gone    func() *testworld.World
		wantReq []result.Requirement
		wantMsg string
	}{
		"RootShard": {
			reason:  "the target RootShard is gone",
			vw:      virtualWorkspace(),
			running: withRoot(testworld.RootShard()),
			gone:    testworld.New,
			wantReq: []result.Requirement{{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard", Name: "root"}},
			wantMsg: "RootShard root (spec.target.rootShardRef.name) does not exist in namespace kcp; create it or fix the reference",
		},
		"Shard": {
			reason:  "the target Shard is gone",
			vw:      virtualWorkspace(targetShard("alpha")),
			running: withRoot(testworld.RootShard(), func(w *testworld.World) { w.Object(shard()).Secret("alpha-logical-cluster-admin-kubeconfig") }),
			gone:    withRoot(testworld.RootShard()),
			wantReq: []result.Requirement{{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard", Name: "alpha"}},
			wantMsg: "Shard alpha (spec.target.shardRef.name) does not exist in namespace kcp; create it or fix the reference",
		},
		"ShardsRootShard": {
			reason:  "the target Shard's RootShard is gone",
			vw:      virtualWorkspace(targetShard("alpha")),
			running: withRoot(testworld.RootShard(), func(w *testworld.World) { w.Object(shard()).Secret("alpha-logical-cluster-admin-kubeconfig") }),
			gone:    func() *testworld.World { return testworld.New().Object(shard()) },
			wantReq: []result.Requirement{
				{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard", Name: "alpha"},
				{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard", Name: "root"},
			},
			wantMsg: "RootShard root (spec.rootShard.ref.name of Shard alpha, named by spec.target.shardRef.name) does not exist in namespace kcp; create it or fix the reference",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fresh := composeOK(tc.vw, tc.gone().State())
			if len(fresh.Desired.Objects()) != 0 {
				t.Errorf("%s: nothing is composed before the target exists, got %v", tc.reason, fresh.Desired.Names())
			}
			if diff := cmp.Diff(tc.wantReq, fresh.Requirements); diff != "" {
				t.Errorf("%s: the target is required.\n-want, +got:\n%s", tc.reason, diff)
			}
			wantCond := []condition.Condition{{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing, Message: tc.wantMsg + "."}}
			if diff := cmp.Diff(wantCond, fresh.Conditions); diff != "" {
				t.Errorf("%s: InputsReady names the field.\n-want, +got:\n%s", tc.reason, diff)
			}
			if !fresh.NotReady || fresh.Status.Phase != v1alpha1.PhaseProvisioning || fresh.Status.URL != "https://vw.example.com:443" {
				t.Errorf("%s: not ready %v, status %+v", tc.reason, fresh.NotReady, fresh.Status)
			}

			converged, w := converge(tc.vw, tc.running)
			r := composeOK(tc.vw, tc.gone().ComposedFrom(w).State())
			if diff := cmp.Diff(converged.Desired.Names(), r.Desired.Names()); diff != "" {
				t.Errorf("%s: nothing may disappear while the target is missing.\n-want, +got:\n%s", tc.reason, diff)
			}
			for _, o := range r.Desired.Objects() {
				if o.Kept == nil {
					t.Errorf("%s: %s must be kept exactly as observed", tc.reason, o.Name)
				}
				if o.Ready != resource.ReadyTrue {
					t.Errorf("%s: %s is kept ready as observed, got %v", tc.reason, o.Name, o.Ready)
				}
			}
			wantCond[0].Message = tc.wantMsg + ". Everything composed so far is kept unchanged meanwhile."
			if diff := cmp.Diff(wantCond, r.Conditions); diff != "" {
				t.Errorf("%s: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestGating(t *testing.T) {
	t.Run("Fresh", func(t *testing.T) {
		r := composeOK(virtualWorkspace(), installation(testworld.RootShard()).State())
		if diff := cmp.Diff([]resource.Name{"certificate-client", "certificate-server"}, r.Desired.Names()); diff != "" {
			t.Errorf("Before its certificates are issued only the certificates are composed.\n-want, +got:\n%s", diff)
		}
		want := []condition.Condition{
			{Type: condition.TypeCertificatesReady, Reason: condition.ReasonIssuing, Message: "Waiting for cert-manager to issue the 2 certificates (kubectl get certificates -n kcp shows each one's state)."},
			{Type: condition.TypeInputsReady, Status: true, Reason: condition.ReasonAllPresent, Message: "Every Secret and ConfigMap the spec references exists."},
			{Type: condition.TypeAvailable, Reason: condition.ReasonWaitingForInputs, Message: "Deployment kcp/vw-virtual-workspace is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady)."},
			{Type: condition.TypeUpgraded, Status: true, Reason: condition.ReasonImageComposed, Message: "The Deployment is composed with the image spec.image names (ghcr.io/kcp-dev/kcp:v0.32.3)."},
		}
		if diff := cmp.Diff(want, r.Conditions); diff != "" {
			t.Errorf("-want, +got:\n%s", diff)
		}
		if !r.NotReady {
			t.Errorf("the XR is not ready without its Deployment")
		}
	})

	cases := map[string]struct {
		reason string
		vw     *v1alpha1.VirtualWorkspace
		base   func() *testworld.World
		want   string
	}{
		"TargetKubeconfig": {
			reason: "the target's logical-cluster-admin kubeconfig is mounted",
			vw:     virtualWorkspace(),
			base: func() *testworld.World {
				return testworld.New().Object(testworld.RootShard()).Secret("root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca")
			},
			want: "Secret root-logical-cluster-admin-kubeconfig (spec.target.rootShardRef.name (RootShard root))",
		},
		"ShardTargetKubeconfig": {
			reason: "a Shard target's logical-cluster-admin kubeconfig is mounted",
			vw:     virtualWorkspace(targetShard("alpha")),
			base:   withRoot(testworld.RootShard(), func(w *testworld.World) { w.Object(shard()) }),
			want:   "Secret alpha-logical-cluster-admin-kubeconfig (spec.target.shardRef.name (Shard alpha))",
		},
		"RootCA": {
			reason: "the RootShard's CAs are mounted",
			vw:     virtualWorkspace(targetShard("alpha")),
			base: func() *testworld.World {
				return testworld.New().Object(testworld.RootShard()).Object(shard()).Secret("root-server-ca", "root-client-ca", "root-requestheader-client-ca", "alpha-logical-cluster-admin-kubeconfig")
			},
			want: "Secret root-ca (spec.target.shardRef.name (RootShard root of Shard alpha))",
		},
		"KubeconfigSecretRef": {
			reason: "the user's kubeconfig is mounted",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: "vw-kubeconfig"}
			}),
			base: withRoot(testworld.RootShard()),
			want: "Secret vw-kubeconfig (spec.kubeconfigSecretRef.name)",
		},
		"InitKubeconfig": {
			reason: "an init container's kubeconfig is mounted",
			vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{
					{Name: "a"}, {Name: "b", KubeconfigSecretRef: &corev1.LocalObjectReference{Name: "b-kubeconfig"}},
				}
			}),
			base: withRoot(testworld.RootShard()),
			want: "Secret b-kubeconfig (spec.initContainers[1].kubeconfigSecretRef.name)",
		},
		"CacheServer": {
			reason: "the effective cache server's Secrets are mounted",
			vw:     virtualWorkspace(targetShard("alpha")),
			base: withRoot(testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"} }),
				func(w *testworld.World) {
					w.Object(shard()).Secret("alpha-logical-cluster-admin-kubeconfig", "cache-kubeconfig", "cache-ca")
				}),
			want: "Secret cache-client-certificate (spec.cache.ref.name of RootShard root (CacheServer cache))",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.vw, tc.base)
			if r.Desired.Has("deployment-virtual-workspace") || r.Desired.Has("service-virtual-workspace") {
				t.Errorf("%s: the Deployment must wait for every Secret it mounts", tc.reason)
			}
			if c := conditionOf(r, condition.TypeInputsReady); c.Status || c.Message != "Waiting for "+tc.want+"." {
				t.Errorf("%s: InputsReady = %+v, want False naming %q", tc.reason, c, tc.want)
			}
			if c := conditionOf(r, condition.TypeCertificatesReady); !c.Status {
				t.Errorf("%s: certificates are issued regardless: %+v", tc.reason, c)
			}
			if !r.NotReady {
				t.Errorf("%s: the XR is not ready without its Deployment", tc.reason)
			}
		})
	}
}

func TestKeepWorkloadWhileInputMissing(t *testing.T) {
	vw := virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
		vw.Spec.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: "vw-kubeconfig"}
	})
	converged, w := converge(vw, withRoot(testworld.RootShard(), func(w *testworld.World) { w.Secret("vw-kubeconfig") }))
	r := composeOK(vw, withRoot(testworld.RootShard())().ComposedFrom(w).State())
	if diff := cmp.Diff(converged.Desired.Names(), r.Desired.Names()); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	for _, k := range []resource.Name{"deployment-virtual-workspace", "service-virtual-workspace"} {
		if o, _ := r.Desired.Get(k); o.Kept == nil {
			t.Errorf("%s must be kept as observed while the kubeconfig Secret is missing", k)
		}
	}
}

func TestReplicas(t *testing.T) {
	live := func(n int64) func(*testworld.World) {
		return func(w *testworld.World) {
			w.Put("deployment-virtual-workspace", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": "vw-virtual-workspace"}, "spec": map[string]any{"replicas": n}})
		}
	}
	cases := map[string]struct {
		vw   *v1alpha1.VirtualWorkspace
		live func(*testworld.World)
		want int32
	}{
		"Default": {vw: virtualWorkspace(), want: 2},
		"Spec":    {vw: virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) { vw.Spec.Replicas = ptr.To[int32](0) }), live: live(5), want: 0},
		"Live":    {vw: virtualWorkspace(), live: live(5), want: 5},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			first, _ := converge(tc.vw, withRoot(testworld.RootShard()))
			w := withRoot(testworld.RootShard())().Settle(first.Desired)
			if tc.live != nil {
				tc.live(w)
			}
			r := composeOK(tc.vw, w.State())
			if got := *deployment(t, r).Spec.Replicas; got != tc.want {
				t.Errorf("replicas = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.VirtualWorkspace)
		want   []string
	}{
		"Valid": {reason: "the default VirtualWorkspace is valid", mod: func(*v1alpha1.VirtualWorkspace) {}},
		"ProfilingWithCustomCommand": {
			reason: "a custom server may not take --profiler-address",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Command = []string{"/access-vw"}
				vw.Spec.Profiling = &v1alpha1.Profiling{Enabled: true}
			},
			want: []string{"spec.profiling: Forbidden: a custom spec.command's server may not take --profiler-address; remove profiling, or pass the flag your server takes in spec.extraArgs"},
		},
		"ProfilerOnServingPort": {
			reason: "a profiler on the server's own port would keep it from starting",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Profiling = &v1alpha1.Profiling{Enabled: true, Port: 6443}
			},
			want: []string{"spec.profiling.port: Invalid value: 6443: is a port kcp serves on ([6443 6444]); choose another, or remove port for 6060"},
		},
		"BothTargets": {
			reason: "exactly one target",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Target.ShardRef = &corev1.LocalObjectReference{Name: "alpha"}
			},
			want: []string{"spec.target: Forbidden: set exactly one of rootShardRef and shardRef, not both"},
		},
		"NoTarget": {
			reason: "exactly one target",
			mod:    func(vw *v1alpha1.VirtualWorkspace) { vw.Spec.Target = v1alpha1.VirtualWorkspaceTarget{} },
			want:   []string{"spec.target: Required value: set exactly one of rootShardRef (a RootShard) or shardRef (a Shard) in the same namespace, whose virtual workspaces this server serves"},
		},
		"EmptyShardRef": {
			reason: "a target reference needs a name",
			mod:    targetShard(""),
			want:   []string{"spec.target.shardRef.name: Required value: name the Shard whose virtual workspaces this server serves"},
		},
		"External": {
			reason: "the external address is the URL shards advertise",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.External = v1alpha1.ExternalConfig{Hostname: "https://vw"}
			},
			want: []string{
				`spec.external.hostname: Invalid value: "https://vw": must be a DNS name or IP address without scheme or port`,
				"spec.external.port: Invalid value: 0: must be a port between 1 and 65535, for example 6443",
			},
		},
		"LongName": {
			reason: "<name>-virtual-workspace must be a valid Service name",
			mod:    func(vw *v1alpha1.VirtualWorkspace) { vw.Name = strings.Repeat("a", 46) },
			want:   []string{"metadata.name: Too long: may not be more than 45 bytes"},
		},
		"ImagesReplicas": {
			reason: "images of the server and the init containers, and replicas",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.Image = &v1alpha1.ImageSpec{Tag: "v1:2"}
				vw.Spec.Replicas = ptr.To[int32](-1)
				vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{{Name: "init", Image: &v1alpha1.ImageSpec{Repository: "Bad/Repo"}}}
			},
			want: []string{
				`spec.image.tag: Invalid value: "v1:2": must be a valid image tag (letters, digits, '_', '.', '-'; at most 128 characters), for example v0.32.3`,
				"spec.replicas: Invalid value: -1: must not be negative",
				`spec.initContainers[0].image.repository: Invalid value: "Bad/Repo": must be an image repository without tag, for example ghcr.io/kcp-dev/kcp`,
			},
		},
		"InitContainerNames": {
			reason: "init container names are non-empty, unique, DNS labels and not the server's",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{{Name: ""}, {Name: "a"}, {Name: "a"}, {Name: "kcp"}, {Name: "A_b"}}
			},
			want: []string{
				"spec.initContainers[0].name: Required value: name the init container",
				`spec.initContainers[2].name: Duplicate value: "a"`,
				`spec.initContainers[3].name: Invalid value: "kcp": "kcp" is the name of the server container; choose another name`,
				`spec.initContainers[4].name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			},
		},
		"EmptyRefs": {
			reason: "references need names",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.KubeconfigSecretRef = &corev1.LocalObjectReference{}
				vw.Spec.ClientCABundleRef = &corev1.LocalObjectReference{}
				vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{{Name: "i", KubeconfigSecretRef: &corev1.LocalObjectReference{}}}
			},
			want: []string{
				"spec.kubeconfigSecretRef.name: Required value: name the Secret whose kubeconfig key the server uses, or remove kubeconfigSecretRef to use the target's logical-cluster-admin kubeconfig",
				"spec.clientCABundleRef.name: Required value: name the Secret whose tls.crt holds the additional client CAs",
				"spec.initContainers[0].kubeconfigSecretRef.name: Required value: name the Secret whose kubeconfig key this init container uses, or remove kubeconfigSecretRef to use the target's logical-cluster-admin kubeconfig",
			},
		},
		"VolumeClashes": {
			reason: "the user's volumes must not reuse generated names (the pod would keep only one); mounts need a volume",
			mod: func(vw *v1alpha1.VirtualWorkspace) {
				vw.Spec.ExtraVolumes = []corev1.Volume{emptyDir("server-cert"), emptyDir("scratch")}
				vw.Spec.ExtraVolumeMounts = []corev1.VolumeMount{{Name: "scratch"}, {Name: "init-scratch"}, {Name: "nope"}}
				vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{
					{Name: "one", Volumes: []corev1.Volume{emptyDir("init-two-kubeconfig"), emptyDir("init-scratch")}, VolumeMounts: []corev1.VolumeMount{{Name: "scratch"}}},
					{Name: "two", VolumeMounts: []corev1.VolumeMount{{Name: "cache-server-ca"}, {Name: "missing"}}},
				}
			},
			want: []string{
				`spec.extraVolumes[0].name: Duplicate value: "server-cert"`,
				`spec.initContainers[0].volumes[0].name: Duplicate value: "init-two-kubeconfig"`,
				`spec.extraVolumeMounts[2].name: Not found: "nope"`,
				`spec.initContainers[1].volumeMounts[1].name: Not found: "missing"`,
			},
		},
		"ClusterDomain": {
			reason: "the cluster domain goes into DNS names",
			mod:    func(vw *v1alpha1.VirtualWorkspace) { vw.Spec.ClusterDomain = "Bad_Domain" },
			want: []string{
				`spec.clusterDomain: Invalid value: "Bad_Domain": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			vw := virtualWorkspace()
			tc.mod(vw)
			var got []string
			for _, e := range Validate(vw) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	vw := virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
		vw.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "bundle"}
		vw.Spec.CertificateTemplates = v1alpha1.CertificateTemplateMap{"server": {}, "virtual-workspaces": {}}
	})
	want := []string{
		`spec.certificateTemplates["virtual-workspaces"] matches no certificate and is ignored; known keys: [server client]`,
		"spec.caBundleSecretRef is accepted for compatibility with kcp-operator and ignored, as kcp-operator ignores it",
	}
	if diff := cmp.Diff(want, Warnings(vw)); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

func TestDeterministic(t *testing.T) {
	vw := virtualWorkspace(func(vw *v1alpha1.VirtualWorkspace) {
		vw.Spec.InitContainers = []v1alpha1.VirtualWorkspaceInitContainer{{Name: "a"}, {Name: "b", KubeconfigSecretRef: &corev1.LocalObjectReference{Name: "b"}}}
		vw.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "bundle"}
	})
	base := withRoot(testworld.RootShard(), func(w *testworld.World) { w.Secret("b", "bundle") })
	first, _ := converge(vw, base)
	want, err := first.Desired.Composed()
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		again, _ := converge(vw, base)
		got, err := again.Desired.Composed()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("the same inputs must compose the same objects.\n-first, +again:\n%s", diff)
		}
	}
}

// Pod Security "restricted": pods run as non-root and carry no service account token.
var restricted, noToken = true, false
