package rootshard

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Result is what Compose returns for a RootShard.
type Result = result.Result[v1alpha1.RootShardStatus]

// composeOK is Compose of a RootShard that passed Validate, which composes without errors: any
// error panics, failing the test.
func composeOK(rs *v1alpha1.RootShard, st *observed.State) Result {
	r, errs := Compose(rs, st)
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return r
}
