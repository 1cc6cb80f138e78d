package cacheserver

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Result is what Compose returns for a CacheServer.
type Result = result.Result[v1alpha1.CacheServerStatus]

// composeOK is Compose of a CacheServer that passed Validate, which composes without errors: any
// error panics, failing the test.
func composeOK(cs *v1alpha1.CacheServer, st *observed.State) Result {
	r, errs := Compose(cs, st)
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return r
}
