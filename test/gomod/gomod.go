// Package gomod finds the files of a pinned Go module (CRDs that ship with cert-manager and
// Crossplane) in the module cache, so tests read exactly the version a go.mod pins.
package gomod

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// Dir returns the directory in the module cache of module, at the version the go.mod in
// goModDir requires, downloading it if needed through the Go module proxy.
func Dir(goModDir, module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = goModDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s (in %s): %w", module, goModDir, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s (in %s): %s", module, goModDir, m.Error)
	}
	return m.Dir, nil
}
