// Command kcp-demo brings up the e2e stack (package stack: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok fake nodes standing in for kubelets,
// cert-manager, Crossplane, a local registry; local processes in a private network
// namespace), installs configuration-kcp's packages as a user would, applies examples/basic,
// shows the XRs and what they compose until every certificate is issued, the Deployments
// exist and the kubeconfig Secret is written, prints the commands to look at them, and keeps
// everything running until interrupted. kwok marks the pods running, so the XRs turn Ready,
// but no kcp runs. It needs no Crossplane CLI.
//
// Run it with `make demo`; `make demo-down` stops it from another terminal.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
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
	line := flag.String("crossplane", "newest", "which supported Crossplane line CROSSPLANE_CORE is, for its CRDs: newest (v2.4) or oldest (v2.3)")
	rest := flag.Duration("rest", 0, "once examples/basic is up, print what the control plane does in each window of this length (RunFunction calls, Crossplane's API requests); 0: nothing")
	flag.Parse()

	crds, ok := map[string]string{"newest": stack.EnvCrossplaneNextCRDs, "oldest": stack.EnvCrossplaneCRDs}[*line]
	if !ok {
		fmt.Fprintf(os.Stderr, "kcp-demo: -crossplane=%q: want newest or oldest\n", *line)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demo(ctx, *fn, *cfg, os.Getenv(crds), *rest); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "kcp-demo: %v\n", err)
		return 1
	}
	return 0
}

func demo(ctx context.Context, fn, cfg, crossplaneCRDs string, rest time.Duration) error {
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
		CrossplaneCRDs:     crossplaneCRDs,
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
	// The wrapper sits alone in _output/demo/bin, so that putting that directory first on
	// PATH makes `kubectl` the demo's, and the README's commands work as written.
	if _, err := writeWrapper(filepath.Join(out, "bin"), "kubectl", bin.Kubectl, "--kubeconfig="+s.Kubeconfig); err != nil {
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

	took, err := watch(ctx, s, start)
	if err != nil {
		return err
	}

	fmt.Printf(`
%.0fs after apply every certificate is issued, the Deployments %s exist and the
kubeconfig Secret %s/%s is written. The pods are scheduled onto kwok fake nodes, which
stand in for kubelets: they are marked running, but no kcp process runs.

The control plane keeps running until Ctrl-C here, or make demo-down elsewhere. Look at what
it made from another terminal, in this directory (%s):

%s
The admin kubeconfig targets https://api.example.com:6443, the FrontProxy's external address,
where nothing runs here: on a real cluster, point api.example.com at the front-proxy's
LoadBalancer Service and use it as it is (README.md, "Try it").
`, took.Seconds(), strings.Join(basicDeployments, ", "), namespace, kubeconfigName, root, indent(LookCommands))

	if rest > 0 {
		if err := atRest(ctx, s, rest); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	<-ctx.Done()
	fmt.Println("\nStopping the control plane")
	return nil
}

// atRest prints, for each window of length w until ctx ends, the RunFunction calls the function
// served and the API requests Crossplane made in it: what an installation costs once it is up.
// The first windows include settling (a circuit breaker's cooldown keeps an XR on a short
// requeue for up to 5.5 minutes); the later ones are the installation at rest.
func atRest(ctx context.Context, s *stack.Stack, w time.Duration) error {
	calls, reqs, err := counts(ctx, s)
	if err != nil {
		return err
	}
	fmt.Printf("\nAt rest: what the control plane does in each %s (-rest):\n", w)
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(w):
		}
		c, r, err := counts(ctx, s)
		if err != nil {
			return err
		}
		fmt.Printf("  %s to %s after up: %s\n", time.Duration(i-1)*w, time.Duration(i)*w, restLine(c-calls, stack.RequestsSince(reqs, r), w))
		calls, reqs = c, r
	}
}

// counts are the function's RunFunction calls and Crossplane's API requests so far.
func counts(ctx context.Context, s *stack.Stack) (int, map[string]int, error) {
	calls, err := s.FunctionCalls(ctx)
	if err != nil {
		return 0, nil, err
	}
	reqs, err := s.CrossplaneRequests(ctx)
	return calls, reqs, err
}

// restLine says what a window of length w held, and its rate a minute.
func restLine(calls int, requests map[string]int, w time.Duration) string {
	total := 0
	methods := make([]string, 0, len(requests))
	for m, n := range requests {
		total += n
		methods = append(methods, fmt.Sprintf("%s %d", m, n))
	}
	slices.Sort(methods)
	by := ""
	if len(methods) > 0 {
		by = " (" + strings.Join(methods, ", ") + ")"
	}
	perMinute := func(n int) string { return strconv.FormatFloat(float64(n)/w.Minutes(), 'f', 1, 64) }
	return fmt.Sprintf("%d RunFunction calls and %d API requests by Crossplane%s; %s and %s a minute",
		calls, total, by, perMinute(calls), perMinute(total))
}

// LookCommands are what the demo tells a user to run, from the repository root, once
// examples/basic is up. README.md's "Try it" holds the same commands in blocks marked to run
// against the demo, which the e2e runs (TestLookCommandsAreInTheREADME holds the two together).
var LookCommands = []string{
	"export PATH=$PWD/_output/demo/bin:$PATH",
	"kubectl get rootshards,frontproxies,kubeconfigs -n kcp",
	"kubectl get certificates,deployments,pods -n kcp",
	"kubectl get secret -n kcp kcp-admin-kubeconfig -o jsonpath='{.data.kubeconfig}' | base64 -d > admin.kubeconfig",
}

// indent prints commands one per line, indented as a block to copy.
func indent(commands []string) string {
	var b strings.Builder
	for _, c := range commands {
		b.WriteString("  " + c + "\n")
	}
	return b.String()
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

// watch prints the basic example's XRs and what they compose every few seconds until every
// certificate the XRs compose is issued, their Deployments exist and the Kubeconfig is Ready
// (its Secret written). It returns how long that took from start.
func watch(ctx context.Context, s *stack.Stack, start time.Time) (time.Duration, error) {
	err := s.Eventually(ctx, 10*time.Minute, "certificates issued, Deployments created and kubeconfig written", func(ctx context.Context) (bool, string, error) {
		p, err := observe(ctx, s)
		if err != nil {
			// Not created yet, or the API server is busy: say so and look again.
			return false, err.Error(), nil
		}
		fmt.Printf("\n--- %s (%.0fs after apply): %s\n", time.Now().Format(time.TimeOnly), time.Since(start).Seconds(), p)
		out, err := s.Kubectl(ctx, nil, "get", "rootshards,frontproxies,kubeconfigs,certificatesets,certificates,deployments", "-n", namespace)
		if err != nil {
			out = []byte(err.Error() + "\n")
		}
		fmt.Print(string(out))
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
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
