package stack

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// registry is an in-memory OCI registry (go-containerregistry's, as `crane registry serve`
// runs it) served over plain HTTP on the namespace's loopback. Crossplane and the Crossplane
// CLI use plain HTTP for 127.0.0.1 by themselves.
type registry struct {
	srv *http.Server
}

func (s *Stack) startRegistry() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(s.Dir, "registry.log"))
	if err != nil {
		return err
	}
	r := &registry{srv: &http.Server{
		Handler:           ggcrregistry.New(ggcrregistry.Logger(log.New(f, "", log.LstdFlags))),
		ReadHeaderTimeout: 10 * time.Second,
	}}
	go func() {
		if err := r.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(f, "registry stopped: %v\n", err)
		}
		_ = f.Close()
	}()
	s.registry = r
	s.Registry = l.Addr().String()
	return nil
}

func (r *registry) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// Push pushes a package file (or a comma-separated list of per-architecture files, as one
// index) to the registry as <registry>/<repository>:<tag> with `crossplane xpkg push`, as a
// package author would.
func (s *Stack) Push(ctx context.Context, xpkg, repository, tag string) (string, error) {
	ref := fmt.Sprintf("%s/%s:%s", s.Registry, repository, tag)
	cmd := exec.CommandContext(ctx, s.opts.Bin.CrossplaneCLI, "xpkg", "push", "-f", xpkg, ref)
	cmd.Env = append(os.Environ(), proc.NoProxy...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("crossplane xpkg push -f %s %s: %w\n%s", xpkg, ref, err, out)
	}
	return ref, nil
}
