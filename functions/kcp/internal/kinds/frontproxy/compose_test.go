package frontproxy

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Result is what Compose returns for a FrontProxy.
type Result = result.Result[v1alpha1.FrontProxyStatus]

// composeOK is Compose of a FrontProxy that passed Validate, which composes without errors: any
// error panics, failing the test.
func composeOK(fp *v1alpha1.FrontProxy, st *observed.State) Result {
	r, errs := Compose(fp, st)
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return r
}
