package frontproxy

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
)

// composeMonitoring composes the front-proxy's PodMonitor when spec.monitoring asks for it.
// The client certificate, from the RootShard's client CA, is what the front-proxy's merged
// client CA trusts. kcp v0.32.3 serves /metrics to any client its TLS accepts; from kcp's next
// release (f7e2689) the front-proxy also asks root for a SubjectAccessReview on get /metrics,
// which the certificate's group, system:monitoring, passes under kcp's bootstrap policy (checked
// on kcp main; a system:masters-only certificate fails, as the front-proxy drops that group).
// So the same certificate serves both, and nothing here is gated on the version.
func (c *composer) composeMonitoring() string {
	labels := names.Labels(string(c.name), names.ComponentFrontProxy)
	svc := c.name.Deployment()
	t := monitoring.Target{
		Name: svc, Namespace: c.b.Namespace, Labels: labels, Selector: labels,
		ServerName:    names.ServiceFQDN(svc, c.b.Namespace, c.rs.Spec.ClusterDomain),
		ServingSecret: c.name.Cert(c.root, "server"),
		ClientSecret:  c.name.Cert(c.root, names.CertMonitoring),
	}
	secretLabels := map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerFrontProxy: string(c.name)}
	client := monitoring.ClientCertificate(t.ClientSecret, c.b.Namespace, c.root.CA(names.CAClient), labels, secretLabels)
	return c.b.Monitoring(c.fp.Spec.Monitoring, "spec.monitoring", t, &client)
}
