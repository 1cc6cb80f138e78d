// Command kcp-render renders every example under -examples through `crossplane composition
// render`, fresh and converged, into <out>/<example>/{fresh,converged}.yaml. It runs from
// the repository root (make render).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/configuration-kcp/configuration-kcp/test/render"
)

func main() {
	examples := flag.String("examples", "examples", "directory holding one directory per example")
	out := flag.String("out", "_output/render", "directory to write <example>/{fresh,converged}.yaml into")
	root := flag.String("root", ".", "repository root (apis/, bin/, test/render/functions.yaml)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, *root, *examples, *out)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kcp-render:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, root, examplesDir, outDir string) error {
	examples, err := render.LoadExamples(examplesDir)
	if err != nil {
		return err
	}
	tools, err := render.FindTools(root)
	if err != nil {
		return err
	}
	h, err := render.Start(ctx, root, tools)
	if err != nil {
		return err
	}
	defer h.Close()

	for _, ex := range examples {
		r, err := h.RenderExample(ctx, ex)
		if err != nil {
			if logs := h.FunctionLogs(); logs != "" {
				err = fmt.Errorf("%w\nfunction logs:\n%s", err, logs)
			}
			return err
		}
		dir := filepath.Join(outDir, ex.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, s := range []struct {
			state string
			outs  []*render.Output
			line  string
		}{
			{"fresh", r.Fresh, fmt.Sprintf("%.2fs", r.FreshTime.Seconds())},
			{"converged", r.Converged, fmt.Sprintf("%.2fs, %d iterations", r.ConvergedTime.Seconds(), r.Iterations)},
		} {
			b, err := render.Golden(s.outs)
			if err != nil {
				return err
			}
			path := filepath.Join(dir, s.state+".yaml")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return err
			}
			fmt.Printf("%-12s %-10s %s -> %s\n", ex.Name, s.state, s.line, path)
		}
	}
	return nil
}
