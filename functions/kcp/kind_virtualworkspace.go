package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/virtualworkspace"
)

func init() { composers["VirtualWorkspace"] = composeVirtualWorkspace }

// composeVirtualWorkspace decodes, validates and composes a VirtualWorkspace.
func composeVirtualWorkspace(obj map[string]any, st *observed.State) (composition, error) {
	vw := &v1alpha1.VirtualWorkspace{}
	if err := decode(obj, vw); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode VirtualWorkspace")
	}
	if errs := virtualworkspace.Validate(vw); len(errs) > 0 {
		return composition{}, invalid("VirtualWorkspace", vw.GetNamespace(), vw.GetName(), errs.ToAggregate().Errors())
	}
	r := virtualworkspace.Compose(vw, st)
	return composition{
		desired:      &r.Desired,
		requirements: r.Requirements,
		status:       &r.Status,
		conditions:   r.Conditions,
		notReady:     r.NotReady,
		warnings:     virtualworkspace.Warnings(vw),
	}, nil
}
