package kcpserver

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/monitoring"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// Monitoring is the server's scrape target and the client certificate its PodMonitor scrapes
// with, issued by the root shard's client CA, which every shard trusts.
func (s Server) Monitoring(secretLabels map[string]string) (monitoring.Target, pki.Leaf) {
	name := s.DeploymentName()
	t := monitoring.Target{
		Name: name, Namespace: s.Namespace, Labels: s.Labels(), Selector: s.Labels(),
		ServerName:    names.ServiceFQDN(name, s.Namespace, s.Spec.ClusterDomain),
		ServingSecret: s.Cert("server"),
		ClientSecret:  s.Cert(names.CertMonitoring),
	}
	return t, monitoring.ClientCertificate(t.ClientSecret, s.Namespace, s.Root.CA(names.CAClient), s.Labels(), secretLabels)
}
