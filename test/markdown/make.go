package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// makeRule is a rule's line in a Makefile: one or more target names, then a colon that is no
// assignment's (:=, ::=).
var makeRule = regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+(?: [A-Za-z0-9_.-]+)*):(?:[^=]|$)`)

// MakeTargets are the targets the repository's Makefile and its includes (make/*.mk) define:
// what a `make X` in the docs may name.
func MakeTargets(root string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(root, "make", "*.mk"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, f := range append(files, filepath.Join(root, "Makefile")) {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range makeRule.FindAllStringSubmatch(string(b), -1) {
			for _, name := range strings.Fields(m[1]) {
				out[name] = true
			}
		}
	}
	return out, nil
}
