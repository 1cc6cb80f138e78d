package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/claimedkcpinstallation"
)

func init() { composers["ClaimedKcpInstallation"] = composeClaimedKcpInstallation }

// composeClaimedKcpInstallation composes the KcpInstallation behind a KcpInstallationClaim.
func composeClaimedKcpInstallation(obj map[string]any, st *observed.State) (composition, error) {
	xr := &v1alpha1.ClaimedKcpInstallation{}
	if err := decode(obj, xr); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode ClaimedKcpInstallation")
	}
	c, ok := claimedkcpinstallation.ClaimOf(obj, xr.GetLabels())
	if !ok {
		return composition{}, invalid("ClaimedKcpInstallation", "", xr.GetName(), claimedkcpinstallation.ErrNoClaim(xr.GetName()).ToAggregate().Errors())
	}
	r, err := claimedkcpinstallation.Compose(xr, c, st)
	if err != nil {
		return composition{}, err
	}
	return composition{desired: &r.Desired, status: &r.Status, notReady: r.NotReady}, nil
}
