package v1alpha1

// Monitoring asks for a prometheus-operator PodMonitor that scrapes a component's /metrics
// over TLS. Prometheus authenticates with a client certificate the XR issues in the group
// system:monitoring, which kcp's built-in RBAC lets read /metrics and the health endpoints
// and nothing else; it verifies the component with the CA of its serving certificate.
type Monitoring struct {
	// Enabled composes the PodMonitor and its client certificate. The PodMonitor is composed
	// only while prometheus-operator's PodMonitor CRD (podmonitors.monitoring.coreos.com)
	// exists; until it does the XR says so in an event and composes everything else.
	// Refused where the platform's policy does not allow it (data.features.monitoring).
	Enabled bool `json:"enabled"`

	// Interval between scrapes, a Prometheus duration such as 30s or 1m. Prometheus'
	// scrape_interval when unset. A tenant's is at least data.limits.monitoringInterval (30s).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`
	Interval string `json:"interval,omitempty"`

	// Labels of the PodMonitor, for the podMonitorSelector of the Prometheus that should
	// scrape it (kube-prometheus-stack selects release: <its release name>).
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// On reports whether monitoring is asked for.
func (m *Monitoring) On() bool { return m != nil && m.Enabled }
