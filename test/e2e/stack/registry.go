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
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

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
// package author would; without the CLI (the demo), with go-containerregistry, which writes
// the same image or index.
func (s *Stack) Push(ctx context.Context, xpkg, repository, tag string) (string, error) {
	ref := fmt.Sprintf("%s/%s:%s", s.Registry, repository, tag)
	if s.opts.Bin.CrossplaneCLI == "" {
		return ref, pushFiles(ctx, strings.Split(xpkg, ","), ref)
	}
	cmd := exec.CommandContext(ctx, s.opts.Bin.CrossplaneCLI, "xpkg", "push", "-f", xpkg, ref)
	cmd.Env = append(os.Environ(), proc.NoProxy...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("crossplane xpkg push -f %s %s: %w\n%s", xpkg, ref, err, out)
	}
	return ref, nil
}

// pushFiles pushes one package file as an image, or several as an index whose manifests carry
// each image's platform, as `crossplane xpkg push` does.
func pushFiles(ctx context.Context, files []string, ref string) error {
	tag, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		return err
	}
	imgs := make([]v1.Image, 0, len(files))
	for _, f := range files {
		img, err := tarball.ImageFromPath(f, nil)
		if err != nil {
			return fmt.Errorf("package %s: %w", f, err)
		}
		imgs = append(imgs, img)
	}
	if len(imgs) == 1 {
		return remote.Write(tag, imgs[0], remote.WithContext(ctx))
	}
	idx := v1.ImageIndex(empty.Index)
	for i, img := range imgs {
		cfg, err := img.ConfigFile()
		if err != nil {
			return fmt.Errorf("package %s: %w", files[i], err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture}},
		})
	}
	return remote.WriteIndex(tag, idx, remote.WithContext(ctx))
}
