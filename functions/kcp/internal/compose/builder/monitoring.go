package builder

import (
	"fmt"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// podMonitorCRD is read to learn whether prometheus-operator is installed: applying a
// PodMonitor without its CRD would fail the XR's whole reconcile.
var podMonitorCRD = result.Requirement{
	APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: monitoring.CRD, ClusterScoped: true,
}

// Monitoring composes a component's PodMonitor and the client certificate it scrapes with
// (none when client is nil: a target scraped without one),
// when m asks for them and prometheus-operator's PodMonitor CRD exists. It returns a warning
// for the XR while the CRD is missing. Once the PodMonitor exists the CRD is not read again:
// it is a large object, and the PodMonitor proves it is there.
func (b *Builder) Monitoring(m *v1alpha1.Monitoring, field string, t monitoring.Target, client *pki.Leaf) (warning string) {
	if !m.On() {
		return ""
	}
	key := b.Key("podmonitor", t.Name)
	if !b.St.Exists(key) {
		b.Inputs.Require(podMonitorCRD)
		if !b.St.Object(podMonitorCRD.Kind, podMonitorCRD.Name).Found {
			if !b.St.Answered(podMonitorCRD.Key()) {
				return "" // not read yet: Crossplane calls again with it
			}
			return fmt.Sprintf("%s.enabled: no PodMonitor for %s is composed because prometheus-operator's CustomResourceDefinition %s does not exist; install prometheus-operator, or set %s.enabled to false", field, t.Name, monitoring.CRD, field)
		}
	}
	if client != nil {
		b.Certificate(client.Certificate(), nil)
	}
	b.Set.Add(key, t.PodMonitor(m), Readiness(b.St.Exists(key)))
	return ""
}
