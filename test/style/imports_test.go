// Package style holds the project's conventions that no formatter keeps: the layout of Go
// imports, and the lists in the docs that repeat the code.
package style

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// project is the import path prefix of the project's own packages.
const project = "github.com/configuration-kcp/configuration-kcp"

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// TestImportGroups holds every Go file of the project to one layout of its imports: the
// standard library, then other modules, then the project's own packages, each group once,
// in that order, separated by a blank line; a group under a comment that says why it stands
// apart may follow. gofmt sorts within a group but keeps any split.
func TestImportGroups(t *testing.T) {
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "_output", "bin", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		if problem := importLayout(path); problem != "" {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: %s; want the standard library, other modules, then %s/..., one group each, in that order", rel, problem, project)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d Go files under %s: the walk missed the project", files, root)
	}
}

// group is the rank of an import path: 0 the standard library, 1 other modules, 2 ours.
func group(path string) int {
	switch {
	case strings.HasPrefix(path, project):
		return 2
	case strings.Contains(strings.Split(path, "/")[0], "."):
		return 1
	}
	return 0
}

// importLayout says what is wrong with the file's imports, or "".
func importLayout(path string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return err.Error()
	}
	names := []string{"standard library", "other modules", "the project's packages"}
	lastGroup, lastLine := -1, 0
	seen := map[int]bool{}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		g := group(p)
		line := fset.Position(spec.Pos()).Line
		if spec.Doc != nil {
			line = fset.Position(spec.Doc.Pos()).Line
		}
		newGroup := lastGroup >= 0 && line > lastLine+1
		if newGroup && spec.Doc != nil {
			// A group under a comment saying why it stands apart (imports for their side
			// effects, say) is its own.
			lastGroup, lastLine = g, fset.Position(spec.End()).Line
			continue
		}
		switch {
		case lastGroup >= 0 && g < lastGroup:
			return p + " (" + names[g] + ") comes after " + names[lastGroup]
		case lastGroup >= 0 && g == lastGroup && newGroup:
			return names[g] + " split in two groups at " + p
		case lastGroup >= 0 && g != lastGroup && !newGroup:
			return p + " (" + names[g] + ") shares a group with " + names[lastGroup]
		case seen[g] && g != lastGroup:
			return names[g] + " in two groups"
		}
		seen[g] = true
		lastGroup, lastLine = g, fset.Position(spec.End()).Line
	}
	return ""
}
