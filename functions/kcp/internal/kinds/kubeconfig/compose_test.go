package kubeconfig

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Result is what Compose returns for a Kubeconfig.
type Result = result.Result[v1alpha1.KubeconfigStatus]

// must is the result of another kind's Compose, which these tests give valid XRs: any error
// panics, failing the test.
func must[S any](r result.Result[S], errs field.ErrorList) result.Result[S] {
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return r
}
