package managedetcd

import (
	"slices"
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
)

func cluster(spec v1alpha1.ManagedEtcd) Cluster {
	return Cluster{Installation: "dev", Namespace: "team-a", Spec: spec}
}

func TestStatefulSet(t *testing.T) {
	size := apiresource.MustParse("20Gi")
	class := "fast"
	type want struct {
		replicas       int32
		image          string
		size           string
		class          *string
		whenDeleted    appsv1.PersistentVolumeClaimRetentionPolicyType
		initialCluster string
	}
	cases := map[string]struct {
		reason string
		spec   v1alpha1.ManagedEtcd
		want   want
	}{
		"Defaults": {
			reason: "One member, 8Gi on the default class, the tested image, volumes retained.",
			want: want{
				replicas: 1, image: DefaultImage, size: "8Gi", whenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				initialCluster: "--initial-cluster=dev-etcd-0=https://dev-etcd-0.dev-etcd-members.team-a.svc.cluster.local:2380",
			},
		},
		"ThreeMembersDeleteVolumes": {
			reason: "Three members bootstrap together; Delete is only ever what the user asked for.",
			spec: v1alpha1.ManagedEtcd{
				Replicas: 3, Image: "registry.example.com/etcd:v3.5.28", VolumeDeletionPolicy: PolicyDelete,
				Storage: &v1alpha1.ManagedEtcdStorage{Size: &size, StorageClassName: &class},
			},
			want: want{
				replicas: 3, image: "registry.example.com/etcd:v3.5.28", size: "20Gi", class: &class, whenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
				initialCluster: "--initial-cluster=" +
					"dev-etcd-0=https://dev-etcd-0.dev-etcd-members.team-a.svc.cluster.local:2380," +
					"dev-etcd-1=https://dev-etcd-1.dev-etcd-members.team-a.svc.cluster.local:2380," +
					"dev-etcd-2=https://dev-etcd-2.dev-etcd-members.team-a.svc.cluster.local:2380",
			},
		},
		"UnknownPolicyRetains": {
			reason: "Anything but Delete keeps the data.",
			spec:   v1alpha1.ManagedEtcd{VolumeDeletionPolicy: "delete"},
			want: want{
				replicas: 1, image: DefaultImage, size: "8Gi", whenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				initialCluster: "--initial-cluster=dev-etcd-0=https://dev-etcd-0.dev-etcd-members.team-a.svc.cluster.local:2380",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(tc.spec)
			s := c.statefulSet(map[string]string{"app": "etcd"})
			pvc := s.Spec.VolumeClaimTemplates[0].Spec
			ctr := s.Spec.Template.Spec.Containers[0]
			got := want{
				replicas: *s.Spec.Replicas, image: ctr.Image,
				size: pvc.Resources.Requests.Storage().String(), class: pvc.StorageClassName,
				whenDeleted: s.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted,
			}
			for _, a := range ctr.Args {
				if strings.HasPrefix(a, "--initial-cluster=") {
					got.initialCluster = a
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nstatefulSet(): -want, +got:\n%s", tc.reason, diff)
			}
			if s.Spec.ServiceName != "dev-etcd-members" || s.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
				t.Errorf("%s\nserviceName %q policy %q, want dev-etcd-members and Parallel", tc.reason, s.Spec.ServiceName, s.Spec.PodManagementPolicy)
			}
			if sc := s.Spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.FSGroup == nil {
				t.Errorf("%s\npod security context %+v, want non-root with an fsGroup for the volume", tc.reason, sc)
			}
		})
	}
}

