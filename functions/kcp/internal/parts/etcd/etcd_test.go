package etcd

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

func cluster(spec v1alpha1.ManagedEtcd) Cluster {
	return Cluster{Names: names.Etcd{Installation: "dev"}, Namespace: "team-a", Spec: spec}
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
			s := c.StatefulSet()
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
				t.Errorf("%s\nStatefulSet(): -want, +got:\n%s", tc.reason, diff)
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
	labels := cluster(v1alpha1.ManagedEtcd{}).Labels()
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
			p := c.StatefulSet().Spec.Template.Spec
			got := corev1.PodSpec{NodeSelector: p.NodeSelector, Affinity: p.Affinity, Tolerations: p.Tolerations, PriorityClassName: p.PriorityClassName, TopologySpreadConstraints: p.TopologySpreadConstraints}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nStatefulSet() scheduling: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProfiling(t *testing.T) {
	cases := map[string]struct {
		reason    string
		profiling *v1alpha1.Profiling
		want      bool
	}{
		"Unset":        {reason: "Without profiling etcd gets no pprof flag."},
		"ProfilingOff": {reason: "enabled: false adds no flag.", profiling: &v1alpha1.Profiling{}},
		"Profiling":    {reason: "etcd serves pprof on its client port, behind its client certificates: only the flag.", profiling: &v1alpha1.Profiling{Enabled: true}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(v1alpha1.ManagedEtcd{})
			c.Profiling = tc.profiling
			args := c.StatefulSet().Spec.Template.Spec.Containers[0].Args
			if got := slices.Contains(args, "--enable-pprof=true"); got != tc.want {
				t.Errorf("%s\n--enable-pprof=true in etcd's args: got %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
