// Package managedetcd composes the etcd cluster of a KcpInstallation with spec.etcd.managed:
// a StatefulSet with one volume per member, a headless Service the members find each other
// through, a client Service the shards connect to, and the cluster's TLS.
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
//
// With spec.backup, a CronJob saves snapshots of the cluster into the user's
// PersistentVolumeClaim (backup.go); docs/day-two.md restores one.
package managedetcd

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
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
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

// KeyStatefulSet is the composition resource name of the installation's own cluster's
// StatefulSet, whose readiness the installation reports (see Cluster.Key).
const KeyStatefulSet resource.Name = "statefulset-etcd"

// Cluster is one managed etcd cluster: the installation's, or one shard's.
type Cluster struct {
	// Installation is the installation's name; the cluster's objects are named <i>-etcd…,
	// or <i>-<shard>-etcd… for a shard's own.
	Installation string
	// Shard is the name (in spec.shards) of the shard this cluster serves alone; "" for the
	// installation's cluster, which the root shard and every other shard share.
	Shard         string
	Namespace     string
	ClusterDomain string
	Spec          v1alpha1.ManagedEtcd
	// Scheduling of the members: spec.etcd.managed.scheduling over spec.scheduling.
	Scheduling *v1alpha1.Scheduling
	// Monitoring is the installation's: a PodMonitor scrapes the members' metrics port.
	Monitoring *v1alpha1.Monitoring
	// Profiling, the cluster's own over the installation's, serves Go's pprof endpoints on
	// the client port, to clients with the cluster's client certificate.
	Profiling *v1alpha1.Profiling
}

// Name is the StatefulSet's and the client Service's name.
func (c Cluster) Name() string { return c.instance() + "-etcd" }

// instance is the app.kubernetes.io/instance of the cluster's objects: each cluster's
// StatefulSet selects its own members only.
func (c Cluster) instance() string {
	if c.Shard != "" {
		return c.Installation + "-" + c.Shard
	}
	return c.Installation
}

// Key is the composition resource name of the StatefulSet: KeyStatefulSet for the
// installation's cluster, statefulset-<shard>-etcd for a shard's.
func (c Cluster) Key() resource.Name {
	if c.Shard != "" {
		return resource.Name("statefulset-" + c.Shard + "-etcd")
	}
	return KeyStatefulSet
}

// MembersService is the headless Service that gives every member a stable DNS name.
func (c Cluster) MembersService() string { return c.Name() + "-members" }

// ClientSecret is the Secret with the client certificate kcp connects with.
func (c Cluster) ClientSecret() string { return c.Name() + "-client" }

// Composed lists every name the cluster's objects take: the StatefulSet, Services and
// PodDisruptionBudget, the Issuers, the Certificates with the Secrets cert-manager writes,
// and the backup CronJob (reserved whether or not backup is set).
func (c Cluster) Composed() []string {
	return []string{c.Name(), c.MembersService(), c.selfSigned(), c.clientCA(), c.peerCA(), c.serverCert(), c.peerCert(), c.ClientSecret(), c.BackupCronJob()}
}

func (c Cluster) selfSigned() string { return c.Name() + "-selfsigned" }
func (c Cluster) clientCA() string   { return c.Name() + "-client-ca" }
func (c Cluster) peerCA() string     { return c.Name() + "-peer-ca" }
func (c Cluster) serverCert() string { return c.Name() + "-server" }
func (c Cluster) peerCert() string   { return c.Name() + "-peer" }

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
		Endpoints: []string{fmt.Sprintf("https://%s:%d", names.ServiceFQDN(c.Name(), c.Namespace, c.ClusterDomain), ClientPort)},
		TLSConfig: &v1alpha1.EtcdTLSConfig{SecretRef: corev1.LocalObjectReference{Name: c.ClientSecret()}},
		Prefix:    prefix,
	}
}

// memberHost is the stable DNS name of member i.
func (c Cluster) memberHost(i int32) string {
	return fmt.Sprintf("%s-%d.%s", c.Name(), i, names.ServiceFQDN(c.MembersService(), c.Namespace, c.ClusterDomain))
}

