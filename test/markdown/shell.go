package markdown

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ShellLangs are the info strings of the blocks a reader types into a shell.
var ShellLangs = []string{"shell", "sh", "bash", "console"}

// Block is a fenced shell block of a Markdown document and what it runs against.
type Block struct {
	File  string // as given to ShellBlocks
	Line  int    // 1-based line of the opening fence
	Lang  string // shell, sh, bash or console
	Demo  bool   // marked <!-- against: demo -->
	Needs string // the reason of <!-- needs: ... -->, "" if none
	Text  string // the block's content, with an indented fence's indentation removed
}

// The markers, each an HTML comment on a line of its own directly above the opening fence:
// a reader sees nothing of them, the tests read what the block runs against.
const (
	againstKey = "against:"
	needsKey   = "needs:"
	// demo is the one thing a block can run against: what make demo leaves running.
	demo = "demo"
)

// ShellBlocks returns the fenced shell blocks of a Markdown file with their markers, also
// when the fence is indented (inside a list item). A marker that names no known target, or
// a needs marker without a reason, is an error naming the file and line.
func ShellBlocks(path string) ([]Block, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var (
		blocks []Block
		cur    *Block
		indent int      // the open fence's indentation, removed from its lines
		fence  string   // the open fence's backticks; a block of any language is skipped whole
		text   []string // the open block's lines
		above  []string // the lines above the current one, trimmed, for the markers
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		switch {
		case fence == "":
			f, info, ok := openingFence(line)
			if !ok {
				break
			}
			fence = f
			lang, _, _ := strings.Cut(info, " ")
			if !slices.Contains(ShellLangs, lang) {
				break
			}
			cur = &Block{File: path, Line: n, Lang: lang}
			indent = len(raw) - len(strings.TrimLeft(raw, " "))
			text = nil
			if err := mark(cur, above, path, n); err != nil {
				return nil, err
			}
		case closes(line, fence):
			if cur != nil {
				cur.Text = strings.Join(text, "")
				blocks = append(blocks, *cur)
			}
			cur, fence = nil, ""
		case cur != nil:
			text = append(text, dedent(raw, indent)+"\n")
		}
		above = append(above, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if fence != "" {
		return nil, fmt.Errorf("%s: a fenced block is never closed: end it with %s", path, fence)
	}
	return blocks, nil
}

// mark sets b's markers from the marker comments directly above its fence (line n), nearest
// last. Other comments there are not markers; a marker with an unknown target, or a needs
// without its reason, is an error.
func mark(b *Block, above []string, path string, n int) error {
	for i := len(above) - 1; i >= 0; i-- {
		l := above[i]
		if !strings.HasPrefix(l, "<!--") || !strings.HasSuffix(l, "-->") {
			return nil
		}
		at := fmt.Sprintf("%s:%d", path, i+1)
		body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "<!--"), "-->"))
		switch {
		case strings.HasPrefix(body, againstKey):
			if v := strings.TrimSpace(strings.TrimPrefix(body, againstKey)); v != demo {
				return fmt.Errorf("%s: the block at line %d is marked against %q: the one target is %q (<!-- against: demo -->); otherwise say what it needs (<!-- needs: ... -->)", at, n, v, demo)
			}
			b.Demo = true
		case strings.HasPrefix(body, needsKey):
			v := strings.TrimSpace(strings.TrimPrefix(body, needsKey))
			if v == "" {
				return fmt.Errorf("%s: the block at line %d needs nothing named: say what it needs that make demo lacks, e.g. <!-- needs: a second cluster -->", at, n)
			}
			if b.Needs != "" {
				return fmt.Errorf("%s: the block at line %d has two needs markers: say all it needs in one", at, n)
			}
			b.Needs = v
		}
	}
	return nil
}

// dedent removes up to n leading spaces: a line inside an indented block may be indented
// less than its fence.
func dedent(s string, n int) string {
	i := 0
	for i < n && i < len(s) && s[i] == ' ' {
		i++
	}
	return s[i:]
}

// DocFiles returns the Markdown files users read, relative to the repository's root and
// sorted: README.md, docs/ but its generated reference, examples/ and test/e2e/README.md.
func DocFiles(root string) ([]string, error) {
	files := []string{"README.md", filepath.Join("test", "e2e", "README.md")}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			// docs/reference/ is generated from the API types; its blocks are not typed.
			if d.IsDir() && rel == filepath.Join("docs", "reference") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".md") {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return files, nil
}
