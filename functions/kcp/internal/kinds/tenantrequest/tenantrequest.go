// Package tenantrequest composes a TenantRequest: nothing. A TenantRequest only carries a
// team's XR to its Tenant (sharing.Request); it is Ready as soon as it exists.
package tenantrequest

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Compose composes nothing for a TenantRequest.
func Compose(_ *v1alpha1.TenantRequest, _ *observed.State) (result.Result[v1alpha1.TenantRequestStatus], field.ErrorList) {
	return result.Result[v1alpha1.TenantRequestStatus]{}, nil
}
