package kcpinstallation

import (
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
)

func etcdCluster(spec v1alpha1.ManagedEtcd) etcd.Cluster {
	return etcd.Cluster{Names: names.Etcd{Installation: "dev"}, Namespace: "team-a", Spec: spec}
}

// TestComposeEtcd checks what a managed etcd cluster composes, the PKI's issuers and names, and when it is
// ready.
func TestComposeEtcd(t *testing.T) {
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
			observed: map[resource.Name]*resource.Unstructured{keyEtcd: sts(1, 1, 2)},
			why:      "StatefulSet dev-etcd has 2 of 3 members ready",
		},
		"StaleStatus": {
			reason:   "A status of an older generation does not count.",
			observed: map[resource.Name]*resource.Unstructured{keyEtcd: sts(2, 1, 1)},
			why:      "StatefulSet dev-etcd has 1 of 1 members ready",
		},
		"Ready": {
			reason:   "Every member of the current generation ready.",
			observed: map[resource.Name]*resource.Unstructured{keyEtcd: sts(1, 1, 1)},
			ready:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := builder.New("dev", "team-a", observed.New(tc.observed))
			ready, why := composeEtcd(b, etcdCluster(v1alpha1.ManagedEtcd{Replicas: tc.replicas}))
			if ready != tc.ready || why != tc.why {
				t.Errorf("%s\ncomposeEtcd(): ready %v %q, want %v %q", tc.reason, ready, why, tc.ready, tc.why)
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

// TestComposeEtcdBackup: the CronJob waits for the certificates when new, is rebuilt when it
// exists, and is composed only with backup set.
func TestComposeEtcdBackup(t *testing.T) {
	issued := func() *resource.Unstructured {
		u := resource.NewUnstructured()
		u.SetAPIVersion("cert-manager.io/v1")
		u.SetKind("Certificate")
		u.Object["status"] = map[string]any{"revision": int64(1), "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		return u
	}
	allIssued := func() map[resource.Name]*resource.Unstructured {
		out := map[resource.Name]*resource.Unstructured{}
		for _, n := range []resource.Name{"certificate-etcd-client-ca", "certificate-etcd-peer-ca", "certificate-etcd-server", "certificate-etcd-peer", "certificate-etcd-client"} {
			out[n] = issued()
		}
		return out
	}
	existing := func() map[resource.Name]*resource.Unstructured {
		u := resource.NewUnstructured()
		u.SetAPIVersion("batch/v1")
		u.SetKind("CronJob")
		return map[resource.Name]*resource.Unstructured{"cronjob-etcd-backup": u}
	}
	cases := map[string]struct {
		reason   string
		backup   *v1alpha1.ManagedEtcdBackup
		observed map[resource.Name]*resource.Unstructured
		want     bool
	}{
		"NoBackup": {
			reason:   "Without spec.backup nothing is composed.",
			observed: allIssued(),
		},
		"CertificatesNotIssued": {
			reason: "A new CronJob waits for the client certificate it mounts.",
			backup: etcdBackup("b"),
		},
		"Issued": {
			reason:   "Composed once every certificate is issued.",
			backup:   etcdBackup("b"),
			observed: allIssued(),
			want:     true,
		},
		"ExistingWhileReissuing": {
			reason:   "An existing CronJob is never dropped while certificates are pending.",
			backup:   etcdBackup("b"),
			observed: existing(),
			want:     true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := builder.New("dev", "team-a", observed.New(tc.observed))
			composeEtcd(b, etcdCluster(v1alpha1.ManagedEtcd{Backup: tc.backup}))
			if got := b.Set.Has("cronjob-etcd-backup"); got != tc.want {
				t.Errorf("%s\ncomposeEtcd(): CronJob composed %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

func TestComposeEtcdMonitoring(t *testing.T) {
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": monitoring.CRD}}
	crdKey := result.Requirement{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: monitoring.CRD, ClusterScoped: true}.Key()
	cases := map[string]struct {
		reason     string
		monitoring *v1alpha1.Monitoring
		want       bool
	}{
		"Off": {reason: "Without monitoring no PodMonitor."},
		"Monitoring": {
			reason:     "The installation's monitoring scrapes the members' metrics port over plain HTTP, with no certificate of its own.",
			monitoring: &v1alpha1.Monitoring{Enabled: true},
			want:       true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := etcdCluster(v1alpha1.ManagedEtcd{})
			st := observed.New(nil).WithObject(crd).Answer(crdKey)
			b := builder.New("dev", "team-a", st)
			composeEtcd(b, c)
			before := len(b.Set.Objects())
			if w := composeEtcdMonitoring(b, c, tc.monitoring); w != "" {
				t.Errorf("%s\ncomposeEtcdMonitoring(): warning %q with prometheus-operator's CRD present", tc.reason, w)
			}
			var monitors []*monitoringv1.PodMonitor
			for _, o := range b.Set.Objects() {
				if pm, ok := o.Resource.(*monitoringv1.PodMonitor); ok {
					monitors = append(monitors, pm)
				}
			}
			if added := len(b.Set.Objects()) - before; added != len(monitors) {
				t.Errorf("%s\ncomposeEtcdMonitoring() added %d objects besides %d PodMonitors: etcd's metrics need no certificate", tc.reason, added-len(monitors), len(monitors))
			}
			switch {
			case tc.want && len(monitors) != 1:
				t.Errorf("%s\ncomposeEtcdMonitoring(): %d PodMonitors, want 1", tc.reason, len(monitors))
			case tc.want:
				ep := monitors[0].Spec.PodMetricsEndpoints[0]
				if monitors[0].Name != "dev-etcd" || *ep.Port != "metrics" || ep.TLSConfig != nil {
					t.Errorf("%s\nPodMonitor %s scrapes port %s with TLS %v, want dev-etcd on metrics without TLS", tc.reason, monitors[0].Name, *ep.Port, ep.TLSConfig)
				}
			case len(monitors) != 0:
				t.Errorf("%s\ncomposeEtcdMonitoring(): %d PodMonitors, want none", tc.reason, len(monitors))
			}
		})
	}
}

// TestEtcdBackupStatus reads the last schedule and success from the observed CronJob.
func TestEtcdBackupStatus(t *testing.T) {
	cronJob := func(status map[string]any) map[resource.Name]*resource.Unstructured {
		u := resource.NewUnstructured()
		u.SetAPIVersion("batch/v1")
		u.SetKind("CronJob")
		u.Object["status"] = status
		return map[resource.Name]*resource.Unstructured{"cronjob-etcd-backup": u}
	}
	at := func(s string) *metav1.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		mt := metav1.NewTime(tm)
		return &mt
	}
	cases := map[string]struct {
		reason   string
		backup   *v1alpha1.ManagedEtcdBackup
		observed map[resource.Name]*resource.Unstructured
		want     *v1alpha1.InstallationBackup
	}{
		"NoBackup": {
			reason: "No backup, no status.",
		},
		"NotCreated": {
			reason: "The cluster and its CronJob, no times yet.",
			backup: etcdBackup("b"),
			want:   &v1alpha1.InstallationBackup{Cluster: "dev-etcd", CronJob: "dev-etcd-backup"},
		},
		"Ran": {
			reason:   "Both times as the CronJob reports them.",
			backup:   etcdBackup("b"),
			observed: cronJob(map[string]any{"lastScheduleTime": "2026-05-01T06:00:00Z", "lastSuccessfulTime": "2026-05-01T06:00:41Z"}),
			want: &v1alpha1.InstallationBackup{
				Cluster: "dev-etcd", CronJob: "dev-etcd-backup",
				LastScheduleTime: at("2026-05-01T06:00:00Z"), LastSuccessfulTime: at("2026-05-01T06:00:41Z"),
			},
		},
		"NeverSucceeded": {
			reason:   "A run that failed: scheduled, no success.",
			backup:   etcdBackup("b"),
			observed: cronJob(map[string]any{"lastScheduleTime": "2026-05-01T06:00:00Z", "lastSuccessfulTime": "garbage"}),
			want:     &v1alpha1.InstallationBackup{Cluster: "dev-etcd", CronJob: "dev-etcd-backup", LastScheduleTime: at("2026-05-01T06:00:00Z")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := builder.New("dev", "team-a", observed.New(tc.observed))
			got := etcdBackupStatus(b, etcdCluster(v1alpha1.ManagedEtcd{Backup: tc.backup}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\netcdBackupStatus(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
