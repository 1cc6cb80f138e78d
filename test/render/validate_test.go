package render

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/test/gomod"
)

// certManagerCRDs are the cert-manager kinds a composition may compose or reference.
var certManagerCRDs = []string{"certificates", "issuers", "clusterissuers", "certificaterequests"}

// TestValidate checks every rendered resource against its schema, offline: the XRs against
// the XRDs under apis/, cert-manager kinds against the CRDs of the cert-manager version in
// go.mod, provider-kubernetes kinds against its pinned CRDs, core kinds against client-go's
// types.
func TestValidate(t *testing.T) {
	rs := renderExamples(t)
	tools, err := FindTools(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := extensions()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, r := range rs {
		for _, s := range states(r) {
			t.Run(r.Example+"/"+s.name, func(t *testing.T) {
				b, err := Resources(s.outs)
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(t.TempDir(), "resources.yaml")
				if err := os.WriteFile(file, b, 0o600); err != nil {
					t.Fatal(err)
				}
				// An empty --crossplane-image skips downloading Crossplane's own CRDs.
				cmd := exec.Command(tools.Crossplane, "resource", "validate", strings.Join(ext, ","), file,
					"--crossplane-image=", "--cache-dir="+cache, "--error-on-missing-schemas", "--skip-success-results")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("crossplane resource validate: %v\n%s", err, out)
				}
				if !strings.Contains(string(out), " 0 missing schemas") || !strings.Contains(string(out), " 0 failure cases") {
					t.Fatalf("crossplane resource validate did not validate everything:\n%s", out)
				}
			})
		}
	}
}

// extensions lists the XRDs and the CRDs of the kinds they compose. cert-manager and Gateway
// API come from the module cache: they are dependencies of the function, so the schemas match
// the types it composes.
func extensions() ([]string, error) {
	xrds, err := filepath.Glob(filepath.Join(repoRoot, "apis", "*", "definition.yaml"))
	if err != nil {
		return nil, err
	}
	dir, err := gomod.Dir(repoRoot, "github.com/cert-manager/cert-manager")
	if err != nil {
		return nil, err
	}
	ext := xrds
	for _, kind := range certManagerCRDs {
		path := filepath.Join(dir, "deploy", "crds", "cert-manager.io_"+kind+".yaml")
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("cert-manager CRD %s: %w", kind, err)
		}
		ext = append(ext, path)
	}
	// Gateway API's TLSRoute, from the version the function composes it with.
	gw, err := gomod.Dir(repoRoot, "sigs.k8s.io/gateway-api")
	if err != nil {
		return nil, err
	}
	ext = append(ext, filepath.Join(gw, "config", "crd", "standard", "gateway.networking.k8s.io_tlsroutes.yaml"))
	// prometheus-operator's PodMonitor, from the release of the types the function composes,
	po, err := gomod.DirBeside(repoRoot, "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring", "github.com/prometheus-operator/prometheus-operator")
	if err != nil {
		return nil, err
	}
	// and its PrometheusRule, for the starting alerts the docs give.
	for _, kind := range []string{"podmonitors", "prometheusrules"} {
		ext = append(ext, filepath.Join(po, "example", "prometheus-operator-crd", "monitoring.coreos.com_"+kind+".yaml"))
	}
	// provider-kubernetes' namespaced kinds, at the version its pinned tool module requires
	// (the version the e2e runs and crossplane.yaml depends on).
	pk, err := gomod.Dir(filepath.Join(repoRoot, "test", "e2e", "tools", "provider-kubernetes"), "github.com/crossplane-contrib/provider-kubernetes")
	if err != nil {
		return nil, err
	}
	for _, kind := range providerKubernetesCRDs {
		path := filepath.Join(pk, "package", "crds", "kubernetes.m.crossplane.io_"+kind+".yaml")
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("provider-kubernetes CRD %s: %w", kind, err)
		}
		ext = append(ext, path)
	}
	return ext, nil
}

// providerKubernetesCRDs are the provider-kubernetes kinds a composition composes.
var providerKubernetesCRDs = []string{"objects", "providerconfigs"}
