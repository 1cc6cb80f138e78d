package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// restWindow is how long testQuietAtRest watches a converged installation: two of the TTLs a
// settled XR had when Crossplane did not watch what it read, so that TTL would show.
const restWindow = 2 * time.Minute

// testQuietAtRest is issue 38's first target on Crossplane v2.4, which watches what an XR
// reads: once Basic's installation has converged (after Renewal), nothing changes, so nothing
// reconciles it. Over restWindow the function serves fewer RunFunction calls than there are
// XRs (a settled XR's TTL is an hour: each would otherwise be called twice), and the step
// prints Crossplane's API requests by verb in the window.
func testQuietAtRest(t *testing.T, e *env) {
	ctx := t.Context()
	xrs := 0
	for _, kind := range []string{"rootshards", "frontproxies", "kubeconfigs", "certificatesets"} {
		var list struct {
			Items []xr `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, kind+".kcp.crossplane.io", "-n", basicNamespace); err != nil {
			t.Fatal(err)
		}
		for _, x := range list.Items {
			if _, err := waitXR(ctx, e, x.Kind, basicNamespace, x.Metadata.Name, "Ready", "True"); err != nil {
				t.Fatal(err)
			}
		}
		xrs += len(list.Items)
	}
	// A renewal's last writes (the Deployment's rollout, the kubeconfig Secret) settle first.
	time.Sleep(30 * time.Second)
	waited, err := waitBreakersClosed(ctx, e, basicNamespace)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("rest: waited %s for Crossplane's circuit breakers to stop dropping events", waited.Round(time.Second))

	callsBefore, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	reqsBefore, err := crossplaneRequests(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := watchChanges(ctx, e, basicNamespace)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(restWindow)
	seen, byKind := changes.stop()
	e.Step("rest: %d changes in %s: %v", len(seen), restWindow, byKind)
	for i, c := range seen {
		if i < 300 {
			e.Step("rest change: %s", c)
		}
	}
	callsAfter, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	reqsAfter, err := crossplaneRequests(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	calls := callsAfter - callsBefore
	var verbs []string
	for _, v := range keys(reqsAfter) {
		if n := reqsAfter[v] - reqsBefore[v]; n > 0 {
			verbs = append(verbs, fmt.Sprintf("%s %d", v, n))
		}
	}
	e.Step("rest: %d XRs converged; in %s, %d RunFunction calls and Crossplane's API requests %s (%.1f RunFunction calls per XR per minute)",
		xrs, restWindow, calls, strings.Join(verbs, ", "), float64(calls)/float64(xrs)/restWindow.Minutes())
	if calls >= xrs {
		t.Errorf("%d RunFunction calls in %s at rest for %d XRs: with Crossplane watching what they read, a settled XR is not called again until something changes", calls, restWindow, xrs)
	}
}

// crossplaneRequests are Crossplane's API requests so far, by HTTP method, from its client's
// metrics (rest_client_requests_total).
func crossplaneRequests(ctx context.Context, e *env) (map[string]int, error) {
	lines, err := scrape(ctx, "http://"+e.CrossplaneMetrics+"/metrics", "rest_client_requests_total")
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, l := range lines {
		_, rest, ok := strings.Cut(l, `method="`)
		if !ok {
			continue
		}
		method, _, _ := strings.Cut(rest, `"`)
		fields := strings.Fields(l)
		n, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return nil, err
		}
		out[method] += int(n)
	}
	return out, nil
}

// xrResources are the plural resource names of the XR kinds.
var xrResources = []string{"rootshards", "shards", "cacheservers", "frontproxies", "virtualworkspaces", "kubeconfigs", "certificatesets", "kcpinstallations", "workspaces", "tenants"}

// breakerWindow is how long after an XR's Responsive condition turned False Crossplane's
// circuit breaker may still drop its watch events with the default cooldown (functions/kcp
// breaker.go), plus a settling TTL for the reconcile that follows.
const breakerWindow = 5*time.Minute + 30*time.Second + 5*time.Second

// waitBreakersClosed waits until no XR in the namespaces can have its watch events dropped:
// until breakerWindow after the latest Responsive=False transition. Before that the function
// keeps such an XR on a short TTL on purpose.
func waitBreakersClosed(ctx context.Context, e *env, namespaces ...string) (time.Duration, error) {
	var until time.Time
	for _, ns := range namespaces {
		var list struct {
			Items []xr `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, strings.Join(prefixAll(xrResources, ".kcp.crossplane.io"), ","), "-n", ns); err != nil {
			return 0, err
		}
		for _, x := range list.Items {
			c := x.conditions()["Responsive"]
			if c.Status != "False" {
				continue
			}
			at, err := time.Parse(time.RFC3339, c.LastTransitionTime)
			if err != nil {
				return 0, fmt.Errorf("%s %s/%s: Responsive lastTransitionTime %q: %w", x.Kind, ns, x.Metadata.Name, c.LastTransitionTime, err)
			}
			if end := at.Add(breakerWindow); end.After(until) {
				until = end
			}
		}
	}
	d := time.Until(until)
	if d <= 0 {
		return 0, nil
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(d):
	}
	return d, nil
}

func prefixAll(in []string, suffix string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = s + suffix
	}
	return out
}
