// Package monitoring renders what lets a prometheus-operator Prometheus scrape a kcp
// component: a PodMonitor that selects the component's pods and scrapes /metrics over TLS, and
// the client certificate it scrapes with. kcp-operator composes neither.
//
// The certificate's group is system:monitoring. kcp serves Kubernetes' bootstrap RBAC, whose
// system:monitoring ClusterRole, bound to that group, allows GET on /metrics, /metrics/slis and
// the health endpoints and nothing else (checked against kcp v0.32.3: such a certificate reads
// /metrics and is refused every resource). Prometheus never holds an admin credential.
package monitoring

import (
	"maps"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

const (
	// Group is the certificate's organization: the group kcp's RBAC lets read metrics.
	Group = "system:monitoring"
	// CRD is prometheus-operator's PodMonitor CustomResourceDefinition. Without it a
	// PodMonitor cannot be applied.
	CRD = "podmonitors.monitoring.coreos.com"
	// Path kcp serves its metrics at, on its HTTPS port.
	Path = "/metrics"
	// port is the name of the container port every kcp component serves HTTPS on.
	port = "https"
)

// Target is one component to scrape.
type Target struct {
	// Name of the PodMonitor: the component's Deployment's.
	Name      string
	Namespace string
	// Labels of the PodMonitor and the client certificate; the user's monitoring labels are
	// added to the PodMonitor's.
	Labels map[string]string
	// Selector is the Deployment's pod selector.
	Selector map[string]string
	// ServerName is a DNS name of the component's serving certificate: Prometheus scrapes pod
	// IPs, which the certificate does not name.
	ServerName string
	// ServingSecret holds the serving certificate; its ca.crt, the issuing CA's certificate,
	// verifies the component. Prometheus reads only that key.
	ServingSecret string
	// ClientSecret is the client certificate's Secret (see ClientCertificate).
	ClientSecret string
	// PlainHTTPPort, when set, is the container port serving metrics over plain HTTP, and
	// only metrics (managed etcd's): scraped without TLS, ServerName and the Secrets unused.
	PlainHTTPPort string
}

// PodMonitor scrapes every pod of the target over HTTPS with the client certificate.
func (t Target) PodMonitor(m *v1alpha1.Monitoring) *monitoringv1.PodMonitor {
	labels := maps.Clone(m.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, t.Labels) // ours win: they say who composed it
	scheme := monitoringv1.SchemeHTTPS
	secretKey := func(secret, key string) *corev1.SecretKeySelector {
		return &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}
	}
	ep := monitoringv1.PodMetricsEndpoint{
		Port:     ptr.To(port),
		Path:     Path,
		Scheme:   &scheme,
		Interval: monitoringv1.Duration(m.Interval),
	}
	if t.PlainHTTPPort != "" {
		ep.Port, ep.Scheme = ptr.To(t.PlainHTTPPort), ptr.To(monitoringv1.SchemeHTTP)
	} else {
		ep.TLSConfig = &monitoringv1.SafeTLSConfig{
			CA:         monitoringv1.SecretOrConfigMap{Secret: secretKey(t.ServingSecret, "ca.crt")},
			Cert:       monitoringv1.SecretOrConfigMap{Secret: secretKey(t.ClientSecret, "tls.crt")},
			KeySecret:  secretKey(t.ClientSecret, "tls.key"),
			ServerName: ptr.To(t.ServerName),
		}
	}
	return &monitoringv1.PodMonitor{
		TypeMeta:   metav1.TypeMeta{APIVersion: monitoringv1.SchemeGroupVersion.String(), Kind: monitoringv1.PodMonitorsKind},
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, Namespace: t.Namespace, Labels: labels},
		Spec: monitoringv1.PodMonitorSpec{
			Selector:            metav1.LabelSelector{MatchLabels: maps.Clone(t.Selector)},
			PodMetricsEndpoints: []monitoringv1.PodMetricsEndpoint{ep},
		},
	}
}

// ClientCertificate is the certificate Prometheus scrapes with, issued by issuer (a client
// CA the component trusts) to the common name name in the group system:monitoring.
func ClientCertificate(name, namespace, issuer string, labels, secretLabels map[string]string) pki.Leaf {
	return pki.Leaf{
		Name: name, Namespace: namespace, CommonName: name, Organizations: []string{Group},
		Usages: pki.UsagesClient, Issuer: issuer, Labels: labels, SecretLabels: secretLabels,
	}
}
