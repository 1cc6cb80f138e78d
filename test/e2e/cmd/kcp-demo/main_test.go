package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

// TestLookCommandsAreInTheREADME holds what the demo tells a user to run to README.md's blocks
// marked to run against the demo, which the e2e's DemoCommands scenario runs: a command the demo
// prints is then one the e2e has run.
func TestLookCommandsAreInTheREADME(t *testing.T) {
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := markdown.ShellBlocks(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, b := range blocks {
		if b.Demo {
			for _, l := range strings.Split(b.Text, "\n") {
				lines[strings.TrimSpace(l)] = true
			}
		}
	}
	for _, c := range LookCommands {
		if !lines[c] {
			t.Errorf("the demo prints %q, which no README.md block marked <!-- against: demo --> holds: add it to the README's Try it, or stop printing it", c)
		}
	}
}
