package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation"
)

func init() { composers["KcpInstallation"] = composeKcpInstallation }

// composeKcpInstallation decodes, validates and composes a KcpInstallation.
func composeKcpInstallation(obj map[string]any, st *observed.State) (composition, error) {
	inst := &v1alpha1.KcpInstallation{}
	if err := decode(obj, inst); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode KcpInstallation")
	}
	r, errs := kcpinstallation.Compose(inst, st)
	if len(errs) > 0 {
		return composition{}, invalid("KcpInstallation", inst.GetNamespace(), inst.GetName(), errs.ToAggregate().Errors())
	}
	return composition{
		desired:    &r.Desired,
		status:     &r.Status,
		conditions: r.Conditions,
		notReady:   r.NotReady,
	}, nil
}
