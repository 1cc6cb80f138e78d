// Package markdown reads the fenced code blocks of the project's Markdown documents, which
// the docs tests validate and the end-to-end tests run.
package markdown

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strings"
)

// Blocks returns the fenced blocks of a Markdown file whose info string is one of langs ("" for
// a bare fence), also when the fence is indented (inside a list item). Every fence opens and
// closes a block, whatever its language, so that one block's closing fence is never taken for
// the opening of another.
func Blocks(path string, langs ...string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var blocks []string
	var cur *strings.Builder
	fence := "" // the open block's fence, "" outside any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case fence == "":
			f, info, ok := openingFence(line)
			if !ok {
				continue
			}
			fence = f
			if slices.Contains(langs, info) {
				cur = &strings.Builder{}
			}
		case closes(line, fence):
			if cur != nil {
				blocks = append(blocks, cur.String())
			}
			fence, cur = "", nil
		case cur != nil:
			cur.WriteString(sc.Text() + "\n")
		}
	}
	return blocks, sc.Err()
}

// openingFence reads a trimmed line that opens a fenced block: its backticks and its info string.
func openingFence(line string) (fence, info string, ok bool) {
	if !strings.HasPrefix(line, "```") {
		return "", "", false
	}
	rest := strings.TrimLeft(line, "`")
	return line[:len(line)-len(rest)], strings.TrimSpace(rest), true
}

// closes reports whether a trimmed line closes the block fence opened: backticks only, at least
// as many.
func closes(line, fence string) bool {
	return strings.Trim(line, "`") == "" && len(line) >= len(fence)
}
