package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kubeconfig"
)

func init() { composers["Kubeconfig"] = composeKubeconfig }

// composeKubeconfig decodes, validates and composes a Kubeconfig.
func composeKubeconfig(obj map[string]any, st *observed.State) (composition, error) {
	kc := &v1alpha1.Kubeconfig{}
	if err := decode(obj, kc); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode Kubeconfig")
	}
	if errs := kubeconfig.Validate(kc); len(errs) > 0 {
		return composition{}, invalid("Kubeconfig", kc.GetNamespace(), kc.GetName(), errs.ToAggregate().Errors())
	}
	r, errs := kubeconfig.Compose(kc, st)
	if len(errs) > 0 {
		return composition{}, invalid("Kubeconfig", kc.GetNamespace(), kc.GetName(), errs.ToAggregate().Errors())
	}
	return composition{
		desired:      &r.Desired,
		requirements: r.Requirements,
		status:       &r.Status,
		conditions:   r.Conditions,
		notReady:     r.NotReady,
		warnings:     kubeconfig.Warnings(kc),
	}, nil
}
