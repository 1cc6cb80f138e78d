package render

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// MaxIterations bounds convergence: kcp's composition settles in a handful of rounds, so
// more means the function keeps changing its mind.
const MaxIterations = 10

// RenderFunc renders one XR against a world.
type RenderFunc func(ctx context.Context, w World) (*Output, error)

// Converge starts from the fresh renders of an example's XRs (fresh[i] rendered by
// renders[i], against worlds[i]) and feeds them back as one simulated world shared by all
// XRs, iterating until nothing any render depends on changes. It returns the last render of
// each XR and how many iterations it took; an iteration renders every XR whose world changed
// (the others would render the same, the function being deterministic).
//
// What an XR puts into the world is its last render that was not Fatal: on a Fatal result
// Crossplane applies and deletes nothing. An XR that was Fatal from the start puts in itself
// as written and nothing composed.
func Converge(ctx context.Context, sim Simulator, fresh []*Output, worlds []World, renders []RenderFunc) ([]*Output, int, error) {
	outs := fresh
	contrib := fresh
	allFatal := true
	for _, o := range fresh {
		allFatal = allFatal && o.Fatal
	}
	if allFatal {
		// The world would be the fresh one again: nothing composed, the XRs as written.
		return outs, 0, nil
	}
	var changed []string
	for i := 1; i <= MaxIterations; i++ {
		next, err := sim.Observe(contrib)
		if err != nil {
			return nil, i, err
		}
		nextOuts := make([]*Output, len(outs))
		nextContrib := make([]*Output, len(outs))
		for j, render := range renders {
			same, err := sameWorld(worlds[j], next[j])
			if err != nil {
				return nil, i, err
			}
			out := outs[j]
			if !same {
				if out, err = render(ctx, next[j]); err != nil {
					return nil, i, err
				}
			}
			nextOuts[j], nextContrib[j] = out, out
			if out.Fatal {
				nextContrib[j] = contrib[j]
			}
		}
		changed, err = changes(contrib, nextContrib)
		if err != nil {
			return nil, i, err
		}
		if len(changed) == 0 {
			return nextOuts, i, nil
		}
		outs, contrib, worlds = nextOuts, nextContrib, next
	}
	return nil, MaxIterations, fmt.Errorf("renders still change after %d iterations against the simulated world, "+
		"the last one changed %s: the function never settles", MaxIterations, strings.Join(changed, "; "))
}

// changes names what changed between two iterations' contributions to the world: each XR's
// composed resources (by composition resource name), and the XR itself (its status) when
// there are other XRs to see it.
func changes(before, after []*Output) ([]string, error) {
	var out []string
	for j := range after {
		var what []string
		if len(after) > 1 {
			a, err := MarshalObjects(before[j].XR)
			if err != nil {
				return nil, err
			}
			b, err := MarshalObjects(after[j].XR)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(a, b) {
				what = append(what, "the XR")
			}
		}
		composed, err := changedResources(before[j].Composed, after[j].Composed)
		if err != nil {
			return nil, err
		}
		what = append(what, composed...)
		if len(what) == 0 {
			continue
		}
		if len(after) == 1 {
			out = append(out, strings.Join(what, ", "))
			continue
		}
		out = append(out, describe(after[j].XR)+": "+strings.Join(what, ", "))
	}
	return out, nil
}

// sameWorld reports whether two worlds hold the same objects in the same order.
func sameWorld(a, b World) (bool, error) {
	if len(a.Observed) != len(b.Observed) || len(a.Required) != len(b.Required) {
		return false, nil
	}
	x, err := MarshalObjects(append(append([]*Object{}, a.Observed...), a.Required...)...)
	if err != nil {
		return false, err
	}
	y, err := MarshalObjects(append(append([]*Object{}, b.Observed...), b.Required...)...)
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}
