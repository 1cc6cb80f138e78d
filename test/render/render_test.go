package render

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// repoRoot is the repository root seen from this package's directory, where go test runs.
const repoRoot = "../.."

// The golden and validation tests share one render of every example.
var (
	renderOnce sync.Once
	rendered   []*Rendered
	renderErr  error
)

// renderExamples renders every example under <repo>/examples once per test binary. Missing
// tools fail the test: `make test` builds them first, so a skip would only hide a problem.
func renderExamples(t *testing.T) []*Rendered {
	t.Helper()
	renderOnce.Do(func() { rendered, renderErr = renderAll() })
	if renderErr != nil {
		t.Fatal(renderErr)
	}
	return rendered
}

func renderAll() ([]*Rendered, error) {
	tools, err := FindTools(repoRoot)
	if err != nil {
		return nil, err
	}
	examples, err := LoadExamples(filepath.Join(repoRoot, "examples"))
	if err != nil {
		return nil, err
	}
	// Every example converged through the Crossplane CLI: about 9 minutes on 2 cores one
	// example after the other, more under load. Within make test's 30-minute limit for the
	// package.
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	h, err := Start(ctx, repoRoot, tools)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	// One example per core at a time: a render is a CLI process and a call to the function,
	// which serves calls side by side, and a Renderer keeps nothing between renders.
	out := make([]*Rendered, len(examples))
	errs := make([]error, len(examples))
	slots := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, ex := range examples {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			out[i], errs[i] = h.RenderExample(ctx, ex)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w\nfunction logs:\n%s", err, h.FunctionLogs())
	}
	return out, nil
}

// states pairs each state's file name with its outputs.
func states(r *Rendered) []struct {
	name string
	outs []*Output
} {
	return []struct {
		name string
		outs []*Output
	}{{"fresh", r.Fresh}, {"converged", r.Converged}}
}
