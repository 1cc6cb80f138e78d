package monitoring

import (
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestPodMonitor(t *testing.T) {
	ours := map[string]string{"app.kubernetes.io/instance": "root", "app.kubernetes.io/component": "rootshard"}
	target := Target{
		Name: "root-kcp", Namespace: "kcp", Labels: ours, Selector: ours,
		ServerName: "root-kcp.kcp.svc.cluster.local", ServingSecret: "root-server", ClientSecret: "root-monitoring",
	}
	key := func(secret, k string) *corev1.SecretKeySelector {
		return &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: k}
	}
	https := monitoringv1.SchemeHTTPS
	want := func(labels map[string]string, interval string) *monitoringv1.PodMonitor {
		ep := monitoringv1.PodMetricsEndpoint{Port: ptr.To("https"), Path: "/metrics", Scheme: &https, Interval: monitoringv1.Duration(interval)}
		ep.TLSConfig = &monitoringv1.SafeTLSConfig{
			CA:         monitoringv1.SecretOrConfigMap{Secret: key("root-server", "ca.crt")},
			Cert:       monitoringv1.SecretOrConfigMap{Secret: key("root-monitoring", "tls.crt")},
			KeySecret:  key("root-monitoring", "tls.key"),
			ServerName: ptr.To("root-kcp.kcp.svc.cluster.local"),
		}
		return &monitoringv1.PodMonitor{
			TypeMeta:   metav1.TypeMeta{APIVersion: "monitoring.coreos.com/v1", Kind: "PodMonitor"},
			ObjectMeta: metav1.ObjectMeta{Name: "root-kcp", Namespace: "kcp", Labels: labels},
			Spec: monitoringv1.PodMonitorSpec{
				Selector:            metav1.LabelSelector{MatchLabels: ours},
				PodMetricsEndpoints: []monitoringv1.PodMetricsEndpoint{ep},
			},
		}
	}
	cases := map[string]struct {
		reason string
		m      *v1alpha1.Monitoring
		want   *monitoringv1.PodMonitor
	}{
		"Defaults": {
			reason: "HTTPS on the https port, verified by the serving certificate's CA under the Service's name (pod IPs are in no certificate), with the client certificate; Prometheus' interval.",
			m:      &v1alpha1.Monitoring{Enabled: true},
			want:   want(ours, ""),
		},
		"LabelsAndInterval": {
			reason: "The user's labels select the PodMonitor into a Prometheus; they cannot replace the labels that say which component it scrapes.",
			m: &v1alpha1.Monitoring{Enabled: true, Interval: "15s", Labels: map[string]string{
				"release": "prometheus", "app.kubernetes.io/instance": "other",
			}},
			want: want(map[string]string{"release": "prometheus", "app.kubernetes.io/instance": "root", "app.kubernetes.io/component": "rootshard"}, "15s"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, target.PodMonitor(tc.m)); diff != "" {
				t.Errorf("%s\nPodMonitor(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlainHTTPPodMonitor: a target that serves only metrics over plain HTTP (managed etcd) is
// scraped there, without TLS and without a certificate.
func TestPlainHTTPPodMonitor(t *testing.T) {
	etcd := map[string]string{"app.kubernetes.io/instance": "dev", "app.kubernetes.io/component": "etcd"}
	target := Target{Name: "dev-etcd", Namespace: "team-a", Labels: etcd, Selector: etcd, PlainHTTPPort: "metrics"}
	http := monitoringv1.SchemeHTTP
	want := &monitoringv1.PodMonitor{
		TypeMeta:   metav1.TypeMeta{APIVersion: "monitoring.coreos.com/v1", Kind: "PodMonitor"},
		ObjectMeta: metav1.ObjectMeta{Name: "dev-etcd", Namespace: "team-a", Labels: etcd},
		Spec: monitoringv1.PodMonitorSpec{
			Selector: metav1.LabelSelector{MatchLabels: etcd},
			PodMetricsEndpoints: []monitoringv1.PodMetricsEndpoint{{
				Port: ptr.To("metrics"), Path: "/metrics", Scheme: &http, Interval: "30s",
			}},
		},
	}
	if diff := cmp.Diff(want, target.PodMonitor(&v1alpha1.Monitoring{Enabled: true, Interval: "30s"})); diff != "" {
		t.Errorf("PodMonitor(...) of a plain HTTP target: -want, +got:\n%s", diff)
	}
}

func TestClientCertificate(t *testing.T) {
	got := ClientCertificate("root-monitoring", "kcp", "root-client-ca", nil, nil).Certificate()
	if diff := cmp.Diff([]string{"system:monitoring"}, got.Spec.Subject.Organizations); diff != "" {
		t.Errorf("the certificate's group is what kcp's RBAC lets read /metrics, and nothing else: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]cmv1.KeyUsage{cmv1.UsageClientAuth}, got.Spec.Usages); diff != "" {
		t.Errorf("a client certificate only: -want, +got:\n%s", diff)
	}
	if got.Spec.IssuerRef.Name != "root-client-ca" || got.Spec.SecretName != "root-monitoring" || got.Spec.CommonName != "root-monitoring" {
		t.Errorf("issuer %q, secret %q, common name %q: want root-client-ca, root-monitoring, root-monitoring", got.Spec.IssuerRef.Name, got.Spec.SecretName, got.Spec.CommonName)
	}
}
