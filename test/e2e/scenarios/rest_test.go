package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// restWindow is how long a rest measurement watches converged installations: two of the
// one-minute TTLs a settled XR answers with when Crossplane does not watch what it read, so
// that TTL shows in the figures. E2E_REST_WINDOW (a Go duration) overrides it.
const (
	restWindow    = 2 * time.Minute
	envRestWindow = "E2E_REST_WINDOW"
)

// restFigures are what converged installations cost over a window in which nothing changes.
type restFigures struct {
	installations, xrs int
	window             time.Duration
	// calls are the function's RunFunction calls.
	calls int
	// requests are Crossplane's API requests, by HTTP method.
	requests map[string]int
	// etcdWrites are the puts and deletes etcd served, every client's: kube-controller-manager's
	// and the kwok nodes' leases are in them.
	etcdWrites int
	// changes are the objects that changed in the installations' namespaces; composedChanges
	// counts those that were XRs or objects Crossplane composed.
	changes         []string
	composedChanges int
	cpu             map[string]time.Duration
}

// measureRest watches the namespaces' converged installations for window and returns what
// they cost. The caller waits first for what would keep them busy on purpose (see
// waitBreakersClosed).
func measureRest(ctx context.Context, e *env, installations int, window time.Duration, namespaces ...string) (restFigures, error) {
	f := restFigures{installations: installations, window: window}
	xrs, err := xrsIn(ctx, e, namespaces...)
	if err != nil {
		return f, err
	}
	f.xrs = len(xrs)
	watch, err := watchChanges(ctx, e, namespaces...)
	if err != nil {
		return f, err
	}
	callsBefore, err := e.FunctionCalls(ctx)
	if err != nil {
		return f, err
	}
	reqsBefore, err := e.CrossplaneRequests(ctx)
	if err != nil {
		return f, err
	}
	writesBefore, err := etcdWrites(ctx, e)
	if err != nil {
		return f, err
	}
	useBefore, err := usageOf(e)
	if err != nil {
		return f, err
	}
	select {
	case <-ctx.Done():
		return f, ctx.Err()
	case <-time.After(window):
	}
	useAfter, err := usageOf(e)
	if err != nil {
		return f, err
	}
	f.cpu = useAfter.cpuSince(useBefore)
	callsAfter, err := e.FunctionCalls(ctx)
	if err != nil {
		return f, err
	}
	f.calls = callsAfter - callsBefore
	reqsAfter, err := e.CrossplaneRequests(ctx)
	if err != nil {
		return f, err
	}
	f.requests = stack.RequestsSince(reqsBefore, reqsAfter)
	writesAfter, err := etcdWrites(ctx, e)
	if err != nil {
		return f, err
	}
	f.etcdWrites = writesAfter - writesBefore
	f.changes, f.composedChanges = watch.stop()
	return f, nil
}

// aboveIdle is f less what the control plane did without any installation over a window of
// the same length (idle, measured before the installations existed): what the installations
// themselves cost.
func (f restFigures) aboveIdle(idle restFigures) restFigures {
	scale := f.window.Seconds() / idle.window.Seconds()
	out := f
	out.calls -= int(float64(idle.calls) * scale)
	out.etcdWrites -= int(float64(idle.etcdWrites) * scale)
	out.requests = map[string]int{}
	for m, n := range f.requests {
		out.requests[m] = max(0, n-int(float64(idle.requests[m])*scale))
	}
	out.cpu = map[string]time.Duration{}
	for p, d := range f.cpu {
		out.cpu[p] = max(0, d-time.Duration(float64(idle.cpu[p])*scale))
	}
	return out
}

// String prints the figures per installation and minute, as issue 38's table has them.
func (f restFigures) String() string {
	per := float64(f.installations) * f.window.Minutes()
	total := 0
	var byMethod []string
	for _, m := range keys(f.requests) {
		total += f.requests[m]
		byMethod = append(byMethod, fmt.Sprintf("%s %.1f", m, float64(f.requests[m])/per))
	}
	return fmt.Sprintf("%d installations (%d XRs) at rest for %s; per installation per minute: %.2f RunFunction calls, %.1f API requests by Crossplane (%s), CPU %s; %d changes of XRs or composed objects, %d in all in their namespaces; etcd writes per minute, whole cluster (node leases included): %.1f",
		f.installations, f.xrs, f.window, float64(f.calls)/per, float64(total)/per, strings.Join(byMethod, ", "),
		cpuString(f.cpu, per), f.composedChanges, len(f.changes), float64(f.etcdWrites)/f.window.Minutes())
}

// etcdWrites are the keys etcd has put and deleted since it started (etcd_mvcc_put_total and
// etcd_mvcc_delete_total).
func etcdWrites(ctx context.Context, e *env) (int, error) {
	lines, err := stack.Scrape(ctx, e.Cluster.EtcdURL+"/metrics", "etcd_mvcc_")
	if err != nil {
		return 0, err
	}
	total := 0
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 || (f[0] != "etcd_mvcc_put_total" && f[0] != "etcd_mvcc_delete_total") {
			continue
		}
		n, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return 0, err
		}
		total += int(n)
	}
	return total, nil
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
	xrs, err := xrsIn(ctx, e, namespaces...)
	if err != nil {
		return 0, err
	}
	var until time.Time
	for _, x := range xrs {
		c := x.conditions()["Responsive"]
		if c.Status != "False" {
			continue
		}
		at, err := time.Parse(time.RFC3339, c.LastTransitionTime)
		if err != nil {
			return 0, fmt.Errorf("%s %s/%s: Responsive lastTransitionTime %q: %w", x.Kind, x.Metadata.Namespace, x.Metadata.Name, c.LastTransitionTime, err)
		}
		if end := at.Add(breakerWindow); end.After(until) {
			until = end
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

// xrsIn lists every XR of every kind in the namespaces.
func xrsIn(ctx context.Context, e *env, namespaces ...string) ([]xr, error) {
	resources := make([]string, len(xrResources))
	for i, r := range xrResources {
		resources[i] = r + ".kcp.crossplane.io"
	}
	var out []xr
	for _, ns := range namespaces {
		var list struct {
			Items []xr `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, strings.Join(resources, ","), "-n", ns); err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// waitCrossplaneWritesStop waits, for at most five minutes, until Crossplane sends no write
// (PUT, PATCH, POST, DELETE) for 20 seconds.
func waitCrossplaneWritesStop(ctx context.Context, e *env) error {
	writes := func() (int, error) {
		r, err := e.CrossplaneRequests(ctx)
		return r["PUT"] + r["PATCH"] + r["POST"] + r["DELETE"], err
	}
	last, err := writes()
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Second):
		}
		n, err := writes()
		if err != nil {
			return err
		}
		if n == last {
			return nil
		}
		last = n
	}
	return nil // Measured anyway: the idle figures then say what Crossplane kept writing.
}
