package render

import (
	"fmt"
	"os"
	"path/filepath"
)

// Tools are the binaries a render needs.
type Tools struct {
	// Crossplane is the Crossplane CLI.
	Crossplane string
	// CrossplaneCore is Crossplane core, whose `internal render` does the rendering.
	CrossplaneCore string
	// Function is the kcp composition function.
	Function string
}

// FindTools locates the tools through $CROSSPLANE, $CROSSPLANE_CORE and $FUNCTION_KCP (the
// first two are exported by make/tools.mk), falling back to <root>/bin.
func FindTools(root string) (Tools, error) {
	t := Tools{
		Crossplane:     fromEnv("CROSSPLANE", filepath.Join(root, "bin", "crossplane")),
		CrossplaneCore: fromEnv("CROSSPLANE_CORE", filepath.Join(root, "bin", "crossplane-core")),
		Function:       fromEnv("FUNCTION_KCP", filepath.Join(root, "bin", "function-kcp")),
	}
	for _, p := range []string{t.Crossplane, t.CrossplaneCore, t.Function} {
		// Stat, not only exec: `go test` caching then notices a rebuilt binary.
		if _, err := os.Stat(p); err != nil {
			return Tools{}, fmt.Errorf("%w: run make tools function", err)
		}
	}
	return t, nil
}

func fromEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
