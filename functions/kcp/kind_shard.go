package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/shard"
)

func init() { composers["Shard"] = composeShard }

// composeShard decodes, validates and composes a Shard.
func composeShard(obj map[string]any, st *observed.State) (composition, error) {
	sh := &v1alpha1.Shard{}
	if err := decode(obj, sh); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode Shard")
	}
	if errs := shard.Validate(sh); len(errs) > 0 {
		return composition{}, invalid("Shard", sh.GetNamespace(), sh.GetName(), errs.ToAggregate().Errors())
	}
	r := shard.Compose(sh, st)
	return composition{
		desired:      &r.Desired,
		requirements: r.Requirements,
		status:       &r.Status,
		conditions:   r.Conditions,
		notReady:     r.NotReady,
	}, nil
}
