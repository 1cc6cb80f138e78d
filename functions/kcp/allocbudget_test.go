package main

import (
	"context"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
)

// allocBudgets are the heap allocations one RunFunction call may make for each converged
// input of BenchmarkRunFunction (benchCases), as testing.AllocsPerRun counts them. Nothing
// else holds allocations in `make test`, and they slid once unnoticed: 7,520 to 11,902 for
// the converged RootShard between 2026-11-27 and 2026-11-29 (docs/performance.md). Each
// budget is the figure measured on 2026-11-29 (in the comment; the most of five runs, which
// differ by at most 5) plus about 2%, about 3% for the KcpInstallation inputs, whose
// composer is being restructured.
var allocBudgets = map[string]float64{
	"RootShard/Converged":                       4610,  // 4,519
	"RootShard/AllFeatures/Converged":           6280,  // 6,156
	"Shard/Converged":                           2520,  // 2,466
	"Shard/Placed/Converged":                    4435,  // 4,346
	"Shard/SecretRef/Converged":                 2565,  // 2,512
	"CacheServer/Converged":                     1035,  // 1,012
	"VirtualWorkspace/Converged":                1265,  // 1,236
	"FrontProxy/Converged":                      1565,  // 1,531
	"FrontProxy/SecretRef/Converged":            1625,  // 1,592
	"Kubeconfig/Converged":                      760,   // 745
	"Kubeconfig/Shared/Converged":               930,   // 911
	"Tenant/Converged":                          1045,  // 1,020
	"PublishedAPI/Converged":                    2765,  // 2,706
	"KcpInstallation/Converged":                 2200,  // 2,135
	"KcpInstallation/10Shards/Converged":        5275,  // 5,118
	"KcpInstallation/100Shards/Converged":       32540, // 31,589
	"KcpInstallation/LargestAdmitted/Converged": 73715, // 71,565
}

// allocRuns is how many calls AllocsPerRun averages: allocations, unlike times, do not
// need many.
const allocRuns = 3

// TestAllocationBudgets holds RunFunction's allocations for every converged input of the
// benchmark to allocBudgets: a regression fails `make test`, not only a `make bench` someone
// reads.
func TestAllocationBudgets(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's own allocations are counted too")
	}
	measured := map[string]bool{}
	for _, c := range benchCases(t) {
		if !c.converged() {
			continue
		}
		measured[c.name] = true
		budget, ok := allocBudgets[c.name]
		if !ok {
			t.Errorf("converged input %s of benchCases has no allocation budget: measure it (make bench) and add it to allocBudgets", c.name)
			continue
		}
		f := newFunction(logging.NewNopLogger(), breaker{})
		// As the benchmark does: the first call warms the encoders' caches.
		if _, err := f.RunFunction(context.Background(), c.req); err != nil {
			t.Fatal(err)
		}
		got := testing.AllocsPerRun(allocRuns, func() {
			if _, err := f.RunFunction(context.Background(), c.req); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %.0f allocs/op, budget %.0f", c.name, got, budget)
		if got > budget {
			t.Errorf("RunFunction on %s allocates %.0f times per call, over its budget of %.0f (allocBudgets in allocbudget_test.go). "+
				"Find what allocates more with `make bench` and `go test -run '^$' -bench 'RunFunction/%s$' -memprofile mem.out ./functions/kcp/`, "+
				"then `go tool pprof -sample_index=alloc_objects -top mem.out`; or, if the allocations are worth it, raise the budget in the same "+
				"change as docs/performance.md, saying why", c.name, got, budget, c.name)
		}
	}
	for name := range allocBudgets {
		if !measured[name] {
			t.Errorf("allocBudgets names %s, which is not a converged input of benchCases: remove it", name)
		}
	}
}
