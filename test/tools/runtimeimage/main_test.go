package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// tarFile is one entry of a layer, as the tests compare it.
type tarFile struct {
	name     string
	typeflag byte
	mode     int64
	uid, gid int
	mtime    int64
	content  string
}

// layerFiles lists every entry of l's uncompressed tar stream.
func layerFiles(t *testing.T, l v1.Layer) []tarFile {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var files []tarFile
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, tarFile{
			name: hdr.Name, typeflag: hdr.Typeflag, mode: hdr.Mode,
			uid: hdr.Uid, gid: hdr.Gid, mtime: hdr.ModTime.Unix(), content: string(b),
		})
	}
}

// mediaTypes are the manifest and layer media types an image reports.
type mediaTypes struct{ manifest, layer types.MediaType }

var (
	// oci: the image as build returns it.
	oci = mediaTypes{types.OCIManifestSchema1, types.OCILayer}
	// dockerSave: the image read back from the tarball. The docker-save format
	// records no media types, so tarball.ImageFromPath (and with it
	// `crossplane xpkg build`) reports Docker ones whatever was written.
	dockerSave = mediaTypes{types.DockerManifestSchema2, types.DockerLayer}
)

// checkImage asserts everything the runtime image promises about itself.
func checkImage(t *testing.T, img v1.Image, mts mediaTypes, bin, arch string) {
	t.Helper()

	mt, err := img.MediaType()
	if err != nil {
		t.Fatal(err)
	}
	if mt != mts.manifest {
		t.Errorf("manifest media type = %s, want %s", mt, mts.manifest)
	}

	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("got %d layers, want exactly 1", len(layers))
	}
	lmt, err := layers[0].MediaType()
	if err != nil {
		t.Fatal(err)
	}
	if lmt != mts.layer {
		t.Errorf("layer media type = %s, want %s", lmt, mts.layer)
	}
	want := []tarFile{{name: "function", typeflag: tar.TypeReg, mode: 0o755, mtime: 0, content: bin}}
	if got := layerFiles(t, layers[0]); !slices.Equal(got, want) {
		t.Errorf("layer files:\n got %+v\nwant %+v", got, want)
	}

	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != "linux" || cfg.Architecture != arch {
		t.Errorf("platform = %s/%s, want linux/%s", cfg.OS, cfg.Architecture, arch)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/function"}) {
		t.Errorf("entrypoint = %q, want [/function]", cfg.Config.Entrypoint)
	}
	if len(cfg.Config.Cmd) != 0 {
		t.Errorf("cmd = %q, want none (the runtime's args go to the entrypoint)", cfg.Config.Cmd)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("user = %q, want 65532:65532", cfg.Config.User)
	}
	if len(cfg.Config.ExposedPorts) != 1 {
		t.Errorf("exposed ports = %v, want only 9443/tcp", cfg.Config.ExposedPorts)
	}
	if _, ok := cfg.Config.ExposedPorts["9443/tcp"]; !ok {
		t.Errorf("exposed ports = %v, want 9443/tcp", cfg.Config.ExposedPorts)
	}
	for _, e := range cfg.Config.Env {
		if strings.HasPrefix(e, "TLS_SERVER_CERTS_DIR=") {
			t.Errorf("env sets %s; the runtime sets it", e)
		}
	}
	if cfg.Created.Unix() != 0 {
		t.Errorf("created = %v, want the epoch", cfg.Created)
	}
	if len(cfg.RootFS.DiffIDs) != 1 {
		t.Errorf("rootfs has %d diff IDs, want 1", len(cfg.RootFS.DiffIDs))
	}
}

func TestBuild(t *testing.T) {
	cases := []struct {
		name string
		bin  string
		arch string
	}{
		{name: "amd64", bin: "#!fake amd64 binary\n", arch: "amd64"},
		{name: "arm64", bin: "#!fake arm64 binary\n", arch: "arm64"},
		// Larger than one tar block and not a multiple of 512 bytes.
		{name: "padded content", bin: strings.Repeat("x", 1500), arch: "amd64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, err := build([]byte(tc.bin), tc.arch)
			if err != nil {
				t.Fatal(err)
			}
			checkImage(t, img, oci, tc.bin, tc.arch)

			// Reproducible: a second build of the same binary is the same image.
			again, err := build([]byte(tc.bin), tc.arch)
			if err != nil {
				t.Fatal(err)
			}
			d1, err := img.Digest()
			if err != nil {
				t.Fatal(err)
			}
			d2, err := again.Digest()
			if err != nil {
				t.Fatal(err)
			}
			if d1 != d2 {
				t.Errorf("two builds of the same binary differ: %s != %s", d1, d2)
			}
		})
	}
}

