package main

import (
	"github.com/crossplane/function-sdk-go/errors"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/cacheserver"
)

func init() { composers["CacheServer"] = composeCacheServer }

// composeCacheServer decodes, validates and composes a CacheServer.
func composeCacheServer(obj map[string]any, st *observed.State) (composition, error) {
	cs := &v1alpha1.CacheServer{}
	if err := decode(obj, cs); err != nil {
		return composition{}, errors.Wrap(err, "cannot decode CacheServer")
	}
	if errs := cacheserver.Validate(cs); len(errs) > 0 {
		return composition{}, invalid("CacheServer", cs.GetNamespace(), cs.GetName(), errs.ToAggregate().Errors())
	}
	r := cacheserver.Compose(cs, st)
	return composition{
		desired:      &r.Desired,
		requirements: r.Requirements,
		status:       &r.Status,
		conditions:   r.Conditions,
		notReady:     r.NotReady,
		warnings:     cacheserver.Warnings(cs),
	}, nil
}
