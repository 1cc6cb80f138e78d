package check

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// ResponseLimit is the largest response the function composes. Crossplane receives a
// function's response with gRPC's default limit of 4 MiB and fails the whole reconcile above
// it; half of that leaves room for what the estimate below leaves out (protobuf framing, the
// XR's status, objects carried forward as observed). The largest response of the examples is
// about 64 KiB (docs/performance.md).
const ResponseLimit = 2 << 20

// maxCopies bounds Copies for the shortcut in Budget: no kind copies a field into more
// composed objects than an installation with the most shards and front-proxies has children.
const maxCopies = 128

// Copies says into how many composed objects the spec field with this top-level JSON name is
// copied.
type Copies func(field string) int

// PerKindCopies is how often a per-kind XR (RootShard, Shard, ...) copies a field of its
// spec at most: its image pull secrets go to two Deployments (a RootShard's kcp and proxy),
// a certificate template to its one Certificate. Four leaves a margin.
const PerKindCopies = 4

// Everywhere copies every field n times.
func Everywhere(n int) Copies { return func(string) int { return n } }

// Budget refuses a spec whose content, copied into the objects composed from it, would make
// a response over ResponseLimit. It runs before anything is composed: the function is shared
// by every XR of the cluster, and composing a huge response costs seconds of CPU and hundreds
// of MiB on every reconcile. The error names the field that made the response large, down to
// the list or string that holds most of it, so the user knows what to shrink.
func Budget(spec v1alpha1.Spec, copies Copies) field.ErrorList {
	raw, err := json.Marshal(spec)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	return budget(raw, copies)
}

// budget is Budget of a spec encoded as JSON.
func budget(raw []byte, copies Copies) field.ErrorList {
	// A spec small enough that even copied maxCopies times it fits needs no walk.
	if len(raw)*maxCopies <= ResponseLimit {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	total, worst, worstCost := 0, "", 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		cost := size(m[k]) * max(copies(k), 1)
		total += cost
		if cost > worstCost {
			worst, worstCost = k, cost
		}
	}
	if total <= ResponseLimit {
		return nil
	}
	path, bytes := largest(field.NewPath("spec", worst), m[worst])
	n := max(copies(worst), 1)
	return field.ErrorList{field.Forbidden(path, fmt.Sprintf(
		"%s of it, copied into %d composed objects, would make a response of about %s; the function composes at most %s (Crossplane receives at most 4 MiB): make it smaller",
		human(bytes), n, human(total), human(ResponseLimit)))}
}

// largest descends from v at p into the member that holds most of it, as long as one holds at
// least half, and returns its path and JSON size: the list or string to shrink.
func largest(p *field.Path, v any) (*field.Path, int) {
	total := size(v)
	for {
		var next any
		var nextPath *field.Path
		best := 0
		switch t := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				if s := size(t[k]); s > best {
					best, next, nextPath = s, t[k], p.Child(k)
				}
			}
		case []any:
			// A list is what to shorten, unless one item holds most of it.
			for i, e := range t {
				if s := size(e); s > best {
					best, next, nextPath = s, e, p.Index(i)
				}
			}
		}
		if next == nil || 2*best < total {
			return p, total
		}
		p, v, total = nextPath, next, best
	}
}

// size is the length of v in JSON.
func size(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// human writes a byte count in KiB or MiB.
func human(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
}
