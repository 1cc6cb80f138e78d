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
	if err != nil || n < 0 || n > 99 {
		return 0, fmt.Errorf("%s=%q: want a number of installations from 0 to 99", envFleet, v)
	}
	return n, nil
}

// fleetNamespace is the namespace of the Fleet scenario's i-th installation.
func fleetNamespace(i int) string { return fmt.Sprintf("fleet-%02d", i) }

// certManagerNamespace is where certManagerAlone copies namespace ns's certificates.
func certManagerNamespace(ns string) string { return ns + "-cm" }

// testFleet is issue 38's fleet, in the order that keeps each bulk figure free of the
// other's load: n KcpInstallations created at once (createFleet), then teams sharing one
// more installation (testSharedFleet), then a rest window over both and alsoAtRest
// (fleetAtRest).
func testFleet(t *testing.T, e *env, n, teams int, quiet bool, idle *restFigures, alsoAtRest ...atRest) {
	fleet := createFleet(t, e, n)
	shared := testSharedFleet(t, e, teams)
	fleetAtRest(t, e, quiet, idle, append([]atRest{fleet, shared}, alsoAtRest...)...)
}

// fleetAtRest waits until no circuit breaker of the installations can be dropping events,
// then measures what they cost at rest. With quiet (Crossplane v2.4, which watches what XRs
// read) it fails unless the rest window has fewer RunFunction calls than there are XRs and no
// object of theirs changed. With idle (the control plane measured at rest before any
// installation existed) it also prints the figures above idle.
func fleetAtRest(t *testing.T, e *env, quiet bool, idle *restFigures, installations ...atRest) {
	ctx := t.Context()
	var rest []string
	count := 0
	for _, a := range installations {
		rest = append(rest, a.namespaces...)
		count += a.installations
	}
	waited, err := waitBreakersClosed(ctx, e, rest...)
	if err != nil {
		t.Fatal(err)
	}
	f, err := measureRest(ctx, e, count, restWindowFromEnv(t), rest...)
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

// createFleet creates n KcpInstallations (examples/installation, each in a namespace of its
// own) at once and reports the time until all are Ready against the time cert-manager alone
// takes to issue the same certificates (their Issuers and Certificates copied into fresh
// namespaces once the fleet is Ready), and what the control plane spent in both
// (snapshot.since).
func createFleet(t *testing.T, e *env, n int) atRest {
	namespaces := make([]string, n)
	for i := range n {
		namespaces[i] = fleetNamespace(i + 1)
	}
	fleet := atRest{installations: n, namespaces: namespaces}
	if n == 0 {
		return fleet
	}
	ctx := t.Context()
	if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "installation", "clusterissuer.yaml"),
		filepath.Join(e.root, "examples", "installation", "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	manifests := make([][]byte, n)
	for i, ns := range namespaces {
		m, err := fleetInstallation(e, ns)
		if err != nil {
			t.Fatal(err)
		}
		manifests[i] = m
	}

	before, err := snapshotOf(ctx, e)
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
	after, err := snapshotOf(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	certs, issued, err := lastIssued(ctx, e, time.Time{}, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("fleet: %d KcpInstallations created at once, each Ready after %s, all after %.1fs; their %d certificates all issued after %.1fs; from apply to Ready %s",
		n, durations(ready, start), allReady.Seconds(), certs, issued.Sub(start).Seconds(), after.since(before))

	alone, figures, err := certManagerAlone(ctx, e, time.Time{}, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("fleet: cert-manager alone issued the same %d certificates (their Issuers and Certificates copied into %d fresh namespaces at once) in %.1fs: the fleet was Ready in %.2fx that; meanwhile %s",
		certs, n, alone.Seconds(), allReady.Seconds()/alone.Seconds(), figures)
	return fleet
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

// lastIssued counts the Certificates in the namespaces created at or after since (every one
// for a zero since) and returns when the last of them turned Ready.
func lastIssued(ctx context.Context, e *env, since time.Time, namespaces []string) (int, time.Time, error) {
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
			if !createdSince(c, since) {
				continue
			}
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

// createdSince reports whether o was created at or after since, to the second the API server
// records; every object is for a zero since.
func createdSince(o stack.Object, since time.Time) bool {
	if since.IsZero() {
		return true
	}
	at, err := time.Parse(time.RFC3339, o.Metadata.CreationTimestamp)
	return err == nil && !at.Before(since.Truncate(time.Second))
}

// certManagerAlone copies the Certificates of the namespaces created at or after since (every
// one for a zero since), as they are, with every Issuer of their namespaces and the CA Secrets
// of those Issuers that no copied Certificate writes, into fresh namespaces at once, and
// returns how long cert-manager took to issue every copy, and what the control plane spent
// meanwhile (snapshot.since): the floor under the time to Ready of the XRs that composed them. The copies are deleted afterwards (without waiting).
func certManagerAlone(ctx context.Context, e *env, since time.Time, namespaces []string) (time.Duration, string, error) {
	manifests := make([][]byte, len(namespaces))
	copies := make([]string, len(namespaces))
	want := 0
	for i, ns := range namespaces {
		copies[i] = certManagerNamespace(ns)
		docs, certs, err := certManagerCopy(ctx, e, since, ns, copies[i])
		if err != nil {
			return 0, "", err
		}
		manifests[i] = []byte(strings.Join(docs, "\n---\n"))
		want += certs
	}
	before, err := snapshotOf(ctx, e)
	if err != nil {
		return 0, "", err
	}
	start := time.Now()
	if err := applyAll(ctx, e, manifests); err != nil {
		return 0, "", err
	}
	err = e.Eventually(ctx, 2*timeout, fmt.Sprintf("cert-manager alone: %d certificates issued", want), func(ctx context.Context) (bool, string, error) {
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
	after, serr := snapshotOf(ctx, e)
	if serr != nil && err == nil {
		err = serr
	}
	if _, derr := e.Kubectl(ctx, nil, append([]string{"delete", "namespace", "--wait=false"}, copies...)...); derr != nil && err == nil {
		err = derr
	}
	return took, after.since(before), err
}

// certManagerCopy is what certManagerAlone applies for namespace ns, moved to namespace to:
// the namespace itself, ns's Issuers, the CA Secrets they sign with that no copied Certificate
// writes, and ns's Certificates created since; and how many Certificates that is.
func certManagerCopy(ctx context.Context, e *env, since time.Time, ns, to string) ([]string, int, error) {
	type object struct {
		stack.Object
		Spec map[string]any `json:"spec"`
	}
	var issuers, certs struct {
		Items []object `json:"items"`
	}
	if err := e.GetJSON(ctx, &issuers, "issuers.cert-manager.io", "-n", ns); err != nil {
		return nil, 0, err
	}
	if err := e.GetJSON(ctx, &certs, "certificates.cert-manager.io", "-n", ns); err != nil {
		return nil, 0, err
	}
	docs := []string{fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, to)}
	add := func(apiVersion, kind, name string, body map[string]any) error {
		body["apiVersion"], body["kind"] = apiVersion, kind
		body["metadata"] = map[string]any{"name": name, "namespace": to}
		b, err := json.Marshal(body)
		docs = append(docs, string(b))
		return err
	}
	written := map[string]bool{}
	n := 0
	for _, c := range certs.Items {
		if !createdSince(c.Object, since) {
			continue
		}
		if s, _ := c.Spec["secretName"].(string); s != "" {
			written[s] = true
		}
		if err := add(c.APIVersion, c.Kind, c.Metadata.Name, map[string]any{"spec": c.Spec}); err != nil {
			return nil, 0, err
		}
		n++
	}
	for _, is := range issuers.Items {
		if err := add(is.APIVersion, is.Kind, is.Metadata.Name, map[string]any{"spec": is.Spec}); err != nil {
			return nil, 0, err
		}
		ca, _ := is.Spec["ca"].(map[string]any)
		secret, _ := ca["secretName"].(string)
		if secret == "" || written[secret] {
			continue
		}
		data, err := e.SecretData(ctx, ns, secret)
		if err != nil {
			return nil, 0, fmt.Errorf("Issuer %s/%s signs with Secret %s: %w", ns, is.Metadata.Name, secret, err)
		}
		if err := add("v1", "Secret", secret, map[string]any{"type": "kubernetes.io/tls", "data": data}); err != nil {
			return nil, 0, err
		}
		written[secret] = true
	}
	return docs, n, nil
}

// snapshot is what a bulk phase's figures are the difference of: each process's usage, the
// function's RunFunction calls and kube-apiserver's time serving requests so far.
type snapshot struct {
	use    usage
	calls  int
	served map[string]float64
}

func snapshotOf(ctx context.Context, e *env) (snapshot, error) {
	use, err := usageOf(e)
	if err != nil {
		return snapshot{}, err
	}
	calls, err := e.FunctionCalls(ctx)
	if err != nil {
		return snapshot{}, err
	}
	served, err := apiServerSeconds(ctx, e)
	return snapshot{use: use, calls: calls, served: served}, err
}

// since prints what the control plane spent between before and s, and its memory at s.
func (s snapshot) since(before snapshot) string {
	return fmt.Sprintf("%d RunFunction calls; CPU %s; memory %s; kube-apiserver served requests for %s",
		s.calls-before.calls, cpuString(s.use.cpuSince(before.use), 1), s.use.memoryString(), topSeconds(s.served, before.served, 8))
}

// atRest is what else a rest window covers: installations, in their namespaces (a shared
// installation's platform namespace and its teams' count as one).
type atRest struct {
	installations int
	namespaces    []string
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
