package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// envFleet is how many KcpInstallations the Fleet scenario creates at once: make test runs
// defaultFleet, make fleet N=... any other number.
const (
	envFleet     = "E2E_FLEET"
	defaultFleet = 3
)

func fleetSize() (int, error) {
	v := os.Getenv(envFleet)
	if v == "" {
		return defaultFleet, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 99 {
		return 0, fmt.Errorf("%s=%q: want a number of installations from 1 to 99", envFleet, v)
	}
	return n, nil
}

// fleetNamespace is the namespace of the Fleet scenario's i-th installation, and of its copy
// for cert-manager alone.
func fleetNamespace(i int) string   { return fmt.Sprintf("fleet-%02d", i) }
func fleetCMNamespace(i int) string { return fmt.Sprintf("fleet-cm-%02d", i) }

// testFleet is issue 38's fleet: n KcpInstallations (examples/installation, each in a
// namespace of its own) created at once. It reports the time until all are Ready against the
// time cert-manager alone takes to issue the same certificates (their Issuers and
// Certificates copied into fresh namespaces once the fleet is Ready), the CPU each process
// of the control plane spent from apply to Ready and its memory; then, once no circuit
// breaker can be dropping events, what the fleet and the installations in alsoAtRest (one
// each) cost at rest. With quiet (Crossplane v2.4, which watches what XRs read) it fails
// unless the rest window has fewer RunFunction calls than there are XRs and no object of
// theirs changed. With idle (the control plane measured at rest before any installation
// existed) it also prints the figures above idle.
func testFleet(t *testing.T, e *env, n int, quiet bool, idle *restFigures, alsoAtRest ...string) {
	ctx := t.Context()
	if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "installation", "clusterissuer.yaml"),
		filepath.Join(e.root, "examples", "installation", "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	manifests := make([][]byte, n)
	namespaces := make([]string, n)
	for i := range n {
		namespaces[i] = fleetNamespace(i + 1)
		m, err := fleetInstallation(e, namespaces[i])
		if err != nil {
			t.Fatal(err)
		}
		manifests[i] = m
	}

	useBefore, err := usageOf(e)
	if err != nil {
		t.Fatal(err)
	}
	callsBefore, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := applyAll(ctx, e, manifests); err != nil {
		t.Fatal(err)
	}
	ready, err := waitAllReady(ctx, e, "KcpInstallation", "kcpinstallations.kcp.crossplane.io", namespaces, 2*timeout+time.Duration(n)*20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	allReady := time.Since(start)
	useAfter, err := usageOf(e)
	if err != nil {
		t.Fatal(err)
	}
	callsAfter, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	certs, issued, err := lastIssued(ctx, e, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("fleet: %d KcpInstallations created at once, each Ready after %s, all after %.1fs; their %d certificates all issued after %.1fs; %d RunFunction calls; CPU from apply to Ready %s; memory %s",
		n, durations(ready, start), allReady.Seconds(), certs, issued.Sub(start).Seconds(), callsAfter-callsBefore,
		cpuString(useAfter.cpuSince(useBefore), 1), useAfter.memoryString())

	alone, err := certManagerAlone(ctx, e, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("fleet: cert-manager alone issued the same %d certificates (their Issuers and Certificates copied into %d fresh namespaces at once) in %.1fs: the fleet was Ready in %.2fx that",
		certs, n, alone.Seconds(), allReady.Seconds()/alone.Seconds())

	rest := append(append([]string{}, namespaces...), alsoAtRest...)
	waited, err := waitBreakersClosed(ctx, e, rest...)
	if err != nil {
		t.Fatal(err)
	}
	f, err := measureRest(ctx, e, len(rest), restWindowFromEnv(t), rest...)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("fleet: waited %s for circuit breakers to stop dropping events; whole control plane: %s", waited.Round(time.Second), f)
	if idle != nil {
		e.Step("fleet: above the idle control plane: %s", f.aboveIdle(*idle))
	}
	for i, c := range f.changes {
		if i == 20 {
			e.Step("fleet: ... and %d more changes", len(f.changes)-i)
			break
		}
		e.Step("fleet: changed at rest: %s", c)
	}
	if quiet {
		if f.calls >= f.xrs {
			t.Errorf("%d RunFunction calls in %s at rest for %d XRs: with Crossplane watching what they read, a settled XR is not called again until something changes", f.calls, f.window, f.xrs)
		}
		if f.composedChanges > 0 {
			t.Errorf("%d XRs or composed objects changed at rest (listed above): a converged installation writes nothing", f.composedChanges)
		}
	}
}

// fleetInstallation is examples/installation's KcpInstallation and Namespace, moved to ns and
// given a hostname of its own.
func fleetInstallation(e *env, ns string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(e.root, "examples", "installation", "kcpinstallation.yaml"))
	if err != nil {
		return nil, err
	}
	var o map[string]any
	if err := yaml.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	o["metadata"].(map[string]any)["namespace"] = ns
	spec, _ := o["spec"].(map[string]any)
	external, _ := spec["external"].(map[string]any)
	if external == nil {
		return nil, fmt.Errorf("examples/installation/kcpinstallation.yaml has no spec.external")
	}
	external["hostname"] = "kcp." + ns + ".example.com"
	inst, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`+"\n---\n%s", ns, inst)), nil
}

// applyAll applies the manifests side by side, as many teams would at once.
func applyAll(ctx context.Context, e *env, manifests [][]byte) error {
	var wg sync.WaitGroup
	errs := make([]error, len(manifests))
	for i, m := range manifests {
		wg.Go(func() { errs[i] = e.Apply(ctx, m) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// waitAllReady waits until the XR of the given kind in each namespace (one per namespace) is
// Ready and returns when each first was.
func waitAllReady(ctx context.Context, e *env, kind, resource string, namespaces []string, within time.Duration) (map[string]time.Time, error) {
	ready := map[string]time.Time{}
	want := map[string]bool{}
	for _, ns := range namespaces {
		want[ns] = true
	}
	err := e.Eventually(ctx, within, fmt.Sprintf("%d %s XRs Ready", len(namespaces), kind), func(ctx context.Context) (bool, string, error) {
		var list struct {
			Items []xr `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, resource, "-A"); err != nil {
			return false, "", err
		}
		for _, x := range list.Items {
			if want[x.Metadata.Namespace] && ready[x.Metadata.Namespace].IsZero() && x.conditions()["Ready"].Status == "True" {
				ready[x.Metadata.Namespace] = time.Now()
			}
		}
		var waiting []string
		for _, ns := range namespaces {
			if ready[ns].IsZero() {
				waiting = append(waiting, ns)
			}
		}
		return len(waiting) == 0, "not Ready: " + strings.Join(waiting, ", "), nil
	})
	return ready, err
}

