package render

import (
	"context"
	"fmt"
	"strings"
)

// MaxIterations bounds convergence: kcp's composition settles in a handful of rounds, so
// more means the function keeps changing its mind.
const MaxIterations = 10

// RenderFunc renders one XR against a world.
type RenderFunc func(ctx context.Context, w World) (*Output, error)

// Converge starts from the fresh render and feeds each render's composed resources back as
// the simulated world until the composed resources stop changing. It returns the last render
// and how many renders against an observed world it took. A Fatal render ends it at once.
func Converge(ctx context.Context, sim Simulator, fresh *Output, render RenderFunc) (*Output, int, error) {
	out := fresh
	if out.Fatal {
		return out, 0, nil
	}
	var changed []string
	for i := 1; i <= MaxIterations; i++ {
		w, err := sim.Observe(out.Composed)
		if err != nil {
			return nil, i, err
		}
		next, err := render(ctx, w)
		if err != nil || next.Fatal {
			return next, i, err
		}
		changed, err = changedResources(out.Composed, next.Composed)
		if err != nil {
			return nil, i, err
		}
		if len(changed) == 0 {
			return next, i, nil
		}
		out = next
	}
	return nil, MaxIterations, fmt.Errorf("composed resources still change after %d renders against the simulated world, "+
		"the last one changed %s: the function never settles", MaxIterations, strings.Join(changed, ", "))
}
