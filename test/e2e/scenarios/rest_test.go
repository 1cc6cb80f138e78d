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

	callsBefore, err := functionCalls(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	reqsBefore, err := crossplaneRequests(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(restWindow)
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
