// Package etcd renders the managed etcd cluster of a KcpInstallation with
// spec.etcd.managed, or of a shard with managedEtcd: a StatefulSet with one volume per
// member and etcd's flags, a headless Service the members find each other through, a client
// Service the shards connect to, the cluster's TLS, its PodMonitor's target and, with
// spec.backup, the CronJob that saves its snapshots (backup.go). It reads no observed state:
// when each object is composed, and whether the cluster is ready, the KcpInstallation decides.
//
// The TLS follows the PKI kcp's Helm chart sketches, with two dedicated CAs:
//
//	Issuer <e>-selfsigned
//	├── <e>-client-ca → Issuer <e>-client-ca
//	│   ├── <e>-server   serving (and client) certificate of every member
//	│   └── <e>-client   the certificate kcp connects with
//	└── <e>-peer-ca   → Issuer <e>-peer-ca
//	    └── <e>-peer     member-to-member certificate
//
// The CAs are roots of their own, not below the installation's root CA, because every
// consumer reads its trust from the ca.crt cert-manager writes, and for a chain that is the
// chain's root: below the installation's CA, etcd would accept every client certificate of
// the installation (a tenant's admin kubeconfig included) as an etcd client. As roots, etcd
// trusts exactly the client CA's certificates, and the peers exactly the peer CA's. The
// server certificate comes from the client CA so that the ca.crt next to kcp's client
// certificate verifies it.
package etcd

import (
	"fmt"
	"maps"
	"strings"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Defaults of a managed etcd cluster.
const (
	// DefaultImage is the etcd kcp's Helm chart ships.
	DefaultImage       = "quay.io/coreos/etcd:v3.5.28"
	DefaultReplicas    = 1
	DefaultStorageSize = "8Gi"
	// PolicyRetain keeps the members' volumes when the StatefulSet is deleted.
	PolicyRetain = "Retain"
	PolicyDelete = "Delete"

	ClientPort  = 2379
	PeerPort    = 2380
	MetricsPort = 8080

	// ComponentEtcd is the app.kubernetes.io/component of every etcd object.
	ComponentEtcd = "etcd"
	// uid and gid the etcd process runs as; fsGroup makes the volume writable for it.
	runAsUser = 65532

	dataDir   = "/var/lib/etcd"
	serverTLS = "/etc/etcd/tls/server"
	peerTLS   = "/etc/etcd/tls/peer"
)

// Cluster is one managed etcd cluster: the installation's, or one shard's.
type Cluster struct {
	// Names are the names of its objects.
	Names         names.Etcd
	Namespace     string
	ClusterDomain string
	Spec          v1alpha1.ManagedEtcd
	// Scheduling of the members: spec.etcd.managed.scheduling over spec.scheduling.
	Scheduling *v1alpha1.Scheduling
	// Profiling, the cluster's own over the installation's, serves Go's pprof endpoints on
	// the client port, to clients with the cluster's client certificate.
	Profiling *v1alpha1.Profiling
	// Stopped holds the members at zero replicas and the backups suspended, while a restore
	// writes into the members' volumes.
	Stopped bool
}

// Labels are the labels of the cluster's objects, and what its Services select.
func (c Cluster) Labels() map[string]string { return names.Labels(c.Names.Instance(), ComponentEtcd) }

// Replicas is the number of members.
func (c Cluster) Replicas() int32 {
	if c.Spec.Replicas == 0 {
		return DefaultReplicas
	}
	return c.Spec.Replicas
}

// VolumeDeletionPolicy is Retain unless the user asked for Delete.
func (c Cluster) VolumeDeletionPolicy() string {
	if c.Spec.VolumeDeletionPolicy == PolicyDelete {
		return PolicyDelete
	}
	return PolicyRetain
}

// Client is the etcd configuration a shard uses to store its data under prefix.
func (c Cluster) Client(prefix string) v1alpha1.EtcdConfig {
	return v1alpha1.EtcdConfig{
		Endpoints: []string{fmt.Sprintf("https://%s:%d", names.ServiceFQDN(c.Names.Name(), c.Namespace, c.ClusterDomain), ClientPort)},
		TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: corev1.LocalObjectReference{Name: c.Names.ClientSecret()}},
		Prefix:    prefix,
	}
}

