package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Packages are the built package files and where users get them from.
type Packages struct {
	// Function is a Function .xpkg file, or a comma-separated list of them, one per
	// architecture, pushed as one multi-arch index (as make push does). Configuration is the
	// Configuration .xpkg (make build writes both).
	Function, Configuration string
	// Repository is the repository prefix the Configuration's dependsOn names
	// (xpkg.crossplane.io/configuration-kcp); Version their tag.
	Repository, Version string
	// ClusterRole is the file of the ClusterRole the README tells users to apply.
	ClusterRole string
}

// Install pushes both packages to the local registry and installs them the way a user
// does (docs/install.md): apply the README's ClusterRole, then install the Configuration
// with the package's public reference (installConfiguration). An ImageConfig rewrites the public
// repository to the local registry (as a user mirroring packages would), so Crossplane
// resolves the Function dependency from the Configuration's own dependsOn. Install returns when the Configuration and the Function are
// Healthy and every XRD is Established.
func (s *Stack) Install(ctx context.Context, p Packages) error {
	local := s.Registry + "/" + repoPath(p.Repository)
	if _, err := s.Push(ctx, p.Function, repoPath(p.Repository)+"/function-kcp", p.Version); err != nil {
		return err
	}
	if _, err := s.Push(ctx, p.Configuration, repoPath(p.Repository)+"/configuration-kcp", p.Version); err != nil {
		return err
	}
	s.Step("pushed function-kcp and configuration-kcp %s to %s", p.Version, local)
	if s.opts.ProviderKubernetes != nil {
		if err := s.pushProviderKubernetes(ctx); err != nil {
			return err
		}
	}

	role, err := os.ReadFile(p.ClusterRole)
	if err != nil {
		return err
	}
	if err := s.Apply(ctx, role); err != nil {
		return fmt.Errorf("%s: %w", p.ClusterRole, err)
	}
	mirror := fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: configuration-kcp-local-mirror
spec:
  matchImages:
  - type: Prefix
    prefix: %[1]s/
  rewriteImage:
    prefix: %[2]s/
`, p.Repository, local)
	if err := s.Apply(ctx, []byte(mirror)); err != nil {
		return err
	}

	ref := fmt.Sprintf("%s/configuration-kcp:%s", p.Repository, p.Version)
	if err := s.installConfiguration(ctx, ref); err != nil {
		return err
	}
	s.Step("applied %s", p.ClusterRole)

	if err := s.WaitCondition(ctx, 3*time.Minute, "Healthy", "configuration", "configuration-kcp"); err != nil {
		return err
	}
	if err := s.WaitCondition(ctx, 3*time.Minute, "Healthy", "function", FunctionName(p.Repository)); err != nil {
		return err
	}
	s.Step("Configuration and Function healthy")
	return s.Eventually(ctx, 2*time.Minute, "XRDs established", func(ctx context.Context) (bool, string, error) {
		var list struct {
			Items []Object `json:"items"`
		}
		if err := s.GetJSON(ctx, &list, "compositeresourcedefinitions"); err != nil {
			return false, "", err
		}
		var waiting []string
		for _, x := range list.Items {
			if c := x.Condition("Established"); c.Status != "True" {
				waiting = append(waiting, x.Metadata.Name+": "+c.Reason+" "+c.Message)
			}
		}
		if len(list.Items) == 0 {
			return false, "no XRDs yet", nil
		}
		return len(waiting) == 0, strings.Join(waiting, "; "), nil
	})
}

// installConfiguration installs the Configuration ref as the install guide says: with
// `crossplane xpkg install configuration`, waiting until it is healthy. Without the CLI (the
// demo) it applies the Configuration object that command creates; Install then waits for
// it either way.
func (s *Stack) installConfiguration(ctx context.Context, ref string) error {
	if s.opts.Bin.CrossplaneCLI == "" {
		s.Step("$ kubectl apply: Configuration configuration-kcp, package %s", ref)
		return s.Apply(ctx, []byte(fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: configuration-kcp
spec:
  package: %s
`, ref)))
	}
	cmd := exec.CommandContext(ctx, s.opts.Bin.CrossplaneCLI, "xpkg", "install", "configuration", ref, "configuration-kcp", "--wait=3m")
	cmd.Env = append(append(os.Environ(), proc.NoProxy...), "KUBECONFIG="+s.Kubeconfig)
	out, err := cmd.CombinedOutput()
	s.Step("$ crossplane xpkg install configuration %s configuration-kcp --wait=3m", ref)
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		s.Step("  %s", l)
	}
	if err != nil {
		return fmt.Errorf("crossplane xpkg install configuration %s: %w", ref, err)
	}
	return nil
}

// FunctionName is the name Crossplane's dependency resolution gives the Function package:
// its repository path as a DNS label.
func FunctionName(repository string) string {
	return strings.ReplaceAll(repoPath(repository)+"/function-kcp", "/", "-")
}

// repoPath is a repository reference without its registry host.
func repoPath(repository string) string {
	_, p, _ := strings.Cut(repository, "/")
	return p
}
