package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/kcpstandin"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/syncagent"
)

func TestMain(m *testing.M) {
	if !cluster.InNetNS() {
		// The Go module proxy is unreachable from inside the namespace: find the CRD
		// directories first; the re-executed test binary inherits the environment.
		root, err := cluster.ModuleRoot()
		if err == nil {
			err = stack.ResolveCRDs(root)
		}
		if err == nil {
			err = kcpstandin.ResolveCRDs()
		}
		if err == nil {
			// api-syncagent's PublishedResource CRD, for the real-kcp runs' PublishedAPI.
			err = syncagent.ResolveCRD(context.Background())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
			os.Exit(1)
		}
	}
	os.Exit(cluster.RunInNetNS(m))
}

// env is what every scenario shares: the running stack, the module root and timings.
type env struct {
	*stack.Stack
	root string
	// functionName is the Function Crossplane installed as the Configuration's dependency.
	functionName string

	// t is TestKCP's T: what lives as long as the stack is bound to it.
	t *testing.T
}

// Environment variables naming the packages to install; make e2e sets them to make build's
// output.
const (
	envFunctionXpkg      = "E2E_FUNCTION_XPKG"
	envConfigurationXpkg = "E2E_CONFIGURATION_XPKG"
	// envCrossplaneArgs adds flags to Crossplane core (space separated), to compare settings.
	envCrossplaneArgs = "E2E_CROSSPLANE_ARGS"
)

// repository is where users get the packages from: the Configuration's dependsOn names it.
const repository = "xpkg.crossplane.io/configuration-kcp"

// TestKCP and TestCrossplaneNext run side by side, each on a control plane of its own: most
// of either is waiting (for cert-manager, for Crossplane's circuit breakers, for a rest
// window), and one after the other they would not fit CI's time (test/e2e/README.md).
func TestKCP(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := setUp(t)

	checkPlan(t)
	r := &planRun{e: e, outcomes: map[string]bool{}}
	// Basic runs alone: the figures docs/performance.md quotes for it are its own.
	for _, s := range inLane(LaneAlone) {
		if !runAlone(t, s.Name, func(t *testing.T) { r.run(t, s) }) {
			t.Fatalf("%s failed: the scenarios that build on it cannot run", s.Name)
		}
	}
	allowAPIPublishingBeforeLanes(ctx, t, e)
	// Then two lanes side by side, each scenario in namespaces of its own (the control plane
	// is shared; most of a scenario is waiting for Crossplane and cert-manager, so two lanes
	// take little more than the longer one). t.Run may be called from several goroutines.
	var lanes sync.WaitGroup
	for _, lane := range []Lane{LaneIndependent, LaneBasic} {
		lanes.Go(func() {
			for _, s := range inLane(lane) {
				t.Run(s.Name, func(t *testing.T) { r.run(t, s) })
			}
		})
	}
	lanes.Wait()
	for _, s := range inLane(LaneLast) {
		t.Run(s.Name, func(t *testing.T) { r.run(t, s) })
	}

	t.Run("FunctionRunsHardened", func(t *testing.T) { checkFunctionHardened(t, e) })
	t.Run("NoSecretsLeaked", func(t *testing.T) { checkNoSecretsLeaked(ctx, t, e) })
	reportFunctionCalls(ctx, t, e)
}

// TestCrossplaneNext runs Basic, Renewal and Fleet again on a control plane of its own with
// the other end of each supported range (docs/support.md): the newer Crossplane core
// (CROSSPLANE_CORE_NEXT, v2.4), and the oldest cert-manager and provider-kubernetes, where
// TestKCP runs Crossplane v2.3 with the newest; with E2E_KUBERNETES_NEXT set, on the newest
// Kubernetes too (make e2e E2E_KUBERNETES_NEXT=1). The Crossplane versions differ in how they
// watch what an XR reads and collect what it stops composing, and both figures are reported.
// Then Faults, once Fleet's rest window is over: it kills this stack's function, API server and
// Crossplane, so it runs where nothing else is measured, and here it overlaps TestKCP's lanes
// rather than adding its seven minutes after them. The other scenarios run on TestKCP's
// versions only, to stay within CI's time (test/e2e/README.md).
func TestCrossplaneNext(t *testing.T) {
	t.Parallel()
	core := os.Getenv(stack.EnvCrossplaneCoreNext)
	if core == "" {
		t.Fatalf("%s is not set: run this through make e2e, which builds it", stack.EnvCrossplaneCoreNext)
	}
	opts := []func(*stack.Binaries, *stack.Options){withCore(core, os.Getenv(stack.EnvCrossplaneNextCRDs)), withOldestDependencies(t), withoutCLI}
	kubernetes := os.Getenv(stack.EnvKubernetesVersion)
	if os.Getenv(stack.EnvKubernetesNext) != "" {
		opts, kubernetes = append(opts, withKubernetesNext(t)), os.Getenv(stack.EnvKubernetesNextVersion)
	}
	e := setUp(t, opts...)
	checkServerVersion(t.Context(), t, e, kubernetes)
	if !runAlone(t, "Basic", func(t *testing.T) { testBasic(t, e) }) {
		t.Fatal("Basic failed: Renewal builds on it")
	}
	t.Run("Renewal", func(t *testing.T) { testRenewal(t, e) })
	// Fleet's rest window covers Basic's installation too: on v2.4 none is called again.
	t.Run("Fleet", func(t *testing.T) {
		n, err := fleetSize()
		if err != nil {
			t.Fatal(err)
		}
		teams, err := fleetTeams()
		if err != nil {
			t.Fatal(err)
		}
		testFleet(t, e, n, teams, true, nil, atRest{1, []string{basicNamespace}})
	})
	t.Run("Faults", func(t *testing.T) { testFaults(t, e) })
	// The function Faults started again runs as hardened as the one it killed.
	t.Run("FunctionRunsHardened", func(t *testing.T) { checkFunctionHardened(t, e) })
}

