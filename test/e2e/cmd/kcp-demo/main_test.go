package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
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

// TestRestLine holds what -rest prints for a window: counts, and their rate a minute.
func TestRestLine(t *testing.T) {
	cases := map[string]struct {
		reason        string
		calls         int
		before, after map[string]int
		window        time.Duration
		want          string
	}{
		"Quiet": {
			reason: "An installation at rest on Crossplane v2.4: nothing called, nothing requested.",
			before: map[string]int{"GET": 10, "PATCH": 4}, after: map[string]int{"GET": 10, "PATCH": 4},
			window: 5 * time.Minute,
			want:   "0 RunFunction calls and 0 API requests by Crossplane; 0.0 and 0.0 a minute",
		},
		"CalledEachMinute": {
			reason: "Only what grew in the window counts, by method in a stable order; a method new in the window counts whole.",
			calls:  40,
			before: map[string]int{"GET": 100, "PATCH": 50}, after: map[string]int{"GET": 215, "PATCH": 230, "PUT": 2},
			window: 5 * time.Minute,
			want:   "40 RunFunction calls and 297 API requests by Crossplane (GET 115, PATCH 180, PUT 2); 8.0 and 59.4 a minute",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := restLine(tc.calls, stack.RequestsSince(tc.before, tc.after), tc.window)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nrestLine(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