// TestCompose checks what the cluster composes, the PKI's issuers and names, and when it is
// ready.
func TestCompose(t *testing.T) {
	sts := func(generation, observedGeneration, ready int64) *resource.Unstructured {
		u := resource.NewUnstructured()
		u.SetAPIVersion("apps/v1")
		u.SetKind("StatefulSet")
		u.SetGeneration(generation)
		u.Object["status"] = map[string]any{"observedGeneration": observedGeneration, "readyReplicas": ready}
		return u
	}
	cases := map[string]struct {
		reason   string
		replicas int32
		observed map[resource.Name]*resource.Unstructured
		ready    bool
		why      string
	}{
		"NotCreated": {
			reason: "Nothing observed: not ready, and says so.",
			why:    "StatefulSet dev-etcd is not created yet",
		},
		"MembersStarting": {
			reason:   "Two of three members ready is not ready.",
			replicas: 3,
			observed: map[resource.Name]*resource.Unstructured{KeyStatefulSet: sts(1, 1, 2)},
			why:      "StatefulSet dev-etcd has 2 of 3 members ready",
		},
		"StaleStatus": {
			reason:   "A status of an older generation does not count.",
			observed: map[resource.Name]*resource.Unstructured{KeyStatefulSet: sts(2, 1, 1)},
			why:      "StatefulSet dev-etcd has 1 of 1 members ready",
		},
		"Ready": {
			reason:   "Every member of the current generation ready.",
			observed: map[resource.Name]*resource.Unstructured{KeyStatefulSet: sts(1, 1, 1)},
			ready:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := builder.New("dev", "team-a", observed.New(tc.observed))
			ready, why := cluster(v1alpha1.ManagedEtcd{Replicas: tc.replicas}).Compose(b)
			if ready != tc.ready || why != tc.why {
				t.Errorf("%s\nCompose(): ready %v %q, want %v %q", tc.reason, ready, why, tc.ready, tc.why)
			}
			issuers := map[string]string{}
			for _, o := range b.Set.Objects() {
				if c, ok := o.Resource.(*cmv1.Certificate); ok {
					issuers[c.Name] = c.Spec.IssuerRef.Name
				}
			}
			want := map[string]string{
				"dev-etcd-client-ca": "dev-etcd-selfsigned", "dev-etcd-peer-ca": "dev-etcd-selfsigned",
				"dev-etcd-server": "dev-etcd-client-ca", "dev-etcd-client": "dev-etcd-client-ca",
				"dev-etcd-peer": "dev-etcd-peer-ca",
			}
			if diff := cmp.Diff(want, issuers); diff != "" {
				t.Errorf("%s\nCertificate issuers: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestClient(t *testing.T) {
	got := cluster(v1alpha1.ManagedEtcd{}).Client("/shards/alpha")
	want := v1alpha1.EtcdConfig{
		Endpoints: []string{"https://dev-etcd.team-a.svc.cluster.local:2379"},
		TLSConfig: &v1alpha1.EtcdTLSConfig{},
		Prefix:    "/shards/alpha",
	}
	want.TLSConfig.SecretRef.Name = "dev-etcd-client"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Client(): -want, +got:\n%s", diff)
	}
}

// TestStatefulSetScheduling: the members spread across nodes and zones where the scheduler
// can, and the installation's scheduling replaces what it sets.
func TestStatefulSetScheduling(t *testing.T) {
	labels := map[string]string{"app": "etcd"}
	spread := func(key string) corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}
	}
	zonesOnly := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}}
	tolerations := []corev1.Toleration{{Key: "storage", Operator: corev1.TolerationOpExists}}
	cases := map[string]struct {
		reason     string
		scheduling *v1alpha1.Scheduling
		want       corev1.PodSpec
	}{
		"Default": {
			reason: "Members spread by node, then zone, preferred only: one node still runs three members.",
			want:   corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{spread("kubernetes.io/hostname"), spread("topology.kubernetes.io/zone")}},
		},
		"Set": {
			reason: "Every field set replaces the generated one; the spread by the user's constraints.",
			scheduling: &v1alpha1.Scheduling{
				NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: tolerations, PriorityClassName: "kcp-storage", TopologySpreadConstraints: zonesOnly,
			},
			want: corev1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: tolerations, PriorityClassName: "kcp-storage", TopologySpreadConstraints: zonesOnly},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(v1alpha1.ManagedEtcd{Replicas: 3})
			c.Scheduling = tc.scheduling
			p := c.statefulSet(labels).Spec.Template.Spec
			got := corev1.PodSpec{NodeSelector: p.NodeSelector, Affinity: p.Affinity, Tolerations: p.Tolerations, PriorityClassName: p.PriorityClassName, TopologySpreadConstraints: p.TopologySpreadConstraints}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nstatefulSet() scheduling: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProfilingAndMonitoring(t *testing.T) {
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": monitoring.CRD}}
	crdKey := result.Requirement{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: monitoring.CRD, ClusterScoped: true}.Key()
	cases := map[string]struct {
		reason      string
		profiling   *v1alpha1.Profiling
		monitoring  *v1alpha1.Monitoring
		wantPprof   bool
		wantMonitor bool
	}{
		"Neither": {
			reason: "Without them etcd gets no pprof flag and no PodMonitor.",
		},
		"ProfilingOff": {
			reason:    "enabled: false adds no flag.",
			profiling: &v1alpha1.Profiling{},
		},
		"Profiling": {
			reason:    "etcd serves pprof on its client port, behind its client certificates: only the flag.",
			profiling: &v1alpha1.Profiling{Enabled: true},
			wantPprof: true,
		},
		"Monitoring": {
			reason:      "The installation's monitoring scrapes the members' metrics port over plain HTTP, with no certificate of its own.",
			monitoring:  &v1alpha1.Monitoring{Enabled: true},
			wantMonitor: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(v1alpha1.ManagedEtcd{})
			c.Profiling, c.Monitoring = tc.profiling, tc.monitoring
			st := observed.New(nil).WithObject(crd).Answer(crdKey)
			b := builder.New("dev", "team-a", st)
			c.Compose(b)
			before := len(b.Set.Objects())
			if w := c.ComposeMonitoring(b); w != "" {
				t.Errorf("%s\nComposeMonitoring(): warning %q with prometheus-operator's CRD present", tc.reason, w)
			}
			var monitors []*monitoringv1.PodMonitor
			for _, o := range b.Set.Objects() {
				if pm, ok := o.Resource.(*monitoringv1.PodMonitor); ok {
					monitors = append(monitors, pm)
				}
			}
			if added := len(b.Set.Objects()) - before; added != len(monitors) {
				t.Errorf("%s\nComposeMonitoring() added %d objects besides %d PodMonitors: etcd's metrics need no certificate", tc.reason, added-len(monitors), len(monitors))
			}
			switch {
			case tc.wantMonitor && len(monitors) != 1:
				t.Errorf("%s\nComposeMonitoring(): %d PodMonitors, want 1", tc.reason, len(monitors))
			case tc.wantMonitor:
				ep := monitors[0].Spec.PodMetricsEndpoints[0]
				if monitors[0].Name != "dev-etcd" || *ep.Port != "metrics" || ep.TLSConfig != nil {
					t.Errorf("%s\nPodMonitor %s scrapes port %s with TLS %v, want dev-etcd on metrics without TLS", tc.reason, monitors[0].Name, *ep.Port, ep.TLSConfig)
				}
			case len(monitors) != 0:
				t.Errorf("%s\nComposeMonitoring(): %d PodMonitors, want none", tc.reason, len(monitors))
			}
			args := c.statefulSet(map[string]string{}).Spec.Template.Spec.Containers[0].Args
			if got := slices.Contains(args, "--enable-pprof=true"); got != tc.wantPprof {
				t.Errorf("%s\n--enable-pprof=true in etcd's args: got %t, want %t", tc.reason, got, tc.wantPprof)
			}
		})
	}
}
