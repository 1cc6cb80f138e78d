package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/frontproxy"
)

func init() { composers["FrontProxy"] = composeFrontProxy }

// composeFrontProxy decodes, validates and composes a FrontProxy.
func composeFrontProxy(obj map[string]any, st *observed.State) (composition, error) {
	fp := &v1alpha1.FrontProxy{}
	if err := decode(obj, fp); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode FrontProxy")
	}
	if errs := frontproxy.Validate(fp); len(errs) > 0 {
		return composition{}, invalid("FrontProxy", fp.GetNamespace(), fp.GetName(), errs.ToAggregate().Errors())
	}
	r := frontproxy.Compose(fp, st)
	return composition{
		desired:      &r.Desired,
		requirements: r.Requirements,
		status:       &r.Status,
		conditions:   r.Conditions,
		notReady:     r.NotReady,
		warnings:     frontproxy.Warnings(fp),
	}, nil
}
