package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
)

func init() { composers["RootShard"] = composeRootShard }

// composeRootShard decodes, validates and composes a RootShard.
func composeRootShard(obj map[string]any, st *observed.State) (composition, error) {
	rs := &v1alpha1.RootShard{}
	if err := decode(obj, rs); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode RootShard")
	}
	if errs := rootshard.Validate(rs); len(errs) > 0 {
		return composition{}, invalid("RootShard", rs.GetNamespace(), rs.GetName(), errs.ToAggregate().Errors())
	}
	r := rootshard.Compose(rs, st)
	return composition{
		desired:      &r.Desired,
		requirements: r.Requirements,
		status:       &r.Status,
		conditions:   r.Conditions,
		notReady:     r.NotReady,
		warnings:     rootshard.Warnings(rs),
	}, nil
}
