package virtualworkspace

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Result is what Compose returns for a VirtualWorkspace.
type Result = result.Result[v1alpha1.VirtualWorkspaceStatus]

// composeOK is Compose of a VirtualWorkspace that passed Validate, which composes without errors: any
// error panics, failing the test.
func composeOK(vw *v1alpha1.VirtualWorkspace, st *observed.State) Result {
	r, errs := Compose(vw, st)
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return r
}
