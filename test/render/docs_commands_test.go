package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/markdown"
	"github.com/configuration-kcp/configuration-kcp/test/shell"
)

// TestDocsCommands checks every command of the docs' shell blocks as far as it can go without
// a cluster, so that a renamed make target, a mistyped flag or a moved example breaks the
// build rather than a reader's first try:
//
//   - kubectl runs with the arguments shown (heredocs as stdin, in a directory holding the
//     examples and the files the docs tell users to create), against a kubeconfig whose
//     server is a closed port on 127.0.0.1: it must get as far as connecting, which means its
//     verb, flags and files were accepted;
//   - crossplane runs with the arguments shown and --help: the CLI rejects unknown commands
//     and flags even then;
//   - make targets must exist in the Makefile;
//   - cmctl (cert-manager's CLI) only as cmctl renew;
//   - go only as go test of a package of this repository, whose -run names a test it has;
//   - export only as the README's PATH to make demo's kubectl;
//   - a few standard tools (sed, grep, diff, base64, head) are taken as they are; any other
//     program fails the test until it is added here.
//
// What the commands do against a real cluster is the e2e's business: the Migrate scenario
// runs the migration guide's commands verbatim.
func TestDocsCommands(t *testing.T) {
	tools, err := FindTools(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	kubectl := fromEnv("E2E_KUBECTL", filepath.Join(repoRoot, "bin", "kubectl"))
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("%v: run make e2e-tools", err)
	}
	// The commands run in another directory.
	for _, p := range []*string{&kubectl, &tools.Crossplane} {
		if *p, err = filepath.Abs(*p); err != nil {
			t.Fatal(err)
		}
	}
	targets := makeTargets(t)
	dir := userDir(t)

	for _, f := range docFiles(t) {
		rel, _ := filepath.Rel(repoRoot, f)
		for _, block := range fencedBlocks(t, f, "sh", "shell", "bash") {
			cmds, err := shell.Parse(block)
			if err != nil {
				t.Errorf("%s: %v in\n%s", rel, err, block)
				continue
			}
			for _, c := range cmds {
				t.Run(strings.ReplaceAll(rel, "/", "_")+"/"+c.String(), func(t *testing.T) {
					switch c.Args[0] {
					case "kubectl":
						checkKubectl(t, kubectl, dir, c)
					case "crossplane":
						out, err := run(dir, "", tools.Crossplane, append(c.Args[1:], "--help")...)
						if err != nil {
							t.Errorf("%s: %v\n%s", c, err, out)
						}
					case "make":
						for _, a := range c.Args[1:] {
							if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && !targets[a] {
								t.Errorf("%s: the Makefile has no target %q", c, a)
							}
						}
					case "go":
						checkGoTest(t, c)
					case "sed", "grep", "diff", "base64", "head":
					case "export":
						// Only the README's way onto make demo's control plane: its
						// kubectl wrapper first on PATH.
						if len(c.Args) != 2 || !strings.HasPrefix(c.Args[1], "PATH=$PWD/_output/demo/bin:") {
							t.Errorf("%s: the docs export only PATH=$PWD/_output/demo/bin:$PATH (make demo's kubectl)", c)
						}
					case "cmctl":
						// cert-manager's CLI, which the docs ask users to have: only its
						// verbs are checked.
						if len(c.Args) < 2 || c.Args[1] != "renew" {
							t.Errorf("%s: the docs use cmctl only to renew certificates", c)
						}
					default:
						t.Errorf("%s: the docs use %q, which this test does not know how to check: add it", c, c.Args[0])
					}
				})
			}
		}
	}
}

// checkKubectl runs a kubectl command against a closed port and wants it to try connecting.
func checkKubectl(t *testing.T, kubectl, dir string, c shell.Command) {
	t.Helper()
	out, _ := run(dir, c.Stdin, kubectl, c.Args[1:]...)
	// kubectl says it either way, by command: "dial tcp ...: connect: connection refused", or
	// "The connection to the server 127.0.0.1:1 was refused" (kubectl create namespace).
	if !strings.Contains(out, "connect: connection refused") && !strings.Contains(out, "The connection to the server 127.0.0.1:1 was refused") {
		t.Errorf("%s: kubectl stopped before contacting the API server:\n%s", c, out)
	}
}

// run runs a program in dir with KUBECONFIG pointing at the closed port, and returns its
// combined output.
func run(dir, stdin, prog string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "admin.kubeconfig"))
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// closedKubeconfig points at a port nothing listens on: kubectl fails at its first request,
// after parsing everything else, and no traffic leaves the machine.
const closedKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: closed
  cluster:
    server: https://127.0.0.1:1
users:
- name: nobody
  user:
    token: none
contexts:
- name: closed
  context:
    cluster: closed
    user: nobody
current-context: closed
`

// userDir is a working directory as the docs assume it: a checkout of this repository, with
// the files the docs tell users to create: manifests/ (the migration guide converts it),
// admin.kubeconfig (the install guide writes it; here the closed one), the XR, functions.yaml
// (the testing guide's block), rendered output the testing guide works with, and the restore
// Jobs of the day-two guide.
func userDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"manifests": filepath.Join(root, "examples", "basic")}
	for _, d := range []string{"apis", "docs", "examples", "functions", "install", "test"} {
		links[d] = filepath.Join(root, d)
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	xr, err := os.ReadFile(filepath.Join(root, "examples", "basic", "rootshard.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var functions string
	for _, b := range fencedBlocks(t, filepath.Join(root, "docs", "testing-with-render.md"), "yaml") {
		if strings.Contains(b, "kind: Function") {
			functions = b
		}
	}
	var restore string
	for _, b := range fencedBlocks(t, filepath.Join(root, "docs", "day-two.md"), "yaml") {
		if strings.Contains(b, "kind: Job") {
			restore = b
		}
	}
	for name, content := range map[string]string{
		"restore-prod-etcd.yaml": restore, // docs/day-two.md's restore Jobs
		"admin.kubeconfig":       closedKubeconfig,
		"team-a.kubeconfig":      closedKubeconfig, // docs/workspaces.md
		"cluster-b.kubeconfig":   closedKubeconfig, // docs/multi-cluster.md
		"alice.kubeconfig":       closedKubeconfig, // docs/publishing-apis.md
		"rootshard.yaml":         string(xr),
		"functions.yaml":         functions,
		"rendered.yaml":          "",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// makeTargets are the targets the Makefile and its includes define.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	targets, err := markdown.MakeTargets(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return targets
}

// checkGoTest wants go test of a package directory of this repository, and a -run pattern
// naming a test function that package has: a benchmark or figure the docs quote must exist.
func checkGoTest(t *testing.T, c shell.Command) {
	t.Helper()
	if len(c.Args) < 3 || c.Args[1] != "test" {
		t.Errorf("%s: the docs use go only as go test <package>", c)
		return
	}
	var pkg, test string
	for i := 2; i < len(c.Args); i++ {
		switch a := c.Args[i]; {
		case a == "-run" && i+1 < len(c.Args):
			test = strings.Trim(c.Args[i+1], "^$")
			i++
		case strings.HasPrefix(a, "./"):
			pkg = strings.TrimSuffix(a, "/")
		}
	}
	files, _ := filepath.Glob(filepath.Join(repoRoot, pkg, "*_test.go"))
	if pkg == "" || len(files) == 0 {
		t.Errorf("%s: no package with tests at %q", c, pkg)
		return
	}
	if test == "" {
		return
	}
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(test) + `\(`)
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && decl.Match(b) {
			return
		}
	}
	t.Errorf("%s: package %s has no test %s", c, pkg, test)
}
