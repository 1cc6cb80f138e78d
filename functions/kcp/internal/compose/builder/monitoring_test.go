package builder

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
)

func TestMonitoring(t *testing.T) {
	target := monitoring.Target{Name: "root-kcp", Namespace: "ns", ServingSecret: "root-server", ClientSecret: "root-monitoring"}
	client := monitoring.ClientCertificate("root-monitoring", "ns", "root-client-ca", nil, nil)
	on := &v1alpha1.Monitoring{Enabled: true}
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": monitoring.CRD}}
	podMonitor := map[resource.Name]map[string]any{"podmonitor-kcp": {"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": map[string]any{"name": "root-kcp"}}}

	type want struct {
		composed     map[resource.Name]resource.Ready
		requirements []result.Requirement
		warning      string
	}
	cases := map[string]struct {
		reason string
		m      *v1alpha1.Monitoring
		st     *observed.State
		want   want
	}{
		"Off": {
			reason: "Without spec.monitoring nothing is composed and prometheus-operator's CRD is not read.",
			st:     observedState(nil),
			want:   want{composed: map[resource.Name]resource.Ready{}},
		},
		"Disabled": {
			reason: "enabled: false is off.",
			m:      &v1alpha1.Monitoring{Interval: "30s"},
			st:     observedState(nil),
			want:   want{composed: map[resource.Name]resource.Ready{}},
		},
		"CRDNotReadYet": {
			reason: "Before Crossplane answered, an absent CRD means not read yet: no warning, nothing composed.",
			m:      on,
			st:     observedState(nil),
			want:   want{composed: map[resource.Name]resource.Ready{}, requirements: []result.Requirement{podMonitorCRD}},
		},
		"NoPrometheusOperator": {
			reason: "Without the PodMonitor CRD a PodMonitor could not be applied and would fail the whole reconcile: the XR warns, naming the field, and composes the rest.",
			m:      on,
			st:     observedState(nil).Answer(podMonitorCRD.Key()),
			want: want{
				composed:     map[resource.Name]resource.Ready{},
				requirements: []result.Requirement{podMonitorCRD},
				warning:      "spec.monitoring.enabled: no PodMonitor for root-kcp is composed because prometheus-operator's CustomResourceDefinition podmonitors.monitoring.coreos.com does not exist; install prometheus-operator, or set spec.monitoring.enabled to false",
			},
		},
		"Composed": {
			reason: "With the CRD the PodMonitor and its client certificate are composed, the PodMonitor ready once it exists.",
			m:      on,
			st:     observedState(nil, crd).Answer(podMonitorCRD.Key()),
			want: want{
				composed:     map[resource.Name]resource.Ready{"podmonitor-kcp": resource.ReadyFalse, "certificate-monitoring": resource.ReadyFalse},
				requirements: []result.Requirement{podMonitorCRD},
			},
		},
		"Exists": {
			reason: "Once the PodMonitor exists the CRD, a large object, is no longer read: the PodMonitor proves it is there.",
			m:      on,
			st:     observedState(podMonitor),
			want: want{
				composed: map[resource.Name]resource.Ready{"podmonitor-kcp": resource.ReadyTrue, "certificate-monitoring": resource.ReadyFalse},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("root", "ns", tc.st)
			w := b.Monitoring(tc.m, "spec.monitoring", target, &client)
			got := want{composed: map[resource.Name]resource.Ready{}, requirements: b.Inputs.Requirements(), warning: w}
			for _, o := range b.Set.Objects() {
				got.composed[o.Name] = o.Ready
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nMonitoring(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
