// Command xpkgbuild builds a Crossplane package (.xpkg) from a package root, as
// `crossplane xpkg build` does, through the same library: crossplane-runtime's
// xpkg.Builder, which parses and lints the package and writes its layers.
//
// It exists so that `make build` (and so `make demo`) needs no Crossplane CLI:
// the CLI pulls in about a gigabyte of modules and minutes of compiling a demo
// never uses, while this links only crossplane-runtime and go-containerregistry.
// For the same inputs it writes the same image as the CLI, digest for digest;
// test/pkg's TestXpkgBuildMatchesTheCLI holds it to that.
//
// Usage, with the CLI's flag names:
//
//	xpkgbuild -package-root package -examples-root _output/package/no-examples \
//	  -embed-runtime-image-tarball _output/package/function-kcp-runtime-amd64.tar \
//	  -o _output/package/function-kcp-amd64.xpkg
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/examples"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/yaml"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/spf13/afero"
)

func main() {
	root := flag.String("package-root", ".", "the directory holding the package's crossplane.yaml and every YAML file it ships")
	examplesRoot := flag.String("examples-root", "./examples", "a directory of example YAML files to put in the package's examples layer")
	runtimeTarball := flag.String("embed-runtime-image-tarball", "", "an image tarball to embed as the package's runtime (Functions and Providers)")
	out := flag.String("o", "", "the package file to write")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: xpkgbuild -package-root DIR [-examples-root DIR] [-embed-runtime-image-tarball FILE] -o FILE.xpkg")
		os.Exit(2)
	}
	if err := build(context.Background(), *root, *examplesRoot, *runtimeTarball, *out); err != nil {
		fmt.Fprintf(os.Stderr, "xpkgbuild: %v\n", err)
		os.Exit(1)
	}
}

func build(ctx context.Context, root, examplesRoot, runtimeTarball, out string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	examplesRoot, err = filepath.Abs(examplesRoot)
	if err != nil {
		return err
	}
	pp, err := yaml.New()
	if err != nil {
		return err
	}
	fs := afero.NewOsFs()
	// The CLI's default filters: YAML files only, no directories, no empty files; and,
	// in the package root, nothing under the examples root.
	yamlFiles := []parser.FilterFn{parser.SkipDirs(), parser.SkipNotYAML(), parser.SkipEmpty()}
	b := xpkg.New(
		parser.NewFsBackend(fs, parser.FsDir(root), parser.FsFilters(append(yamlFiles, xpkg.SkipContains(examplesRoot))...)),
		parser.NewFsBackend(fs, parser.FsDir(examplesRoot), parser.FsFilters(yamlFiles...)),
		pp,
		examples.New(),
	)
	var opts []xpkg.BuildOpt
	if runtimeTarball != "" {
		img, err := tarball.ImageFromPath(filepath.Clean(runtimeTarball), nil)
		if err != nil {
			return fmt.Errorf("runtime image %s: %w", runtimeTarball, err)
		}
		opts = append(opts, xpkg.WithBase(img))
	}
	img, _, err := b.Build(ctx, opts...)
	if err != nil {
		return fmt.Errorf("package root %s: %w", root, err)
	}
	// Written next to the target and renamed, so a failed build leaves no partial package.
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := tarball.Write(nil, img, f); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
