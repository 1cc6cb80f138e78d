package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// fatal matches how CLI v2.5.0 reports a step's Fatal result: it exits 1 without output
// (core's partial output is dropped) and names the step and message on stderr.
var fatal = regexp.MustCompile(`pipeline step "([^"]+)" returned a fatal result: (.*)`)

// Renderer runs `crossplane composition render` against a running function.
type Renderer struct {
	Tools Tools
	// Functions is the functions.yaml declaring the function with the Development runtime.
	Functions string
	// Target is the function's address; it overrides the one in Functions.
	Target string
	// Timeout bounds one render; render otherwise hangs for a minute when the function is gone.
	Timeout time.Duration
}

// Request is one render of one XR.
type Request struct {
	XR    *Object
	API   API
	World World
}

// Render renders one XR.
func (r *Renderer) Render(ctx context.Context, req Request) (*Output, error) {
	dir, err := os.MkdirTemp("", "kcp-render-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir) //nolint:errcheck // A temporary directory.

	xr := filepath.Join(dir, "xr.yaml")
	if err := writeObjects(xr, req.XR); err != nil {
		return nil, err
	}
	args := []string{
		"composition", "render", xr, req.API.Composition, r.Functions,
		"--crossplane-binary=" + r.Tools.CrossplaneCore,
		"--xrd=" + req.API.XRD,
		"--include-full-xr", "--include-function-results",
		"-a", "render.crossplane.io/runtime-development-target=" + r.Target,
		fmt.Sprintf("--timeout=%s", r.Timeout),
	}
	if len(req.World.Observed) > 0 {
		p := filepath.Join(dir, "observed.yaml")
		if err := writeObjects(p, req.World.Observed...); err != nil {
			return nil, err
		}
		args = append(args, "--observed-resources="+p)
	}
	if len(req.World.Required) > 0 {
		p := filepath.Join(dir, "required.yaml")
		if err := writeObjects(p, req.World.Required...); err != nil {
			return nil, err
		}
		args = append(args, "--required-resources="+p)
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, r.Tools.Crossplane, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if step, msg, ok := fatalResult(stderr.String()); ok {
			return fatalOutput(req.XR, step, msg), nil
		}
		return nil, fmt.Errorf("%s %s: %w: %s", r.Tools.Crossplane, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	objs, err := ParseObjects(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("cannot parse render output: %w", err)
	}
	out, err := SplitOutput(objs)
	if err != nil {
		return nil, fmt.Errorf("%w; stderr: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// fatalResult extracts the step and message of a Fatal result from render's stderr.
func fatalResult(stderr string) (step, message string, ok bool) {
	m := fatal.FindStringSubmatch(stderr)
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

// fatalOutput stands for a render that ended in a Fatal result: Crossplane changes nothing,
// so the XR is as given, followed by the Result render would have printed.
func fatalOutput(xr *Object, step, message string) *Output {
	return &Output{
		XR:    xr.DeepCopy(),
		Fatal: true,
		Results: []*Object{{Object: map[string]any{
			"apiVersion": resultGroup + "/v1beta1",
			"kind":       "Result",
			"severity":   "Fatal",
			"step":       step,
			"message":    message,
		}}},
	}
}

func writeObjects(path string, objs ...*Object) error {
	b, err := MarshalObjects(objs...)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