// initialCluster is every member's name and peer URL, as etcd's --initial-cluster.
func (c Cluster) initialCluster() string {
	var initial []string
	for i := range c.Replicas() {
		initial = append(initial, fmt.Sprintf("%s-%d=%s", c.Names.Name(), i, c.peerURL(i)))
	}
	return strings.Join(initial, ",")
}

// peerURL is where member i's peers reach it.
func (c Cluster) peerURL(i int32) string {
	return fmt.Sprintf("https://%s:%d", c.memberHost(i), PeerPort)
}

// image is the members' etcd image, whose etcdctl and etcdutl the backup and restore use.
func (c Cluster) image() string {
	if c.Spec.Image == "" {
		return DefaultImage
	}
	return c.Spec.Image
}

// shellImage has the POSIX shell the etcd image lacks, for the backup's and restore's scripts.
func (c Cluster) shellImage() string {
	if b := c.Spec.Backup; b != nil && b.Image != "" {
		return b.Image
	}
	return DefaultBackupImage
}

// memberHost is the stable DNS name of member i.
func (c Cluster) memberHost(i int32) string {
	return fmt.Sprintf("%s-%d.%s", c.Names.Name(), i, names.ServiceFQDN(c.Names.MembersService(), c.Namespace, c.ClusterDomain))
}

// SelfSignedIssuer signs the cluster's two CAs.
func (c Cluster) SelfSignedIssuer() *cmv1.Issuer {
	return &cmv1.Issuer{
		TypeMeta:   metav1.TypeMeta{APIVersion: cmv1.SchemeGroupVersion.String(), Kind: cmv1.IssuerKind},
		ObjectMeta: metav1.ObjectMeta{Name: c.Names.SelfSignedIssuer(), Namespace: c.Namespace, Labels: c.Labels()},
		Spec:       cmv1.IssuerSpec{IssuerConfig: cmv1.IssuerConfig{SelfSigned: &cmv1.SelfSignedIssuer{}}},
	}
}

// CA is one of the cluster's two CAs (ClientCA or PeerCA): its Certificate, signed by the
// self-signed Issuer, and the Issuer that signs with it.
func (c Cluster) CA(name string) (*cmv1.Certificate, *cmv1.Issuer) {
	labels := c.Labels()
	return pki.CA(name, c.Namespace, pki.IssuerRef(c.Names.SelfSignedIssuer()), labels, nil), pki.CAIssuer(name, c.Namespace, name, labels)
}

// ServerCertificate is every member's serving certificate, from the client CA so that the
// ca.crt beside kcp's client certificate verifies it; it names every member, the client
// Service and localhost, where etcdctl in a member's pod dials.
func (c Cluster) ServerCertificate() *cmv1.Certificate {
	ns := c.Namespace
	serving := []string{"localhost", c.Names.Name(), c.Names.Name() + "." + ns, c.Names.Name() + "." + ns + ".svc", names.ServiceFQDN(c.Names.Name(), ns, c.ClusterDomain)}
	serving = append(serving, c.memberHosts()...)
	cert := pki.Leaf{
		Name: c.Names.ServerCertificate(), Namespace: ns, CommonName: c.Names.Name(), DNSNames: serving,
		Usages: servingAndClient(), Issuer: c.Names.ClientCA(), Labels: c.Labels(),
	}.Certificate()
	cert.Spec.IPAddresses = []string{"127.0.0.1"}
	return cert
}

