package kcpstandin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/gomod"
)

// The kcp release whose API the stand-in serves: the CRDs of its config/crds, read from the Go
// module cache.
const (
	KCPModule  = "github.com/kcp-dev/kcp"
	KCPVersion = "v0.32.3"
)

// EnvCRDs carries the directory of kcp's CRDs into the private network namespace, where the Go
// module proxy cannot be reached (see ResolveCRDs).
const EnvCRDs = "E2E_KCP_CRDS"

// ResolveCRDs sets E2E_KCP_CRDS, unless set, to config/crds of kcp KCPVersion in the module
// cache, downloading the module through the Go module proxy when it is not there yet. kcp is
// no dependency of any module here (its go.mod needs kcp's own replaces), so it is downloaded
// by exact version from a scratch module. Call it before cluster.Run re-executes into the
// network namespace.
func ResolveCRDs() error {
	if os.Getenv(EnvCRDs) != "" {
		return nil
	}
	dir, err := gomod.DirAt(KCPModule, KCPVersion)
	if err != nil {
		return err
	}
	return os.Setenv(EnvCRDs, filepath.Join(dir, "config", "crds"))
}

// LoadCRDs reads kcp's own CRDs (groups *.kcp.io) from dir, kcp's config/crds, with the JSON
// patches kcp applies when it bootstraps them (the *.yaml-patch files beside them: name
// patterns, defaults, conversion strategy). config/crds also holds kcp's copies of Kubernetes
// types (rbac, admissionregistration), which a kube-apiserver serves natively: those are left
// out. The CRDs are returned as JSON, sorted by file name.
func LoadCRDs(dir string) ([][]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.kcp.io_*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no kcp CRDs (*.kcp.io_*.yaml) in %q (%s)", dir, EnvCRDs)
	}
	sort.Strings(files)
	out := make([][]byte, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var crd map[string]any
		if err := yaml.Unmarshal(b, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if p, err := os.ReadFile(f + "-patch"); err == nil {
			var ops []patchOp
			if err := yaml.Unmarshal(p, &ops); err != nil {
				return nil, fmt.Errorf("%s-patch: %w", f, err)
			}
			for _, op := range ops {
				if err := op.apply(crd); err != nil {
					return nil, fmt.Errorf("%s-patch: %w", f, err)
				}
			}
		} else if !os.IsNotExist(err) {
			return nil, err
		}
		j, err := json.Marshal(crd)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// patchOp is one operation of kcp's CRD patches: JSON patch "add", where a path segment
// "name=<x>" selects the element of a list whose "name" is x (kcp's extension, to address a
// CRD version by name).
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

func (p patchOp) apply(doc map[string]any) error {
	if p.Op != "add" {
		return fmt.Errorf("op %q at %s: only add is supported", p.Op, p.Path)
	}
	segs := strings.Split(strings.TrimPrefix(p.Path, "/"), "/")
	if p.Path == "" || !strings.HasPrefix(p.Path, "/") {
		return fmt.Errorf("path %q: not absolute", p.Path)
	}
	var cur any = doc
	for i, seg := range segs[:len(segs)-1] {
		next, err := child(cur, seg)
		if err != nil {
			return fmt.Errorf("path %s at /%s: %w", p.Path, strings.Join(segs[:i+1], "/"), err)
		}
		if next == nil {
			// JSON patch needs the parent to exist; kcp's patches add "properties" maps under
			// existing parents only, so creating a missing map level is what they mean.
			m := map[string]any{}
			parent, ok := cur.(map[string]any)
			if !ok {
				return fmt.Errorf("path %s: /%s is missing", p.Path, strings.Join(segs[:i+1], "/"))
			}
			parent[seg] = m
			next = m
		}
		cur = next
	}
	last := segs[len(segs)-1]
	switch c := cur.(type) {
	case map[string]any:
		c[last] = p.Value
		return nil
	default:
		return fmt.Errorf("path %s: the parent is not an object", p.Path)
	}
}

// child returns the element seg of an object or list, nil if an object has no such key.
func child(cur any, seg string) (any, error) {
	switch c := cur.(type) {
	case map[string]any:
		return c[seg], nil
	case []any:
		if name, ok := strings.CutPrefix(seg, "name="); ok {
			for _, e := range c {
				if m, ok := e.(map[string]any); ok && m["name"] == name {
					return m, nil
				}
			}
			return nil, fmt.Errorf("no element named %q", name)
		}
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(c) {
			return nil, fmt.Errorf("index %q out of range", seg)
		}
		return c[i], nil
	default:
		return nil, fmt.Errorf("cannot descend into %T", cur)
	}
}
