package scenarios

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

// demoBlockTimeout bounds one block: a command that waits on the demo's objects (kubectl wait)
// has its own shorter timeout, so hitting this one means a block that never ends.
const demoBlockTimeout = 2 * time.Minute

// testDemoCommands runs every shell block of the README and docs/ marked `<!-- against: demo -->`
// against what `make demo` leaves: examples/basic converged in namespace kcp, found here after
// Basic. Each block runs as a user would paste it, with bash, in a scratch directory that holds
// the repository's examples, install, docs and apis, and with only `kubectl` of ours on PATH
// (the demo puts its kubectl wrapper, and nothing else, first on PATH). So the commands the docs
// tell a new user to try cannot drift from what the package makes; TestShellBlocksAreMarked
// (test/style) makes every block say whether it runs against the demo or what it needs.
func testDemoCommands(t *testing.T, e *env) {
	ctx := t.Context()
	files, err := markdown.DocFiles(e.root)
	if err != nil {
		t.Fatal(err)
	}
	dir := demoWorkdir(t, e)
	env := demoEnv(t, e)
	ran := 0
	for _, f := range files {
		blocks, err := markdown.ShellBlocks(filepath.Join(e.root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if !b.Demo {
				continue
			}
			ran++
			name := fmt.Sprintf("%s:%d", f, b.Line)
			t.Run(strings.NewReplacer("/", "_", ".md", "").Replace(name), func(t *testing.T) {
				out, err := runDemoBlock(ctx, dir, env, b.Text)
				if err != nil {
					t.Errorf("%s: the block marked to run against the demo fails (%v); fix the command or mark it <!-- needs: ... -->:\n%s\noutput:\n%s", name, err, b.Text, out)
					return
				}
				e.Step("demo commands: %s ran (%d bytes of output)", name, len(out))
			})
		}
	}
	if ran == 0 {
		t.Fatal("no shell block in the README or docs/ is marked <!-- against: demo -->: the README's Try it must be")
	}
}

// runDemoBlock runs one block with bash, stopping at its first failing command.
func runDemoBlock(ctx context.Context, dir string, env []string, text string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, demoBlockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", text)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}

// demoWorkdir is a scratch directory that looks like the repository root to the blocks: what
// they write (admin.kubeconfig) stays out of the repository.
func demoWorkdir(t *testing.T, e *env) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"examples", "install", "docs", "apis"} {
		if err := os.Symlink(filepath.Join(e.root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// demoEnv is the environment of a user's terminal after the demo's `export PATH=...`: a
// directory holding only a kubectl that reaches this control plane, before the system's PATH.
// `export PATH=$PWD/_output/demo/bin:$PATH` itself then adds a directory that does not exist
// here, which changes nothing.
func demoEnv(t *testing.T, e *env) []string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %s --kubeconfig=%s \"$@\"\n", os.Getenv(cluster.EnvKubectl), e.Kubeconfig)
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		// No KUBECONFIG of the caller's, and none of bin/'s tools: only what the demo offers.
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+bin+":/usr/local/bin:/usr/bin:/bin")
}