// PeerCertificate is every member's certificate towards its peers, from the peer CA.
func (c Cluster) PeerCertificate() *cmv1.Certificate {
	return pki.Leaf{
		Name: c.Names.PeerCertificate(), Namespace: c.Namespace, CommonName: c.Names.Name(), DNSNames: c.memberHosts(),
		Usages: servingAndClient(), Issuer: c.Names.PeerCA(), Labels: c.Labels(),
	}.Certificate()
}

// ClientCertificate is the certificate kcp (and the backup) connects with, from the client CA.
func (c Cluster) ClientCertificate() *cmv1.Certificate {
	return pki.Leaf{
		Name: c.Names.ClientSecret(), Namespace: c.Namespace, CommonName: "kcp",
		Usages: pki.UsagesCacheClient, Issuer: c.Names.ClientCA(), Labels: c.Labels(),
	}.Certificate()
}

func servingAndClient() []cmv1.KeyUsage {
	return append(append([]cmv1.KeyUsage{}, pki.UsagesServing...), pki.UsagesClient...)
}

// memberHosts are the stable DNS names of every member.
func (c Cluster) memberHosts() []string {
	hosts := make([]string, 0, c.Replicas())
	for i := range c.Replicas() {
		hosts = append(hosts, c.memberHost(i))
	}
	return hosts
}

// MonitoringTarget is what the members' PodMonitor scrapes: etcd serves its metrics, and
// nothing else, over plain HTTP on a port of their own, so Prometheus needs no certificate.
func (c Cluster) MonitoringTarget() monitoring.Target {
	labels := c.Labels()
	return monitoring.Target{Name: c.Names.Name(), Namespace: c.Namespace, Labels: labels, Selector: labels, PlainHTTPPort: "metrics"}
}

// ClientService is the Service the shards, and the backup, connect to.
func (c Cluster) ClientService() *corev1.Service {
	labels := c.Labels()
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Names.Name(), Namespace: c.Namespace, Labels: labels},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: maps.Clone(labels),
			Ports:    []corev1.ServicePort{port("client", ClientPort)},
		},
	}
}

// MembersService is headless and publishes members before they are ready: a new cluster's
// members must reach each other to become ready at all.
func (c Cluster) MembersService() *corev1.Service {
	labels := c.Labels()
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Names.MembersService(), Namespace: c.Namespace, Labels: labels},
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			PublishNotReadyAddresses: true,
			Selector:                 maps.Clone(labels),
			Ports:                    []corev1.ServicePort{port("client", ClientPort), port("peer", PeerPort), port("metrics", MetricsPort)},
		},
	}
}

func port(name string, p int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: p, TargetPort: intstr.FromString(name), Protocol: corev1.ProtocolTCP}
}

// Args are etcd's flags; $(POD_NAME) is expanded by the kubelet from the pod's env.
func (c Cluster) Args() []string {
	self := fmt.Sprintf("$(POD_NAME).%s", names.ServiceFQDN(c.Names.MembersService(), c.Namespace, c.ClusterDomain))
	args := []string{
		"--name=$(POD_NAME)",
		"--data-dir=" + dataDir + "/data",
		fmt.Sprintf("--listen-client-urls=https://0.0.0.0:%d", ClientPort),
		fmt.Sprintf("--advertise-client-urls=https://%s:%d", self, ClientPort),
		fmt.Sprintf("--listen-peer-urls=https://0.0.0.0:%d", PeerPort),
		fmt.Sprintf("--initial-advertise-peer-urls=https://%s:%d", self, PeerPort),
		"--initial-cluster=" + c.initialCluster(),
		"--initial-cluster-state=new",
		"--initial-cluster-token=" + c.Names.Name(),
		fmt.Sprintf("--listen-metrics-urls=http://0.0.0.0:%d", MetricsPort),
		"--client-cert-auth",
		"--trusted-ca-file=" + serverTLS + "/ca.crt",
		"--cert-file=" + serverTLS + "/tls.crt",
		"--key-file=" + serverTLS + "/tls.key",
		"--peer-client-cert-auth",
		"--peer-trusted-ca-file=" + peerTLS + "/ca.crt",
		"--peer-cert-file=" + peerTLS + "/tls.crt",
		"--peer-key-file=" + peerTLS + "/tls.key",
		"--auto-compaction-mode=periodic",
		"--auto-compaction-retention=5m",
		"--snapshot-count=5000",
	}
	if c.Profiling.On() {
		args = append(args, "--enable-pprof=true")
	}
	return args
}