// scenarioFuncs are the functions of Plan's scenarios.
var scenarioFuncs = map[string]func(*testing.T, *env){
	"Basic": testBasic, "DemoCommands": testDemoCommands, "Renewal": testRenewal, "BadInput": testBadInput, "APIPublishing": testAPIPublishing, "Delete": testDelete, "Migrate": testMigrate,
	"Sharded": testSharded, "KeepsWhatRuns": testKeepsWhatRuns, "InKCP": testInKCP, "MultiCluster": testMultiCluster,
	"Tenant": testTenant, "HostileTenant": testHostileTenant, "Claim": testClaim, "Upgrade": testUpgrade,
	"Production": testProduction, "Backup": testBackup, "SharedKCP": testSharedKCP, "Topology": testTopology,
	"StandIn": testStandIn, "Scale": testScale,
}

// checkPlan holds plan.go, which test/e2e/README.md shows, to the scenarios' code: every
// scenario of Plan has a function and every function a row, and each scenario's namespaces
// are the ones its code writes to.
func checkPlan(t *testing.T) {
	t.Helper()
	for name := range scenarioFuncs {
		if _, ok := PlanScenario(name); !ok {
			t.Errorf("scenarioFuncs has %s, which plan.go's Plan does not list: it would never run", name)
		}
	}
	writes := map[string][]string{
		"Basic": {basicNamespace}, "APIPublishing": {basicNamespace, apipubAgentsNamespace, apipubTenantNamespace}, "MultiCluster": {multiNamespace}, "Tenant": {tenantNamespace}, "HostileTenant": {hostileNamespace},
		"Claim": {claimNamespace}, "Upgrade": {upgradeNamespace}, "Production": {productionNamespace}, "Backup": {backupNamespace},
		"StandIn": {standInNamespace}, "Scale": {fmt.Sprintf("scale-%d", defaultScale[0].shards)},
	}
	for _, tp := range topologies {
		writes["Topology"] = append(writes["Topology"], tp.namespace)
	}
	for name, namespaces := range writes {
		s, _ := PlanScenario(name)
		for _, ns := range namespaces {
			if !slices.Contains(s.Namespaces, ns) {
				t.Errorf("plan.go: %s writes to namespace %s, which its row does not list", name, ns)
			}
		}
	}
}

// inLane is Plan's scenarios of a lane, in order.
func inLane(lane Lane) []Scenario {
	var out []Scenario
	for _, s := range Plan {
		if s.Lane == lane {
			out = append(out, s)
		}
	}
	return out
}

// planRun runs Plan's scenarios on one stack and remembers how each that ran ended.
type planRun struct {
	e *env

	mu sync.Mutex
	// outcomes: passed or not, by name, of the scenarios that ran (-test.run may leave some
	// out).
	outcomes map[string]bool
}

// run runs s in t, after what it needs: a need that failed skips it; one that has not run
// (left out by -test.run) runs first, in t, so that any scenario runs alone.
func (r *planRun) run(t *testing.T, s Scenario) {
	r.needs(t, s)
	r.runOne(t, s)
}

func (r *planRun) needs(t *testing.T, s Scenario) {
	for _, name := range s.Needs {
		r.mu.Lock()
		passed, ran := r.outcomes[name]
		r.mu.Unlock()
		switch {
		case ran && !passed:
			t.Skipf("%s did not pass, and %s starts from what it leaves", name, s.Name)
		case !ran:
			need, ok := PlanScenario(name)
			if !ok {
				t.Fatalf("plan.go: %s needs %s, which is not in Plan", s.Name, name)
			}
			r.needs(t, need)
			r.e.Step("%s first: %s starts from what it leaves", name, s.Name)
			if !r.runOne(t, need) {
				t.Fatalf("%s did not pass, and %s starts from what it leaves", name, s.Name)
			}
		}
	}
}