// durations prints how long after start each namespace's time was, in namespace order.
func durations(at map[string]time.Time, start time.Time) string {
	var parts []string
	for _, ns := range keys(at) {
		parts = append(parts, fmt.Sprintf("%.1fs", at[ns].Sub(start).Seconds()))
	}
	return strings.Join(parts, ", ")
}

// lastIssued counts the Certificates in the namespaces and returns when the last of them
// turned Ready.
func lastIssued(ctx context.Context, e *env, namespaces []string) (int, time.Time, error) {
	var last time.Time
	n := 0
	for _, ns := range namespaces {
		var list struct {
			Items []stack.Object `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, "certificates.cert-manager.io", "-n", ns); err != nil {
			return 0, last, err
		}
		for _, c := range list.Items {
			at, err := time.Parse(time.RFC3339, c.Condition("Ready").LastTransitionTime)
			if err != nil {
				return 0, last, fmt.Errorf("certificate %s/%s: Ready at %q: %w", ns, c.Metadata.Name, c.Condition("Ready").LastTransitionTime, err)
			}
			if at.After(last) {
				last = at
			}
			n++
		}
	}
	return n, last, nil
}

// certManagerAlone copies the Issuers and Certificates of the namespaces, as they are, into
// fresh namespaces at once and returns how long cert-manager took to issue every copy: the
// floor under the time to Ready of the installations that composed them. The copies are
// deleted afterwards (without waiting).
func certManagerAlone(ctx context.Context, e *env, namespaces []string) (time.Duration, error) {
	manifests := make([][]byte, len(namespaces))
	copies := make([]string, len(namespaces))
	want := 0
	for i, ns := range namespaces {
		copies[i] = fleetCMNamespace(i + 1)
		docs := []string{fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, copies[i])}
		for _, resource := range []string{"issuers.cert-manager.io", "certificates.cert-manager.io"} {
			var list struct {
				Items []struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
					Metadata   struct {
						Name string `json:"name"`
					} `json:"metadata"`
					Spec map[string]any `json:"spec"`
				} `json:"items"`
			}
			if err := e.GetJSON(ctx, &list, resource, "-n", ns); err != nil {
				return 0, err
			}
			for _, o := range list.Items {
				b, err := json.Marshal(map[string]any{
					"apiVersion": o.APIVersion, "kind": o.Kind,
					"metadata": map[string]any{"name": o.Metadata.Name, "namespace": copies[i]},
					"spec":     o.Spec,
				})
				if err != nil {
					return 0, err
				}
				docs = append(docs, string(b))
				if o.Kind == "Certificate" {
					want++
				}
			}
		}
		manifests[i] = []byte(strings.Join(docs, "\n---\n"))
	}
	start := time.Now()
	if err := applyAll(ctx, e, manifests); err != nil {
		return 0, err
	}
	err := e.Eventually(ctx, 2*timeout, fmt.Sprintf("cert-manager alone: %d certificates issued", want), func(ctx context.Context) (bool, string, error) {
		issued := 0
		for _, ns := range copies {
			certs, err := certificates(ctx, e, ns)
			if err != nil {
				return false, "", err
			}
			for _, c := range certs {
				if c.issued {
					issued++
				}
			}
		}
		return issued >= want, fmt.Sprintf("%d of %d issued", issued, want), nil
	})
	took := time.Since(start)
	if _, derr := e.Kubectl(ctx, nil, append([]string{"delete", "namespace", "--wait=false"}, copies...)...); derr != nil && err == nil {
		err = derr
	}
	return took, err
}

// restWindowFromEnv is restWindow, or E2E_REST_WINDOW when set.
func restWindowFromEnv(t *testing.T) time.Duration {
	v := os.Getenv(envRestWindow)
	if v == "" {
		return restWindow
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Minute {
		t.Fatalf("%s=%q: want a Go duration of at least 1m", envRestWindow, v)
	}
	return d
}