// TestBuildDistinguishes checks the digest is not constant: it follows the
// binary and the architecture.
func TestBuildDistinguishes(t *testing.T) {
	digest := func(bin, arch string) v1.Hash {
		t.Helper()
		img, err := build([]byte(bin), arch)
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest("a", "amd64")
	cases := []struct {
		name, bin, arch string
	}{
		{name: "other binary", bin: "b", arch: "amd64"},
		{name: "other architecture", bin: "a", arch: "arm64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if d := digest(tc.bin, tc.arch); d == base {
				t.Errorf("digest %s equals the base image's", d)
			}
		})
	}
}

func TestBuildRejects(t *testing.T) {
	cases := []struct {
		name, bin, arch, wantErr string
	}{
		{name: "unknown architecture", bin: "x", arch: "386", wantErr: "unsupported architecture"},
		{name: "empty architecture", bin: "x", arch: "", wantErr: "unsupported architecture"},
		{name: "empty binary", bin: "", arch: "amd64", wantErr: "empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build([]byte(tc.bin), tc.arch)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("build error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestRun writes tarballs through the command line and reads them back the way
// `crossplane xpkg build --embed-runtime-image-tarball` does (tarball.ImageFromPath).
func TestRun(t *testing.T) {
	dir := t.TempDir()
	binPath := filepath.Join(dir, "function")
	const bin = "fake function binary"
	if err := os.WriteFile(binPath, []byte(bin), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		arch     string // set: the output is checked as an image of this arch
	}{
		{name: "amd64", args: []string{"-binary", binPath, "-arch", "amd64", "-o", filepath.Join(dir, "amd64.tar")}, arch: "amd64"},
		{name: "arm64", args: []string{"-binary", binPath, "-arch", "arm64", "-o", filepath.Join(dir, "arm64.tar")}, arch: "arm64"},
		{name: "no output", args: []string{"-binary", binPath, "-arch", "amd64"}, wantCode: 2, wantErr: "usage"},
		{name: "extra argument", args: []string{"-binary", binPath, "-arch", "amd64", "-o", filepath.Join(dir, "x.tar"), "extra"}, wantCode: 2, wantErr: "usage"},
		{name: "unknown flag", args: []string{"-platform", "linux/amd64"}, wantCode: 2, wantErr: "not defined"},
		{name: "missing binary", args: []string{"-binary", filepath.Join(dir, "nope"), "-arch", "amd64", "-o", filepath.Join(dir, "nope.tar")}, wantCode: 1, wantErr: "no such file"},
		{name: "bad architecture", args: []string{"-binary", binPath, "-arch", "s390x", "-o", filepath.Join(dir, "s390x.tar")}, wantCode: 1, wantErr: "unsupported architecture"},
		{name: "relative entrypoint", args: []string{"-binary", binPath, "-arch", "amd64", "-entrypoint", "provider", "-o", filepath.Join(dir, "e.tar")}, wantCode: 2, wantErr: "not a clean absolute"},
		{name: "root entrypoint", args: []string{"-binary", binPath, "-arch", "amd64", "-entrypoint", "/", "-o", filepath.Join(dir, "e.tar")}, wantCode: 2, wantErr: "not a clean absolute"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != tc.wantCode {
				t.Fatalf("exit code = %d, want %d; stderr: %s", code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.wantErr)
			}
			if tc.arch == "" {
				return
			}
			out := tc.args[len(tc.args)-1]
			img, err := tarball.ImageFromPath(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkImage(t, img, dockerSave, bin, tc.arch)

			// The tarball holds the image build returns, not a re-encoded one.
			want, err := build([]byte(bin), tc.arch)
			if err != nil {
				t.Fatal(err)
			}
			wantLayers, _ := want.Layers()
			gotLayers, _ := img.Layers()
			wd, _ := wantLayers[0].Digest()
			gd, _ := gotLayers[0].Digest()
			if wd != gd {
				t.Errorf("layer digest in tarball = %s, want %s", gd, wd)
			}
			wc, _ := want.ConfigName()
			gc, _ := img.ConfigName()
			if wc != gc {
				t.Errorf("config digest in tarball = %s, want %s", gc, wc)
			}
		})
	}

	// No temporary files are left next to the outputs.
	leftovers, err := filepath.Glob(filepath.Join(dir, "*.tmp*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// -entrypoint puts the binary, and the entrypoint, elsewhere (the e2e's provider image).
func TestRunEntrypoint(t *testing.T) {
	dir := t.TempDir()
	binPath := filepath.Join(dir, "provider")
	if err := os.WriteFile(binPath, []byte("fake provider"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "provider.tar")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-binary", binPath, "-arch", "amd64", "-entrypoint", "/provider", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	img, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/provider" {
		t.Errorf("entrypoint %q, want /provider", got)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %v, %d", err, len(layers))
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	h, err := tar.NewReader(rc).Next()
	if err != nil {
		t.Fatal(err)
	}
	if h.Name != "provider" {
		t.Errorf("layer holds %q, want provider", h.Name)
	}
}
