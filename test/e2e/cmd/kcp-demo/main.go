// Command kcp-demo brings up the e2e stack (package stack: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok fake nodes standing in for kubelets,
// cert-manager, Crossplane, a local registry; local processes in a private network
// namespace), installs configuration-kcp's packages as a user would, applies examples/basic,
// shows the XRs with `crossplane resource trace` until every certificate is issued, the
// Deployments exist and the kubeconfig Secret is written, and keeps everything running until
// interrupted. kwok marks the pods running, so the XRs turn Ready, but no kcp runs.
//
// Run it with `make demo`; `make demo-down` stops it from another terminal.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

const (
	namespace      = "kcp"
	kubeconfigName = "kcp-admin-kubeconfig"
	repository     = "xpkg.crossplane.io/configuration-kcp"
)

func main() {
	if !cluster.InNetNS() {
		// Outside the namespace: find the CRDs while the module proxy is reachable.
		root, err := cluster.ModuleRoot()
		if err == nil {
			err = stack.ResolveCRDs(root)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kcp-demo: %v\n", err)
			os.Exit(1)
		}
	}
	os.Exit(cluster.Run(run))
}

func run() int {
	fn := flag.String("function", "", "Function package (.xpkg), or a comma-separated list, one per architecture; default _output/package/function-kcp-<arch>.xpkg")
	cfg := flag.String("configuration", "", "Configuration package (.xpkg); default _output/package/configuration-kcp.xpkg")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demo(ctx, *fn, *cfg); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "kcp-demo: %v\n", err)
		return 1
	}
	return 0
}

func demo(ctx context.Context, fn, cfg string) error {
	root, err := cluster.ModuleRoot()
	if err != nil {
		return err
	}
	out := filepath.Join(root, "_output", "demo")
	if fn == "" {
		fn = filepath.Join(root, "_output", "package", "function-kcp-"+runtime.GOARCH+".xpkg")
	}
	if cfg == "" {
		cfg = filepath.Join(root, "_output", "package", "configuration-kcp.xpkg")
	}
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return err
	}
	bin, err := stack.BinariesFromEnv()
	if err != nil {
		return err
	}

	fmt.Println("Starting a local control plane in a private network namespace (logs in " + out + ")")
	// The Configuration depends on provider-kubernetes (what acts inside kcp): without its
	// package in the local registry the Configuration never becomes healthy. make demo
	// builds it and exports its path.
	provider := os.Getenv(stack.EnvProviderKubernetesXpkg)
	if provider == "" {
		return fmt.Errorf("%s is not set: run the demo through make demo, which builds provider-kubernetes' package", stack.EnvProviderKubernetesXpkg)
	}
	s, err := stack.Up(ctx, stack.Options{
		Bin: bin, Dir: out, Progress: os.Stdout,
		CrossplaneCRDs:     os.Getenv(stack.EnvCrossplaneCRDs),
		CertManagerCRDs:    os.Getenv(stack.EnvCertManagerCRDs),
		ProviderKubernetes: &stack.ProviderKubernetes{Package: provider},
	})
	if s != nil {
		defer s.Stop()
	}
	if err != nil {
		return err
	}
	// The parent (outside the namespace) is what make demo-down signals; this process's
	// namespace is what nsenter joins.
	if err := os.WriteFile(filepath.Join(out, "demo.pid"), []byte(strconv.Itoa(os.Getppid())+"\n"), 0o644); err != nil {
		return err
	}
	kubectl, err := writeWrapper(out, "kubectl", bin.Kubectl, "--kubeconfig="+s.Kubeconfig)
	if err != nil {
		return err
	}
	crossplane, err := writeWrapper(out, "crossplane", "env", "KUBECONFIG="+s.Kubeconfig, bin.CrossplaneCLI)
	if err != nil {
		return err
	}

	if err := s.Install(ctx, stack.Packages{
		Function: fn, Configuration: cfg,
		Repository: repository, Version: strings.TrimSpace(string(version)),
		ClusterRole: filepath.Join(root, "install", "clusterrole.yaml"),
	}); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "examples", "basic", "*.yaml"))
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := s.ApplyFiles(ctx, files...); err != nil {
		return err
	}
	s.Step("applied examples/basic: a ClusterIssuer, a RootShard, a FrontProxy and a Kubeconfig in namespace %s", namespace)

	took, err := watch(ctx, s, bin.CrossplaneCLI, start)
	if err != nil {
		return err
	}
	kcpKubeconfig := filepath.Join(out, "kcp-admin.kubeconfig")
	data, err := s.SecretData(ctx, namespace, kubeconfigName)
	if err != nil {
		return err
	}
	if err := os.WriteFile(kcpKubeconfig, data["kubeconfig"], 0o600); err != nil {
		return err
	}

	fmt.Printf(`
%.0[7]fs after apply every certificate is issued, the Deployments %[8]s exist and the
kubeconfig Secret %[1]s/%[2]s is written. The pods are scheduled onto kwok fake nodes, which
stand in for kubelets: they are marked running, but no kcp process runs.

The control plane keeps running until Ctrl-C here, or make demo-down elsewhere. Reach it with
  %[3]s get rootshards,frontproxies,kubeconfigs -n %[1]s
  %[3]s get certificates,deployments -n %[1]s
  %[4]s resource trace rootshard.kcp.crossplane.io/root -n %[1]s

The kcp admin kubeconfig (the Secret's content) is in %[6]s:
  kubectl --kubeconfig %[6]s get workspaces
It targets https://api.example.com:6443, the FrontProxy's external address. The pods here run
no containers (kwok fake nodes): on a real cluster, point api.example.com at the front-proxy's
LoadBalancer Service and use the kubeconfig as it is.
`, namespace, kubeconfigName, kubectl, crossplane, s.Kubeconfig, kcpKubeconfig, took.Seconds(), strings.Join(basicDeployments, ", "))

	<-ctx.Done()
	fmt.Println("\nStopping the control plane")
	return nil
}

