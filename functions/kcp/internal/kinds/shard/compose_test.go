package shard

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
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
	// The tests look at the Certificates and Issuers themselves, not at the CertificateSets
	// that compose them (TestCertificateSets does).
	r.Desired = testworld.Flatten(r.Desired, st)
	return r
}