// Compose adds the cluster's objects to b. It reports whether every member is ready and, if
// not, why.
func (c Cluster) Compose(b *builder.Builder) (ready bool, why string) {
	labels := names.Labels(c.instance(), ComponentEtcd)
	ns := c.Namespace
	b.Issuer(selfSignedIssuer(c.selfSigned(), ns, labels))
	root := pki.IssuerRef(c.selfSigned())

	for _, ca := range []string{c.clientCA(), c.peerCA()} {
		b.Certificate(pki.CA(ca, ns, root, labels, nil), nil)
		b.Issuer(pki.CAIssuer(ca, ns, ca, labels))
	}

	var hosts []string
	for i := range c.Replicas() {
		hosts = append(hosts, c.memberHost(i))
	}
	serving := []string{"localhost", c.Name(), c.Name() + "." + ns, c.Name() + "." + ns + ".svc", names.ServiceFQDN(c.Name(), ns, c.ClusterDomain)}
	serving = append(serving, hosts...)
	both := append(append([]cmv1.KeyUsage{}, pki.UsagesServing...), pki.UsagesClient...)
	b.Certificate(withIPs(pki.Leaf{
		Name: c.serverCert(), Namespace: ns, CommonName: c.Name(), DNSNames: serving,
		Usages: both, Issuer: c.clientCA(), Labels: labels,
	}), nil)
	b.Certificate(pki.Leaf{
		Name: c.peerCert(), Namespace: ns, CommonName: c.Name(), DNSNames: hosts,
		Usages: both, Issuer: c.peerCA(), Labels: labels,
	}.Certificate(), nil)
	b.Certificate(pki.Leaf{
		Name: c.ClientSecret(), Namespace: ns, CommonName: "kcp",
		Usages: pki.UsagesCacheClient, Issuer: c.clientCA(), Labels: labels,
	}.Certificate(), nil)

	b.Set.Add(b.Key("service", c.Name()), c.clientService(labels), builder.Readiness(b.St.Exists(b.Key("service", c.Name()))))
	b.Set.Add(b.Key("service", c.MembersService()), c.membersService(labels), builder.Readiness(b.St.Exists(b.Key("service", c.MembersService()))))

	readyMembers, observedOK := b.St.StatefulSetReady(c.Key())
	ready = observedOK && readyMembers == c.Replicas()
	sts := c.statefulSet(labels)
	b.Set.Add(c.Key(), sts, builder.Readiness(ready))
	if pdb := workload.DisruptionBudget(sts.ObjectMeta, sts.Spec.Replicas, sts.Spec.Selector); pdb != nil {
		// A drain takes one member at a time, so a three-member etcd keeps its quorum.
		key := b.Key("poddisruptionbudget", c.Name())
		b.Set.Add(key, pdb, builder.Readiness(b.St.Exists(key)))
	}
	c.composeBackup(b)
	switch {
	case ready:
		return true, ""
	case !b.St.Exists(c.Key()):
		return false, "StatefulSet " + c.Name() + " is not created yet"
	default:
		return false, fmt.Sprintf("StatefulSet %s has %d of %d members ready", c.Name(), readyMembers, c.Replicas())
	}
}

// ComposeMonitoring composes the members' PodMonitor when the installation asks for
// monitoring. etcd serves its metrics, and nothing else, over plain HTTP on a port of their
// own, so Prometheus needs no certificate; it returns a warning while prometheus-operator is
// not installed.
func (c Cluster) ComposeMonitoring(b *builder.Builder) (warning string) {
	labels := names.Labels(c.instance(), ComponentEtcd)
	t := monitoring.Target{Name: c.Name(), Namespace: c.Namespace, Labels: labels, Selector: labels, PlainHTTPPort: "metrics"}
	return b.Monitoring(c.Monitoring, "spec.monitoring", t, nil)
}

func selfSignedIssuer(name, namespace string, labels map[string]string) *cmv1.Issuer {
	return &cmv1.Issuer{
		TypeMeta:   metav1.TypeMeta{APIVersion: cmv1.SchemeGroupVersion.String(), Kind: cmv1.IssuerKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: maps.Clone(labels)},
		Spec:       cmv1.IssuerSpec{IssuerConfig: cmv1.IssuerConfig{SelfSigned: &cmv1.SelfSignedIssuer{}}},
	}
}

func withIPs(l pki.Leaf) *cmv1.Certificate {
	cert := l.Certificate()
	cert.Spec.IPAddresses = []string{"127.0.0.1"}
	return cert
}

func (c Cluster) clientService(labels map[string]string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Name(), Namespace: c.Namespace, Labels: maps.Clone(labels)},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: maps.Clone(labels),
			Ports:    []corev1.ServicePort{port("client", ClientPort)},
		},
	}
}

// membersService is headless and publishes members before they are ready: a new cluster's
// members must reach each other to become ready at all.
func (c Cluster) membersService(labels map[string]string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: c.MembersService(), Namespace: c.Namespace, Labels: maps.Clone(labels)},
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

// args are etcd's flags; $(POD_NAME) is expanded by the kubelet from the pod's env.
func (c Cluster) args() []string {
	self := fmt.Sprintf("$(POD_NAME).%s", names.ServiceFQDN(c.MembersService(), c.Namespace, c.ClusterDomain))
	var initial []string
	for i := range c.Replicas() {
		initial = append(initial, fmt.Sprintf("%s-%d=https://%s:%d", c.Name(), i, c.memberHost(i), PeerPort))
	}
	args := []string{
		"--name=$(POD_NAME)",
		"--data-dir=" + dataDir + "/data",
		fmt.Sprintf("--listen-client-urls=https://0.0.0.0:%d", ClientPort),
		fmt.Sprintf("--advertise-client-urls=https://%s:%d", self, ClientPort),
		fmt.Sprintf("--listen-peer-urls=https://0.0.0.0:%d", PeerPort),
		fmt.Sprintf("--initial-advertise-peer-urls=https://%s:%d", self, PeerPort),
		"--initial-cluster=" + strings.Join(initial, ","),
		"--initial-cluster-state=new",
		"--initial-cluster-token=" + c.Name(),
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

func (c Cluster) statefulSet(labels map[string]string) *appsv1.StatefulSet {
	replicas := c.Replicas()
	image := c.Spec.Image
	if image == "" {
		image = DefaultImage
	}
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
	mounts.Secret("server-tls", c.serverCert(), serverTLS)
	mounts.Secret("peer-tls", c.peerCert(), peerTLS)
	sts := &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Name(), Namespace: c.Namespace, Labels: maps.Clone(labels)},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: c.MembersService(),
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
						Args:    c.args(),
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