// basicDeployments are the Deployments examples/basic composes once every certificate they
// mount is issued.
var basicDeployments = []string{"root-kcp", "root-proxy", "frontproxy-front-proxy"}

// progress is how far examples/basic has come, from the objects themselves.
type progress struct {
	certsReady, certs int
	// certsReported: the RootShard and the FrontProxy both say CertificatesReady=True, so
	// every certificate they compose exists and is issued (not just those created so far).
	certsReported bool
	deployments   int
	kubeconfig    bool
}

func (p progress) done() bool {
	return p.certsReported && p.deployments == len(basicDeployments) && p.kubeconfig
}

func (p progress) String() string {
	return fmt.Sprintf("%d/%d certificates issued (all composed: %t), %d/%d Deployments created, Kubeconfig admin Ready: %t",
		p.certsReady, p.certs, p.certsReported, p.deployments, len(basicDeployments), p.kubeconfig)
}

// observe reads the basic example's progress.
func observe(ctx context.Context, s *stack.Stack) (progress, error) {
	var p progress
	var list struct {
		Items []stack.Object `json:"items"`
	}
	if err := s.GetJSON(ctx, &list, "certificates.cert-manager.io", "-n", namespace); err != nil {
		return p, err
	}
	p.certs = len(list.Items)
	for _, c := range list.Items {
		if c.Condition("Ready").Status == "True" {
			p.certsReady++
		}
	}
	p.certsReported = true
	for _, xr := range []string{"rootshards.kcp.crossplane.io/root", "frontproxies.kcp.crossplane.io/frontproxy"} {
		var o stack.Object
		if err := s.GetJSON(ctx, &o, xr, "-n", namespace); err != nil {
			return p, err
		}
		p.certsReported = p.certsReported && o.Condition("CertificatesReady").Status == "True"
	}
	if err := s.GetJSON(ctx, &list, "deployments.apps", "-n", namespace); err != nil {
		return p, err
	}
	for _, d := range list.Items {
		if slices.Contains(basicDeployments, d.Metadata.Name) {
			p.deployments++
		}
	}
	var kc stack.Object
	if err := s.GetJSON(ctx, &kc, "kubeconfigs.kcp.crossplane.io/admin", "-n", namespace); err != nil {
		return p, err
	}
	p.kubeconfig = kc.Condition("Ready").Status == "True"
	return p, nil
}

// watch prints `crossplane resource trace` of the basic example's XRs every few seconds
// until every certificate the XRs compose is issued, their Deployments exist and the
// Kubeconfig is Ready (its Secret written). It returns how long that took from start.
func watch(ctx context.Context, s *stack.Stack, cli string, start time.Time) (time.Duration, error) {
	err := s.Eventually(ctx, 10*time.Minute, "certificates issued, Deployments created and kubeconfig written", func(ctx context.Context) (bool, string, error) {
		p, err := observe(ctx, s)
		if err != nil {
			// Not created yet, or the API server is busy: say so and look again.
			return false, err.Error(), nil
		}
		fmt.Printf("\n--- %s (%.0fs after apply): %s\n", time.Now().Format(time.TimeOnly), time.Since(start).Seconds(), p)
		for _, xr := range []string{"rootshard.kcp.crossplane.io/root", "frontproxy.kcp.crossplane.io/frontproxy", "kubeconfig.kcp.crossplane.io/admin"} {
			cmd := exec.CommandContext(ctx, cli, "resource", "trace", xr, "-n", namespace)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig)
			b, _ := cmd.CombinedOutput()
			fmt.Print(string(b))
		}
		if !p.done() {
			select {
			case <-ctx.Done():
			case <-time.After(4 * time.Second):
			}
		}
		return p.done(), p.String(), nil
	})
	return time.Since(start), err
}

// writeWrapper writes dir/name, a script that runs command with args inside this process's
// network namespace, where the API server listens, so that a user can reach it from another
// terminal.
func writeWrapper(dir, name string, command ...string) (string, error) {
	enter := fmt.Sprintf("nsenter --net=/proc/%d/ns/net --", os.Getpid())
	if inUserNamespace() {
		enter = fmt.Sprintf("nsenter --preserve-credentials --user --net --target=%d --", os.Getpid())
	}
	path := filepath.Join(dir, name)
	script := fmt.Sprintf("#!/bin/sh\n# %s against the demo's API server, inside its network namespace.\nexec %s %s \"$@\"\n", name, enter, strings.Join(command, " "))
	return path, os.WriteFile(path, []byte(script), 0o755)
}

// inUserNamespace reports whether this process runs in a user namespace of its own (the
// demo started by a non-root user): then nsenter must join it too.
func inUserNamespace() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	return strings.Join(strings.Fields(string(b)), " ") != "0 0 4294967295"
}
