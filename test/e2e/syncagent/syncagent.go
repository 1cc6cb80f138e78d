// Package syncagent pins kcp's api-syncagent for the end-to-end runs against real kcp: the
// version make/e2e-tools.mk builds into bin/api-syncagent (E2E_API_SYNCAGENT), and its
// PublishedResource CRD, read from the Go module cache.
package syncagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The api-syncagent release the e2e runs; make/e2e-tools.mk's E2E_API_SYNCAGENT_VERSION must
// be the same (TestVersionMatchesMake).
const (
	Module  = "github.com/kcp-dev/api-syncagent"
	Version = "v0.7.0"
)

// crdPath is the PublishedResource CRD (syncagent.kcp.io/v1alpha1) in the module.
var crdPath = filepath.Join("deploy", "crd", "kcp.io", "syncagent.kcp.io_publishedresources.yaml")

// CRDFile returns the path of api-syncagent Version's PublishedResource CRD in the module
// cache, downloading the module through the Go module proxy when it is not there yet. As
// kcpstandin.ResolveCRDs does for kcp, it runs `go mod download -json` by exact version in
// scratchDir, outside every module of ours. The checksum database does not know
// api-syncagent v0.7.0, so the download skips it for that module (GONOSUMDB); a download
// already in the module cache is used as it is.
func CRDFile(ctx context.Context, scratchDir string) (string, error) {
	dir, err := download(ctx, scratchDir, Module+"@"+Version)
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, crdPath)
	if _, err := os.Stat(f); err != nil {
		return "", fmt.Errorf("%s@%s has no PublishedResource CRD: %w", Module, Version, err)
	}
	return f, nil
}

// EnvCRD carries CRDFile's path into the e2e's network namespace, where the Go module proxy
// cannot be reached: ResolveCRD sets it before the test binary re-executes itself there.
const EnvCRD = "E2E_SYNCAGENT_CRD"

// ResolveCRD sets EnvCRD to CRDFile's path, unless it is set, running the download in a
// scratch directory of its own.
func ResolveCRD(ctx context.Context) error {
	if os.Getenv(EnvCRD) != "" {
		return nil
	}
	dir, err := os.MkdirTemp("", "e2e-syncagent-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir) //nolint:errcheck // A scratch directory.
	f, err := CRDFile(ctx, dir)
	if err != nil {
		return err
	}
	return os.Setenv(EnvCRD, f)
}

// download runs `go mod download -json arg` in dir and returns the module's directory, like
// test/gomod's, which runs with the caller's environment alone: this one also sets GONOSUMDB
// and GOFLAGS.
func download(ctx context.Context, dir, arg string) (string, error) {
	nosumdb := Module
	if v := os.Getenv("GONOSUMDB"); v != "" {
		nosumdb = v + "," + Module
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", arg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GONOSUMDB="+nosumdb, "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	// On failure go still prints the JSON, whose Error says why.
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		if runErr != nil {
			return "", fmt.Errorf("go mod download %s (in %s): %w: %s", arg, dir, runErr, strings.TrimSpace(stderr.String()))
		}
		return "", fmt.Errorf("go mod download %s (in %s): %w", arg, dir, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s (in %s): %s", arg, dir, m.Error)
	}
	if runErr != nil {
		return "", fmt.Errorf("go mod download %s (in %s): %w", arg, dir, runErr)
	}
	return m.Dir, nil
}
