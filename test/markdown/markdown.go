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

// Blocks returns the fenced blocks of a Markdown file whose info string is one of langs,
// also when the fence is indented (inside a list item).
func Blocks(path string, langs ...string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case cur == nil && strings.HasPrefix(line, "```") && slices.Contains(langs, strings.TrimPrefix(line, "```")):
			cur = &strings.Builder{}
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(sc.Text() + "\n")
		}
	}
	return blocks, sc.Err()
}
