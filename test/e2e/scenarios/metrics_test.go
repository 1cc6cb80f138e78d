package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// reportFunctionCalls prints the run's totals: the function's RunFunction calls, what
// Crossplane counted on its side, and its circuit breaker's counts.
func reportFunctionCalls(ctx context.Context, t *testing.T, e *env) {
	n, err := e.FunctionCalls(ctx)
	if err != nil {
		t.Logf("function metrics: %v", err)
	}
	e.Step("function-kcp served %d RunFunction calls in this run", n)
	lines, err := stack.Scrape(ctx, "http://"+e.CrossplaneMetrics+"/metrics", "function_run_function_request_total")
	if err != nil {
		t.Logf("crossplane metrics: %v", err)
	}
	for _, l := range lines {
		e.Step("crossplane: %s", l)
	}
	// Crossplane's per-XR circuit breaker: how often it opened, and how many watch events
	// it let through or dropped, per XR kind.
	lines, err = stack.Scrape(ctx, "http://"+e.CrossplaneMetrics+"/metrics", "circuit_breaker_")
	if err != nil {
		t.Logf("crossplane metrics: %v", err)
	}
	for _, l := range lines {
		if strings.Contains(l, "kcp.crossplane.io") {
			e.Step("crossplane: %s", l)
		}
	}
}

// cpuUse is the CPU time, in seconds, that Crossplane and the function servers have spent
// since they started: their process_cpu_seconds_total (both expose Prometheus' process
// collector), read between two moments to give what a scenario cost.
type cpuUse struct{ crossplane, functions float64 }

func processCPU(ctx context.Context, e *env) (cpuUse, error) {
	var u cpuUse
	var err error
	if u.crossplane, err = processCPUSeconds(ctx, "http://"+e.CrossplaneMetrics+"/metrics"); err != nil {
		return u, fmt.Errorf("crossplane: %w", err)
	}
	for _, f := range e.Functions() {
		s, err := processCPUSeconds(ctx, "http://"+f.Metrics+"/metrics")
		if err != nil {
			return u, fmt.Errorf("function %s: %w", f.Revision, err)
		}
		u.functions += s
	}
	return u, nil
}

func (u cpuUse) minus(before cpuUse) cpuUse {
	return cpuUse{crossplane: u.crossplane - before.crossplane, functions: u.functions - before.functions}
}

func (u cpuUse) String() string {
	return fmt.Sprintf("%.2fs (Crossplane %.2fs, function %.2fs)", u.crossplane+u.functions, u.crossplane, u.functions)
}

func processCPUSeconds(ctx context.Context, url string) (float64, error) {
	lines, err := stack.Scrape(ctx, url, "process_cpu_seconds_total")
	if err != nil {
		return 0, err
	}
	for _, l := range lines {
		fields := strings.Fields(l)
		if len(fields) == 2 && fields[0] == "process_cpu_seconds_total" {
			return strconv.ParseFloat(fields[1], 64)
		}
	}
	return 0, fmt.Errorf("%s has no process_cpu_seconds_total", url)
}

// apiServerSeconds is the time kube-apiserver spent serving requests so far, every client's,
// by "VERB resource[/subresource]" (apiserver_request_duration_seconds_sum; watches left
// out, they last as long as they are open): where its CPU goes, on a control plane whose
// cores it shares.
func apiServerSeconds(ctx context.Context, e *env) (map[string]float64, error) {
	out, err := e.Kubectl(ctx, nil, "get", "--raw", "/metrics")
	if err != nil {
		return nil, err
	}
	sums := map[string]float64{}
	for l := range strings.Lines(string(out)) {
		labels, ok := strings.CutPrefix(l, "apiserver_request_duration_seconds_sum{")
		if !ok {
			continue
		}
		label := func(name string) string {
			_, v, _ := strings.Cut(labels, name+`="`)
			v, _, _ = strings.Cut(v, `"`)
			return v
		}
		verb := label("verb")
		if verb == "WATCH" || verb == "CONNECT" {
			continue
		}
		key := verb + " " + label("resource")
		if sub := label("subresource"); sub != "" {
			key += "/" + sub
		}
		fields := strings.Fields(l)
		n, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return nil, err
		}
		sums[key] += n
	}
	return sums, nil
}

// topSeconds prints the n largest differences of after over before, largest first, and
// their total.
func topSeconds(after, before map[string]float64, n int) string {
	type entry struct {
		key string
		d   float64
	}
	var entries []entry
	total := 0.0
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			entries = append(entries, entry{k, d})
			total += d
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].d > entries[j].d })
	parts := make([]string, 0, n)
	for i, x := range entries {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.1fs", x.key, x.d))
	}
	return fmt.Sprintf("%.1fs in all; %s", total, strings.Join(parts, ", "))
}
