package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretMarkers are what a private key or a kubeconfig's credentials look like in text.
var secretMarkers = []string{"PRIVATE KEY-----", "client-key-data", "client-certificate-data"}

// checkNoSecretsLeaked runs after every scenario: no private key and no kubeconfig
// credentials appear in any process's log (the function's, Crossplane's, cert-manager's, the
// API server's), in any Event, or in any configuration-kcp XR's status (conditions included).
// The PKI files the harness writes are not logs and are not read.
func checkNoSecretsLeaked(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(e.Dir, "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs in %s: %v", e.Dir, err)
	}
	// Cluster B's, when MultiCluster started it.
	logsB, _ := filepath.Glob(filepath.Join(e.Dir, "cluster-b", "*.log"))
	logs = append(logs, logsB...)
	scanned := 0
	for _, f := range logs {
		if filepath.Base(f) == "kubectl.log" {
			// The tests' own commands and their output, Secrets read as tests read them.
			continue
		}
		scanned++
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range secretMarkers {
			if strings.Contains(string(b), m) {
				t.Errorf("%s contains %q: a private key or kubeconfig credentials were logged", filepath.Base(f), m)
			}
		}
	}
	kinds := "events,rootshards.kcp.crossplane.io,shards.kcp.crossplane.io,frontproxies.kcp.crossplane.io,cacheservers.kcp.crossplane.io," +
		"virtualworkspaces.kcp.crossplane.io,kubeconfigs.kcp.crossplane.io,kcpinstallations.kcp.crossplane.io,workspaces.kcp.crossplane.io"
	out, err := e.Kubectl(ctx, nil, "get", kinds, "-A", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range secretMarkers {
		if strings.Contains(string(out), m) {
			t.Errorf("an Event or an XR's status contains %q: a private key or kubeconfig credentials were published", m)
		}
	}
	e.Step("no private key or kubeconfig credentials in %d logs, the Events and the XRs' status", scanned)
}