// StatefulSet runs the members, each with a volume of its own.
func (c Cluster) StatefulSet() *appsv1.StatefulSet {
	labels := c.Labels()
	replicas := c.Replicas()
	if c.Stopped {
		replicas = 0
	}
	image := c.image()
	size := apiresource.MustParse(DefaultStorageSize)
	var class *string
	if s := c.Spec.Storage; s != nil {
		if s.Size != nil {
			size = *s.Size
		}
		class = s.StorageClassName
	}
	policy := appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	if c.VolumeDeletionPolicy() == PolicyDelete {
		policy = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	}
	var resources corev1.ResourceRequirements
	if c.Spec.Resources != nil {
		resources = *c.Spec.Resources
	}
	probe := func(path string, initialDelay, failure int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: path, Port: intstr.FromString("metrics"), Scheme: corev1.URISchemeHTTP,
			}},
			InitialDelaySeconds: initialDelay, PeriodSeconds: 10, TimeoutSeconds: 5,
			SuccessThreshold: 1, FailureThreshold: failure,
		}
	}
	var mounts workload.Mounts
	mounts.Secret("server-tls", c.Names.ServerCertificate(), serverTLS)
	mounts.Secret("peer-tls", c.Names.PeerCertificate(), peerTLS)
	sts := &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Names.Name(), Namespace: c.Namespace, Labels: maps.Clone(labels)},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: c.Names.MembersService(),
			// Members must start together: a new member waits for its peers to form a quorum.
			PodManagementPolicy: appsv1.ParallelPodManagement,
			UpdateStrategy:      appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			Selector:            &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: policy,
				WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{
					SecurityContext:              c.podSecurityContext(),
					AutomountServiceAccountToken: workload.NoServiceAccountToken(),
					Containers: []corev1.Container{{
						Name:  "etcd",
						Image: image,
						// The image's binary (its entrypoint is not etcd in every release).
						Command: []string{"/usr/local/bin/etcd"},
						Args:    c.Args(),
						Env: []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{
							FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"},
						}}},
						Ports: []corev1.ContainerPort{
							{Name: "client", ContainerPort: ClientPort, Protocol: corev1.ProtocolTCP},
							{Name: "peer", ContainerPort: PeerPort, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
						},
						// /health answers 503 until the member has a leader; serializable keeps a
						// member that lost quorum alive (it is not the member's fault).
						LivenessProbe:   probe("/health?serializable=true", 10, 6),
						ReadinessProbe:  probe("/health", 5, 3),
						Resources:       resources,
						SecurityContext: workload.ContainerSecurityContext(),
						VolumeMounts:    append(mounts.VolumeMounts(), corev1.VolumeMount{Name: "data", MountPath: dataDir}),
					}},
					Volumes: mounts.Volumes(),
					// Members on different nodes: one node lost must not take the quorum.
					TopologySpreadConstraints: workload.DefaultSpread(labels, false),
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
				ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: maps.Clone(labels)},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					StorageClassName: class,
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
				},
			}},
		},
	}
	workload.ApplyScheduling(&sts.Spec.Template.Spec, c.Scheduling)
	return sts
}

// podSecurityContext is the shared restricted pod context, with etcd's user: etcd's images run
// as root unless told, and its data volume must be writable by that user (fsGroup).
func (c *Cluster) podSecurityContext() *corev1.PodSecurityContext {
	sc := workload.PodSecurityContext()
	uid := int64(runAsUser)
	sc.RunAsUser, sc.RunAsGroup, sc.FSGroup = &uid, &uid, &uid
	return sc
}
