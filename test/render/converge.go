package render

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
)

// MaxIterations bounds convergence: kcp's composition settles in a handful of rounds, so
// more means the function keeps changing its mind. The longest chain is examples/multi-cluster:
// a FrontProxy that reads its RootShard's reference Secret (written once every certificate of
// the RootShard is issued), then composes its own certificates, then its placed workload, whose
// new kinds Crossplane's staging adds one round later.
const MaxIterations = 14

// RenderFunc renders one XR against a world.
type RenderFunc func(ctx context.Context, w World) (*Output, error)

// SpawnFunc returns the render of an XR that another XR composed, as it was composed.
type SpawnFunc func(xr *Object) (RenderFunc, error)

// Converge starts from the fresh renders of an example's XRs (fresh[i] rendered by
// renders[i], against worlds[i]) and feeds them back as one simulated world shared by all
// XRs, iterating until nothing any render depends on changes. It returns the last render of
// each XR and how many iterations it took; an iteration renders every XR whose world changed
// (the others would render the same, the function being deterministic).
//
// What an XR puts into the world is its last render that was not Fatal: on a Fatal result
// Crossplane applies and deletes nothing. An XR that was Fatal from the start puts in itself
// as written and nothing composed.
//
// With spawn set, an XR of this repository that another XR composes (a KcpInstallation's
// RootShard, say) joins the example as Crossplane would reconcile it: it is rendered as
// composed, again whenever its composer changes it, and its composer observes it as last
// rendered, status included. Such XRs are appended to the returned outputs in the order
// they were first composed.
func Converge(ctx context.Context, sim Simulator, fresh []*Output, worlds []World, renders []RenderFunc, spawn SpawnFunc) ([]*Output, int, error) {
	outs := slices.Clone(fresh)
	contrib := slices.Clone(fresh)
	worlds = slices.Clone(worlds)
	renders = slices.Clone(renders)
	allFatal := true
	for _, o := range fresh {
		allFatal = allFatal && o.Fatal
	}
	if allFatal {
		// The world would be the fresh one again: nothing composed, the XRs as written.
		return outs, 0, nil
	}
	children := &children{spawn: spawn, index: map[objectKey]int{}, input: map[objectKey][]byte{}}
	force := make([]bool, len(outs))
	var changed []string
	for i := 1; i <= MaxIterations; i++ {
		spawned, err := children.update(contrib, &outs, &contrib, &worlds, &renders, &force)
		if err != nil {
			return nil, i, err
		}
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
			if !same || force[j] {
				if out, err = render(ctx, next[j]); err != nil {
					return nil, i, err
				}
			}
			force[j] = false
			nextOuts[j], nextContrib[j] = out, out
			if out.Fatal {
				nextContrib[j] = contrib[j]
			}
		}
		changed, err = changes(contrib, nextContrib)
		if err != nil {
			return nil, i, err
		}
		changed = append(spawned, changed...)
		if len(changed) == 0 {
			return nextOuts, i, nil
		}
		outs, contrib, worlds = nextOuts, nextContrib, next
	}
	return nil, MaxIterations, fmt.Errorf("renders still change after %d iterations against the simulated world, "+
		"the last one changed %s: the function never settles", MaxIterations, strings.Join(changed, "; "))
}

// children tracks the XRs that other XRs compose.
type children struct {
	spawn SpawnFunc
	// index is each child's position in the outputs; input is the child as last composed.
	index map[objectKey]int
	input map[objectKey][]byte
}

// update adds every XR the contributions compose that is not yet part of the example, and
// gives a child whose composer changed it a new render. It returns what it added or changed.
func (c *children) update(contrib []*Output, outs, contribs *[]*Output, worlds *[]World, renders *[]RenderFunc, force *[]bool) ([]string, error) {
	if c.spawn == nil {
		return nil, nil
	}
	var what []string
	for _, parent := range contrib {
		for _, composed := range parent.Composed {
			if composed.GroupVersionKind().Group != XRGroup {
				continue
			}
			xr := composed.DeepCopy()
			delete(xr.Object, "status")
			b, err := MarshalObjects(xr)
			if err != nil {
				return nil, err
			}
			key := keyOf(xr)
			if bytes.Equal(c.input[key], b) {
				continue
			}
			render, err := c.spawn(xr)
			if err != nil {
				return nil, fmt.Errorf("%s composed by %s: %w", describe(xr), describe(parent.XR), err)
			}
			c.input[key] = b
			j, ok := c.index[key]
			if !ok {
				// Until its first render, the child is in the world as composed.
				j = len(*outs)
				c.index[key] = j
				placeholder := &Output{XR: xr}
				*outs = append(*outs, placeholder)
				*contribs = append(*contribs, placeholder)
				*worlds = append(*worlds, World{})
				*renders = append(*renders, nil)
				*force = append(*force, false)
				what = append(what, describe(parent.XR)+": composed "+describe(xr))
			} else {
				what = append(what, describe(parent.XR)+": changed "+describe(xr))
			}
			(*renders)[j] = render
			(*force)[j] = true
		}
	}
	return what, nil
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
