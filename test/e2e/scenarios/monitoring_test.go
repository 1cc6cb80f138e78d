package scenarios

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// installPodMonitorCRD installs prometheus-operator's PodMonitor CRD, as the platform
// installs it, for the examples whose golden render has PodMonitors (their testdata stands
// for it). No prometheus-operator or Prometheus runs here, so nothing scrapes: the tests
// check what Prometheus would read.
func installPodMonitorCRD(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	pm := filepath.Join(os.Getenv(stack.EnvPrometheusOperatorCRDs), "monitoring.coreos.com_podmonitors.yaml")
	if _, err := e.ApplyFiles(ctx, pm); err != nil {
		t.Fatalf("prometheus-operator's PodMonitor CRD (%s): %v", stack.EnvPrometheusOperatorCRDs, err)
	}
	if err := e.WaitCondition(ctx, time.Minute, "Established", "crd", "podmonitors.monitoring.coreos.com"); err != nil {
		t.Fatal(err)
	}
}

// checkPodMonitors checks the PodMonitors of a KcpInstallation with spec.monitoring as
// Prometheus would use them: each selects exactly its Deployment's pods, carries the user's
// labels, and names Secrets that exist and fit together, so that a scrape would succeed: the
// CA verifies the serving certificate for the server name, and the client certificate is in
// the group system:monitoring and issued by the CA the component trusts (kcp v0.32.3 answers
// such a certificate's GET /metrics and refuses it every resource: see parts/monitoring).
// A managed etcd cluster's PodMonitor (want names no Secret: "") selects its StatefulSet's
// pods and scrapes the members' metrics port over plain HTTP, which etcd serves without a
// certificate. No prometheus-operator or Prometheus runs here.
func checkPodMonitors(ctx context.Context, t *testing.T, e *env, ns string, want map[string]string, labels map[string]string) {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				Endpoints []struct {
					Port, Path, Scheme, Interval string
					TLSConfig                    struct {
						CA, Cert struct {
							Secret struct{ Name, Key string } `json:"secret"`
						}
						KeySecret  struct{ Name, Key string } `json:"keySecret"`
						ServerName string                     `json:"serverName"`
					} `json:"tlsConfig"`
				} `json:"podMetricsEndpoints"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "podmonitors.monitoring.coreos.com", "-n", ns); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pm := range list.Items {
		got = append(got, pm.Metadata.Name)
	}
	slices.Sort(got)
	if names := slices.Sorted(maps.Keys(want)); !slices.Equal(got, names) {
		t.Fatalf("PodMonitors %v, want %v (the root shard, every shard, every front-proxy)", got, names)
	}
	secrets := map[string]map[string][]byte{}
	secret := func(name string) map[string][]byte {
		if d, ok := secrets[name]; ok {
			return d
		}
		d, err := e.SecretData(ctx, ns, name)
		if err != nil {
			t.Fatalf("Secret %s: %v", name, err)
		}
		secrets[name] = d
		return d
	}
	for _, pm := range list.Items {
		name := pm.Metadata.Name
		for k, v := range labels {
			if pm.Metadata.Labels[k] != v {
				t.Errorf("PodMonitor %s: label %s=%q, want %q (spec.monitoring.labels, what the Prometheus selects)", name, k, pm.Metadata.Labels[k], v)
			}
		}
		if len(pm.Spec.Endpoints) != 1 {
			t.Fatalf("PodMonitor %s: %d endpoints, want 1", name, len(pm.Spec.Endpoints))
		}
		if want[name] == "" {
			ep := pm.Spec.Endpoints[0]
			checkEtcdPodMonitor(ctx, t, e, ns, name, pm.Spec.Selector.MatchLabels, ep.Port, ep.Scheme, ep.TLSConfig.CA.Secret.Name)
			continue
		}
		var dep struct {
			Spec struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
			} `json:"spec"`
		}
		if err := e.GetJSON(ctx, &dep, "deployment.apps", "-n", ns, name); err != nil {
			t.Fatalf("PodMonitor %s scrapes Deployment %s: %v", name, name, err)
		}
		if !maps.Equal(pm.Spec.Selector.MatchLabels, dep.Spec.Selector.MatchLabels) {
			t.Errorf("PodMonitor %s selects %v, want its Deployment's pods %v", name, pm.Spec.Selector.MatchLabels, dep.Spec.Selector.MatchLabels)
		}
		ep := pm.Spec.Endpoints[0]
		if ep.Port != "https" || ep.Path != "/metrics" || ep.Scheme != "HTTPS" || ep.Interval != "30s" {
			t.Errorf("PodMonitor %s scrapes %s://:%s%s every %q, want HTTPS://:https/metrics every 30s", name, ep.Scheme, ep.Port, ep.Path, ep.Interval)
		}
		tc := ep.TLSConfig
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(secret(tc.CA.Secret.Name)[tc.CA.Secret.Key]) {
			t.Fatalf("PodMonitor %s: no CA certificate in Secret %s key %s", name, tc.CA.Secret.Name, tc.CA.Secret.Key)
		}
		// The component serves its tls.crt whole: the leaf and the chain to the root CA
		// cert-manager writes into ca.crt.
		chain := parseCerts(t, secret(want[name])["tls.crt"])
		intermediates := x509.NewCertPool()
		for _, c := range chain[1:] {
			intermediates.AddCert(c)
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: intermediates, DNSName: tc.ServerName, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if _, err := chain[0].Verify(opts); err != nil {
			t.Errorf("PodMonitor %s: the serving certificate of %s does not verify with its tlsConfig (CA %s, serverName %s): %v", name, want[name], tc.CA.Secret.Name, tc.ServerName, err)
		}
		client := parseCerts(t, secret(tc.Cert.Secret.Name)[tc.Cert.Secret.Key])[0]
		if tc.KeySecret.Name != tc.Cert.Secret.Name || len(secret(tc.KeySecret.Name)[tc.KeySecret.Key]) == 0 {
			t.Errorf("PodMonitor %s: key %s/%s, want the client certificate's own key", name, tc.KeySecret.Name, tc.KeySecret.Key)
		}
		if !slices.Equal(client.Subject.Organization, []string{"system:monitoring"}) {
			t.Errorf("PodMonitor %s: client certificate groups %v, want [system:monitoring] and nothing more", name, client.Subject.Organization)
		}
		if client.NotAfter.Before(time.Now()) {
			t.Errorf("PodMonitor %s: client certificate expired %s", name, client.NotAfter)
		}
	}
}

// checkEtcdPodMonitor checks the PodMonitor of the managed etcd cluster name: it selects the
// StatefulSet's pods and scrapes, over plain HTTP, the port its container serves metrics on.
func checkEtcdPodMonitor(ctx context.Context, t *testing.T, e *env, ns, name string, selector map[string]string, port, scheme, tlsCA string) {
	t.Helper()
	var sts struct {
		Spec struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			Template struct {
				Spec struct {
					Containers []struct {
						Ports []struct{ Name string } `json:"ports"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := e.GetJSON(ctx, &sts, "statefulset.apps", "-n", ns, name); err != nil {
		t.Fatalf("PodMonitor %s scrapes neither a Deployment nor the StatefulSet %s: %v", name, name, err)
	}
	if !maps.Equal(selector, sts.Spec.Selector.MatchLabels) {
		t.Errorf("PodMonitor %s selects %v, want its StatefulSet's pods %v", name, selector, sts.Spec.Selector.MatchLabels)
	}
	served := slices.ContainsFunc(sts.Spec.Template.Spec.Containers[0].Ports, func(p struct{ Name string }) bool { return p.Name == port })
	if port != "metrics" || !served || scheme != "HTTP" || tlsCA != "" {
		t.Errorf("PodMonitor %s: port %s (served by etcd: %t), scheme %s, TLS CA %q; want etcd's metrics port, over plain HTTP", name, port, served, scheme, tlsCA)
	}
}

// parseCerts parses the PEM certificates of b, at least one.
func parseCerts(t *testing.T, b []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatalf("no PEM certificate in %q", fmt.Sprintf("%.40s", b))
	}
	return out
}
