package shard

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Result is what Compose returns for a Shard.
type Result = result.Result[v1alpha1.ShardStatus]

// composeOK is Compose of a Shard that passed Validate, which composes without errors: any
// error panics, failing the test.
func composeOK(sh *v1alpha1.Shard, st *observed.State) Result {
	r, errs := Compose(sh, st)
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return r
}
