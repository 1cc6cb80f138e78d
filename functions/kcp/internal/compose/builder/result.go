package builder

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// Composed is the result of a composer that composed what it could: the desired set, what
// Crossplane reads for the next call, status, and the conditions and readiness Report and
// the builder's other methods decided. Empty warnings are left out.
func Composed[S any](b *Builder, status S, warnings ...string) result.Result[S] {
	return result.Result[S]{
		Desired:      b.Set,
		Requirements: b.Inputs.Requirements(),
		Status:       status,
		Conditions:   b.Conditions(),
		NotReady:     b.NotReady(),
		Warnings:     result.NonEmpty(warnings...),
	}
}

// Waiting is the result of a composer that cannot compose until the XR a reference names
// can be read: everything composed so far is kept (Unreadable), InputsReady says why, and
// the XR is not Ready.
func Waiting[S any](b *Builder, status S, why string) result.Result[S] {
	// First: Unreadable adds what is kept to b.Set, which the result copies.
	missing := b.Unreadable(why)
	return result.Result[S]{
		Desired:      b.Set,
		Requirements: b.Inputs.Requirements(),
		Status:       status,
		Conditions:   []condition.Condition{missing},
		NotReady:     true,
	}
}