// runOne runs s's function in t, records how it ended (a skip is no pass) and returns
// whether it passed.
func (r *planRun) runOne(t *testing.T, s Scenario) (passed bool) {
	f, ok := scenarioFuncs[s.Name]
	if !ok {
		t.Fatalf("plan.go names %s, and scenarioFuncs has no function for it", s.Name)
	}
	defer func() {
		r.mu.Lock()
		r.outcomes[s.Name] = passed
		r.mu.Unlock()
	}()
	f(t, r.e)
	return !t.Failed() && !t.Skipped()
}

// alone keeps Basic's figures (time to Ready, CPU: docs/performance.md) its own while
// another control plane of this process runs: runAlone holds it, setUp shares it with the
// other set-ups, so a Basic waits for a set-up under way and the other control plane is
// idle while Basic runs.
var alone sync.RWMutex

// runAlone runs f as subtest name while no other test of this process runs a set-up or such
// a subtest.
func runAlone(t *testing.T, name string, f func(*testing.T)) bool {
	alone.Lock()
	defer alone.Unlock()
	return t.Run(name, f)
}

// TestFleet is the Fleet scenario alone, at any size, on a control plane of its own (make
// fleet N=<installations> TEAMS=<teams sharing one more installation>): skipped unless
// E2E_FLEET is set. It runs on Crossplane v2.4
// (CROSSPLANE_CORE_NEXT), or with E2E_FLEET_CORE=current on the core the other scenarios use
// (v2.3), which does not watch what an XR reads: there a settled XR that reads another's
// output is called once a minute.
func TestFleet(t *testing.T) {
	n, err := fleetSize()
	if err != nil {
		t.Fatal(err)
	}
	teams, err := fleetTeams()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(envFleet) == "" {
		t.Skipf("%s is not set: make fleet N=<installations> runs this", envFleet)
	}
	var opts []func(*stack.Binaries, *stack.Options)
	next := os.Getenv("E2E_FLEET_CORE") != "current"
	if next {
		opts = append(opts, withCore(os.Getenv(stack.EnvCrossplaneCoreNext), os.Getenv(stack.EnvCrossplaneNextCRDs)))
	}
	e := setUp(t, opts...)
	// What the control plane does with the packages installed and nothing else, over a
	// window as long as the rest window's, is what the installations' figures are above.
	// Crossplane v2.3 keeps writing the XRDs' CRDs for minutes after they are installed: the
	// idle window starts once it has stopped.
	if err := waitCrossplaneWritesStop(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	idle, err := measureRest(t.Context(), e, 1, restWindowFromEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	e.Step("fleet: idle control plane, %s", idle)
	testFleet(t, e, n, teams, next, &idle)
}

// withCore runs the stack with another Crossplane core binary and its CRDs.
func withCore(binary, crds string) func(*stack.Binaries, *stack.Options) {
	return func(b *stack.Binaries, o *stack.Options) {
		b.CrossplaneCore = binary
		o.CrossplaneCRDs = crds
	}
}

// withoutCLI installs the packages as make demo does, which has no Crossplane CLI: pushed
// with go-containerregistry, the Configuration applied with kubectl (stack.Install). TestKCP
// installs with the CLI, as the install guide does, so both ways are tested.
func withoutCLI(b *stack.Binaries, _ *stack.Options) { b.CrossplaneCLI = "" }

// withOldestDependencies runs the stack with the oldest cert-manager and provider-kubernetes
// docs/support.md supports.
func withOldestDependencies(t *testing.T) func(*stack.Binaries, *stack.Options) {
	certManager := os.Getenv(stack.EnvCertManagerOldest)
	if certManager == "" {
		t.Fatalf("%s is not set: run this through make e2e, which builds it", stack.EnvCertManagerOldest)
	}
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	xpkg := envOr(stack.EnvProviderKubernetesOldestXpkg, filepath.Join(root, "_output", "e2e-packages",
		"provider-kubernetes-"+stack.ProviderKubernetesOldestVersion+"-"+runtime.GOARCH+".xpkg"))
	return func(b *stack.Binaries, o *stack.Options) {
		b.CertManager = certManager
		o.CertManagerCRDs = os.Getenv(stack.EnvCertManagerOldestCRDs)
		o.ProviderKubernetes.Package = xpkg
		o.ProviderKubernetes.Version = stack.ProviderKubernetesOldestVersion
	}
}

// withKubernetesNext runs the stack's kube-apiserver, kube-controller-manager and
// kube-scheduler of the newest Kubernetes docs/support.md supports; etcd, kwok and the kubectl
// the tests drive it with stay the oldest's.
func withKubernetesNext(t *testing.T) func(*stack.Binaries, *stack.Options) {
	next := map[string]string{}
	for _, env := range []string{stack.EnvKubeAPIServerNext, stack.EnvKubeControllerManagerNext, stack.EnvKubeSchedulerNext} {
		if next[env] = os.Getenv(env); next[env] == "" {
			t.Fatalf("%s is not set: run this through make e2e, which builds it", env)
		}
	}
	return func(b *stack.Binaries, _ *stack.Options) {
		b.KubeAPIServer = next[stack.EnvKubeAPIServerNext]
		b.KubeControllerManager = next[stack.EnvKubeControllerManagerNext]
		b.KubeScheduler = next[stack.EnvKubeSchedulerNext]
	}
}

// checkServerVersion fails the test unless the stack's API server reports version want.
func checkServerVersion(ctx context.Context, t *testing.T, e *env, want string) {
	t.Helper()
	if want == "" {
		t.Fatalf("%s is not set: run this through make e2e, which exports it", stack.EnvKubernetesVersion)
	}
	out, err := e.Kubectl(ctx, nil, "version", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Server struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("kubectl version: %v", err)
	}
	if v.Server.GitVersion != want {
		t.Fatalf("the API server reports Kubernetes %q, want %s", v.Server.GitVersion, want)
	}
	e.Step("Kubernetes %s: kube-apiserver, kube-controller-manager and kube-scheduler", want)
}

// setUp starts the stack and installs the packages, with progress on standard error (a cold
// start takes a while; nobody should stare at a silent terminal). Options change the stack
// before it starts.
func setUp(t *testing.T, opts ...func(*stack.Binaries, *stack.Options)) *env {
	t.Helper()
	alone.RLock()
	defer alone.RUnlock()
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := stack.BinariesFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := stack.Packages{
		Function:      envOr(envFunctionXpkg, filepath.Join(root, "_output", "package", "function-kcp-"+runtime.GOARCH+".xpkg")),
		Configuration: envOr(envConfigurationXpkg, filepath.Join(root, "_output", "package", "configuration-kcp.xpkg")),
		Repository:    repository,
		Version:       strings.TrimSpace(string(version)),
		ClusterRole:   filepath.Join(root, "install", "clusterrole.yaml"),
	}
	providerKubernetes := &stack.ProviderKubernetes{
		Package: envOr(stack.EnvProviderKubernetesXpkg, filepath.Join(root, "_output", "e2e-packages",
			"provider-kubernetes-"+stack.ProviderKubernetesVersion+"-"+runtime.GOARCH+".xpkg")),
		KCPCRDs: os.Getenv(kcpstandin.EnvCRDs),
	}
	o := stack.Options{
		Dir:             cluster.OutputDir(t),
		CrossplaneCRDs:  os.Getenv(stack.EnvCrossplaneCRDs),
		CertManagerCRDs: os.Getenv(stack.EnvCertManagerCRDs),
		Progress:        progress{t},
		CrossplaneArgs:  strings.Fields(os.Getenv(envCrossplaneArgs)),
		// provider-kubernetes and kcp stand-ins (TestKCP/StandIn); idle until a scenario uses them.
		ProviderKubernetes: providerKubernetes,
	}
	for _, opt := range opts {
		opt(&bin, &o)
	}
	for _, f := range append(strings.Split(pkgs.Function, ","), pkgs.Configuration, o.ProviderKubernetes.Package) {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v: run the e2e tests through make e2e, which builds the packages first (make build)", err)
		}
	}
	o.Bin = bin
	s, err := stack.Up(t.Context(), o)
	if s != nil {
		t.Cleanup(s.Stop)
	}
	if err != nil {
		t.Fatalf("cannot start the stack (logs in %s): %v", cluster.OutputDir(t), err)
	}
	if err := s.Install(t.Context(), pkgs); err != nil {
		t.Fatalf("cannot install the packages (logs in %s): %v", s.Dir, err)
	}
	return &env{Stack: s, root: root, functionName: stack.FunctionName(repository), t: t}
}

// progress writes the stack's steps to standard error as they happen, and to the test log.
// Lines of TestCrossplaneNext's stack carry its name, so the two versions' figures stay apart.
type progress struct{ t *testing.T }

func (p progress) Write(b []byte) (int, error) {
	prefix := "e2e "
	if p.t.Name() != "TestKCP" {
		prefix = "e2e [" + p.t.Name() + "] "
	}
	fmt.Fprintf(os.Stderr, "%s%s", prefix, b)
	p.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// timeout for one wait of a scenario. Crossplane re-reads required resources (the XRs and
// Secrets one XR reads from another) only on its poll interval, one minute by default, so
// one step can take two of them, and with two lanes of scenarios side by side on CI's two
// cores a step takes longer than alone.
const timeout = 4 * time.Minute
