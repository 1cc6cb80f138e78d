// Command runtimeimage builds the runtime image of a composition function
// without Docker: an OCI image whose only file is the function binary.
//
// `crossplane xpkg build --embed-runtime-image-tarball=IMG.tar` embeds such an
// image in a Function package. The image is built from scratch (no base image,
// nothing pulled), so the build works offline, and it is reproducible: the
// same binary gives the same image digest, byte for byte.
//
// Usage:
//
//	runtimeimage -binary _output/package/function-kcp-amd64 -arch amd64 \
//	  -o _output/package/function-kcp-runtime-amd64.tar
//
// -entrypoint puts the binary elsewhere than /function: the e2e packages provider-kubernetes
// the same way, as /provider.
//
// The binary must be a static linux binary (CGO_ENABLED=0): the image has no
// libc, no shell and no CA bundle.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// binaryPath is where the binary lives in the image; it is the entrypoint.
	binaryPath = "/function"
	// user is distroless's "nonroot" user, the user Crossplane's own function
	// images run as. The binary is world-executable, so any uid works.
	user = "65532:65532"
	// port is function-sdk-go's default gRPC address (:9443). Crossplane dials
	// it regardless; declaring it documents the image.
	port = "9443/tcp"
	// tagRepository names the image inside the tarball. xpkg build reads the
	// single image in the tarball and ignores its tag, so any fixed name works.
	tagRepository = "function-kcp-runtime"
)

// epoch is the time of every timestamp in the image (layer mtime, config and
// history "created"): a fixed time keeps the digest a function of the binary.
var epoch = time.Unix(0, 0).UTC()

// archs are the architectures we build: the ones the function is released for.
var archs = map[string]bool{"amd64": true, "arm64": true}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("runtimeimage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	binary := fs.String("binary", "", "static linux binary to put at the entrypoint")
	arch := fs.String("arch", "", "image architecture: amd64 or arm64")
	entrypoint := fs.String("entrypoint", binaryPath, "absolute path of the binary in the image, its entrypoint")
	out := fs.String("o", "", "image tarball to write (docker-save format, one image)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *binary == "" || *arch == "" || *out == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: runtimeimage -binary PATH -arch amd64|arm64 [-entrypoint /PATH] -o PATH")
		return 2
	}
	if !path.IsAbs(*entrypoint) || path.Clean(*entrypoint) != *entrypoint || *entrypoint == "/" {
		fmt.Fprintf(stderr, "runtimeimage: -entrypoint %q is not a clean absolute file path\n", *entrypoint)
		return 2
	}
	if err := write(*binary, *arch, *entrypoint, *out); err != nil {
		fmt.Fprintf(stderr, "runtimeimage: %v\n", err)
		return 1
	}
	return 0
}

// write builds the image from the binary at binPath and writes it to out. It
// writes a temporary file first, so an interrupted build never leaves a
// truncated tarball that make would take as up to date.
func write(binPath, arch, entrypoint, out string) error {
	bin, err := os.ReadFile(binPath)
	if err != nil {
		return err
	}
	img, err := buildAt(bin, arch, entrypoint)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(tagRepository+":"+arch, name.WithDefaultRegistry(""))
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".tmp*")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // no-op after the rename
	// CreateTemp makes the file 0600; an artifact is for everyone to read.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := tarball.WriteToFile(tmp.Name(), tag, img); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return os.Rename(tmp.Name(), out)
}

// build returns the runtime image holding bin at /function.
func build(bin []byte, arch string) (v1.Image, error) {
	return buildAt(bin, arch, binaryPath)
}

// buildAt returns the runtime image holding bin at entrypoint.
func buildAt(bin []byte, arch, entrypoint string) (v1.Image, error) {
	if !archs[arch] {
		return nil, fmt.Errorf("unsupported architecture %q (want amd64 or arm64)", arch)
	}
	if len(bin) == 0 {
		return nil, errors.New("the binary is empty")
	}
	layer, err := binaryLayer(bin, entrypoint)
	if err != nil {
		return nil, err
	}

	// OCI media types throughout: empty.Image is a Docker schema 2 image
	// otherwise, and a mix of OCI layers in a Docker manifest is invalid.
	// The docker-save tarball write produces records no media types, though:
	// whoever reads it back (xpkg build) sees Docker ones. Digests do not
	// depend on it: layer and config bytes are the same either way.
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer: layer,
		// A fixed history entry: without one mutate adds an empty entry, with
		// one we say where the layer comes from.
		History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "runtimeimage: COPY " + path.Base(entrypoint) + " " + entrypoint},
	})
	if err != nil {
		return nil, err
	}

	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Created = v1.Time{Time: epoch}
	cfg.OS = "linux"
	cfg.Architecture = arch
	// No Env: the function reads TLS_SERVER_CERTS_DIR, and the Crossplane
	// package runtime sets it in the Deployment it creates. No Cmd either, so
	// the runtime's args (e.g. --debug) go straight to the binary.
	cfg.Config = v1.Config{
		Entrypoint:   []string{entrypoint},
		User:         user,
		ExposedPorts: map[string]struct{}{port: {}},
	}
	return mutate.ConfigFile(img, cfg)
}

// binaryLayer returns a gzip-compressed OCI layer with one regular file,
// "function" (mode 0755, owned by 0:0), and nothing else: no directories, no
// /tmp (function-kcp writes no files; add one here if that changes), no user
// database (User is numeric).
// Every header field that could vary between builds is fixed, and Go's gzip
// writer stores no timestamp, so the layer digest depends only on bin.
func binaryLayer(bin []byte, entrypoint string) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		// Relative, like `tar -C rootfs -cf layer.tar function`: layer paths
		// are relative to the root by convention.
		Name:    entrypoint[1:],
		Mode:    0o755,
		Size:    int64(len(bin)),
		ModTime: epoch,
		Uid:     0,
		Gid:     0,
		// A fixed format: left unset, the writer picks one from the fields.
		Format: tar.FormatUSTAR,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
