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
// budget is the figure measured with Go 1.27.3 on 2026-11-29 (in the comment; the most of
// three runs, which differ by at most 5) plus about 2%, about 3% for the KcpInstallation
// inputs. Go 1.27 itself moved them from Go 1.26.8's: the largest installation 71,693 to
// 78,723, the others by -20% to +0% (docs/performance.md).
var allocBudgets = map[string]float64{
	"RootShard/Converged":                       4605,  // 4,514
	"RootShard/AllFeatures/Converged":           5930,  // 5,809
	"Shard/Converged":                           2460,  // 2,411
	"Shard/Placed/Converged":                    4370,  // 4,280
	"Shard/SecretRef/Converged":                 2555,  // 2,501
	"CacheServer/Converged":                     1020,  // 1,000
	"VirtualWorkspace/Converged":                1200,  // 1,172
	"FrontProxy/Converged":                      1510,  // 1,476
	"FrontProxy/SecretRef/Converged":            1615,  // 1,581
	"Kubeconfig/Converged":                      675,   // 658
	"Kubeconfig/Shared/Converged":               750,   // 732
	"Tenant/Converged":                          950,   // 927
	"PublishedAPI/Converged":                    2660,  // 2,603
	"KcpInstallation/Converged":                 2215,  // 2,150
	"KcpInstallation/10Shards/Converged":        5335,  // 5,175
	"KcpInstallation/100Shards/Converged":       33040, // 32,075
	"KcpInstallation/LargestAdmitted/Converged": 81085, // 78,723
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
