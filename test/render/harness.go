package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Harness renders examples against one running function.
type Harness struct {
	renderer Renderer
	function *Function
	apis     map[schema.GroupKind]API
	pki      PKI
}

// Start starts the function and reads the XRDs under <root>/apis. Close it when done.
func Start(ctx context.Context, root string, tools Tools) (*Harness, error) {
	apis, err := LoadAPIs(filepath.Join(root, "apis"))
	if err != nil {
		return nil, err
	}
	pki, err := FixturePKI()
	if err != nil {
		return nil, err
	}
	functions := filepath.Join(root, "test", "render", "functions.yaml")
	if _, err := os.Stat(functions); err != nil {
		return nil, err
	}
	fn, err := StartFunction(ctx, tools.Function)
	if err != nil {
		return nil, err
	}
	return &Harness{
		renderer: Renderer{Tools: tools, Functions: functions, Target: fn.Address, Timeout: 30 * time.Second},
		function: fn,
		apis:     apis,
		pki:      pki,
	}, nil
}

// Close stops the function.
func (h *Harness) Close() { h.function.Stop() }

// FunctionLogs returns what the function printed, for diagnosing failures.
func (h *Harness) FunctionLogs() string { return h.function.Logs() }

// Rendered is an example rendered fresh and converged, one Output per XR.
type Rendered struct {
	Example          string
	Fresh, Converged []*Output
	// Iterations is how many times the example's XRs were rendered against the simulated
	// world until it settled.
	Iterations               int
	FreshTime, ConvergedTime time.Duration
}

// RenderExample renders every XR of an example fresh, then converges the example as a whole:
// its XRs share one simulated world, in which each sees the others. XRs that the example's
// XRs compose (a KcpInstallation's RootShard, say) are rendered too, and their converged
// renders follow the example's own.
func (h *Harness) RenderExample(ctx context.Context, ex Example) (*Rendered, error) {
	r := &Rendered{Example: ex.Name}
	sim := Simulator{PKI: h.pki, Environment: ex.Environment}
	renderOf := func(xr *Object) (RenderFunc, error) {
		gk := xr.GroupVersionKind().GroupKind()
		api, ok := h.apis[gk]
		if !ok {
			return nil, fmt.Errorf("example %s: no XRD under apis/ defines %s", ex.Name, gk)
		}
		return func(ctx context.Context, w World) (*Output, error) {
			out, err := h.renderer.Render(ctx, Request{XR: xr, API: api, World: w})
			if err != nil {
				return nil, fmt.Errorf("example %s, %s: %w", ex.Name, describe(xr), err)
			}
			return out, nil
		}, nil
	}
	renders := make([]RenderFunc, 0, len(ex.XRs))
	for _, xr := range ex.XRs {
		render, err := renderOf(xr)
		if err != nil {
			return nil, err
		}
		renders = append(renders, render)
	}

	start := time.Now()
	worlds, err := sim.Fresh(ex.XRs)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", ex.Name, err)
	}
	for i, render := range renders {
		out, err := render(ctx, worlds[i])
		if err != nil {
			return nil, err
		}
		r.Fresh = append(r.Fresh, out)
	}
	r.FreshTime = time.Since(start)

	start = time.Now()
	r.Converged, r.Iterations, err = Converge(ctx, sim, r.Fresh, worlds, renders, renderOf)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", ex.Name, err)
	}
	r.ConvergedTime = time.Since(start)
	return r, checkFatal(ex, append(r.Fresh, r.Converged...))
}

// checkFatal fails an example whose pipeline returned Fatal, unless it expects that.
func checkFatal(ex Example, outs []*Output) error {
	var fatal []string
	seen := map[string]bool{}
	for _, o := range outs {
		if !o.Fatal {
			continue
		}
		for _, res := range o.Results {
			msg, _ := res.Object["message"].(string)
			// A fatal fresh render is also the converged one: report it once.
			if res.Object["severity"] == "Fatal" && !seen[msg] {
				seen[msg] = true
				fatal = append(fatal, msg)
			}
		}
	}
	switch {
	case ex.ExpectFatal && len(fatal) == 0:
		return fmt.Errorf("example %s has an %s file, but no render returned a Fatal result", ex.Name, ExpectFatalFile)
	case !ex.ExpectFatal && len(fatal) > 0:
		return fmt.Errorf("example %s: the pipeline returned Fatal (add an %s file if that is the point of the example): %s",
			ex.Name, ExpectFatalFile, strings.Join(fatal, "; "))
	}
	return nil
}

// Golden concatenates the reviewable form of each XR's output.
func Golden(outs []*Output) ([]byte, error) {
	return concat(outs, (*Output).Golden)
}

// Resources concatenates each XR's output without results, for schema validation.
func Resources(outs []*Output) ([]byte, error) {
	return concat(outs, (*Output).Resources)
}

func concat(outs []*Output, f func(*Output) ([]byte, error)) ([]byte, error) {
	var buf bytes.Buffer
	var errs []error
	for _, o := range outs {
		b, err := f(o)
		errs = append(errs, err)
		buf.Write(b)
	}
	return buf.Bytes(), errors.Join(errs...)
}
