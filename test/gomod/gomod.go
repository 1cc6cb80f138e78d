// Package gomod finds the files of a pinned Go module (CRDs that ship with cert-manager and
// Crossplane) in the module cache, so tests read exactly the version a go.mod pins.
package gomod

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Dir returns the directory in the module cache of module, at the version the go.mod in
// goModDir requires, downloading it if needed through the Go module proxy.
func Dir(goModDir, module string) (string, error) {
	return download(goModDir, module)
}

// DirAt returns the directory in the module cache of module at an exact version (never a
// query such as latest), downloading it if needed through the Go module proxy. For modules no
// go.mod here can require: it runs in a scratch directory, outside every module.
func DirAt(module, version string) (string, error) {
	if !strings.HasPrefix(version, "v") || strings.ContainsAny(version, "<>=*") || version == "latest" {
		return "", fmt.Errorf("%s@%s: pin an exact version", module, version)
	}
	scratch, err := os.MkdirTemp("", "gomod-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch) //nolint:errcheck // A temporary directory.
	return download(scratch, module+"@"+version)
}

// DirBeside returns the directory of module at the version the go.mod in goModDir requires
// of required, another module of the same repository: prometheus-operator ships its CRDs in
// its root module and its Go types, which the function requires, in pkg/apis/monitoring.
func DirBeside(goModDir, required, module string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", required)
	cmd.Dir = goModDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s (in %s): %w", required, goModDir, err)
	}
	return DirAt(module, strings.TrimSpace(string(out)))
}

// download runs `go mod download -json arg` in dir and returns the module's directory.
func download(dir, arg string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", arg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s (in %s): %w", arg, dir, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s (in %s): %s", arg, dir, m.Error)
	}
	return m.Dir, nil
}
