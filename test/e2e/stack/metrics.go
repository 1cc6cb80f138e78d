package stack

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
)

// Scrape returns the Prometheus metric lines at url that contain substr, comments left out.
// It never goes through a proxy: every endpoint is a process of the stack on 127.0.0.1.
func Scrape(ctx context.Context, url, substr string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close() //nolint:errcheck // Read-only.
	var out []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); !strings.HasPrefix(l, "#") && strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// FunctionCalls is the number of RunFunction calls the stack's functions served so far, from
// their own metrics (function-sdk-go counts handled gRPC requests).
func (s *Stack) FunctionCalls(ctx context.Context) (int, error) {
	total := 0
	for _, f := range s.Functions() {
		lines, err := Scrape(ctx, "http://"+f.Metrics+"/metrics", "grpc_server_handled_total")
		if err != nil {
			return 0, err
		}
		for _, l := range lines {
			if !strings.Contains(l, `grpc_method="RunFunction"`) {
				continue
			}
			n, err := lastValue(l)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

// CrossplaneRequests are the requests Crossplane core has made to the API server so far, by
// HTTP method (its client-go rest_client_requests_total; server-side applies are PATCH).
func (s *Stack) CrossplaneRequests(ctx context.Context) (map[string]int, error) {
	lines, err := Scrape(ctx, "http://"+s.CrossplaneMetrics+"/metrics", "rest_client_requests_total")
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
		n, err := lastValue(l)
		if err != nil {
			return nil, err
		}
		out[method] += n
	}
	return out, nil
}

// RequestsSince is what each of CrossplaneRequests' counts grew by from before to after; a
// method first counted in between counts whole.
func RequestsSince(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for m, n := range after {
		if d := n - before[m]; d > 0 {
			out[m] = d
		}
	}
	return out
}

// lastValue is a counter line's value.
func lastValue(line string) (int, error) {
	f := strings.Fields(line)
	n, err := strconv.ParseFloat(f[len(f)-1], 64)
	return int(n), err
}
