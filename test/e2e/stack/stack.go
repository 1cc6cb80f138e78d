// Package stack brings up, as local processes inside a private network namespace, what a
// platform engineer's cluster has when they install configuration-kcp: etcd, kube-apiserver,
// kube-controller-manager (with the workload, disruption, volume binding and node lifecycle
// controllers), kube-scheduler, cert-manager's controllers, Crossplane core and its RBAC
// manager running with the permissions the Crossplane Helm chart grants, an OCI registry
// holding the packages, and a package runtime that runs functions from their packages.
//
// What is not real: kwok's fake nodes stand in for kubelets (FakeNodes, two zones; kwok marks
// the pods the scheduler binds to them running and ready, and no container runs), a pool of
// PersistentVolumes stands in for a storage provisioner, and this package plays Crossplane's
// package runtime (Crossplane runs with --package-runtime=Function=External): it starts the
// function binary it extracts from the installed package, with a serving certificate signed
// by Crossplane's CA, and points the FunctionRevision at it. With Options.ProviderKubernetes it
// plays the runtime for Providers too (provider-kubernetes, each in a network namespace of its
// own, as its service account's user) and starts kcp stand-ins (package kcpstandin: not kcp)
// for them to act on.
package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/kcpstandin"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Environment variables naming the binaries, exported by make/tools.mk and make/e2e-tools.mk.
const (
	EnvCertManager = "E2E_CERT_MANAGER_CONTROLLER"
	// EnvCertManagerOldest is the oldest cert-manager docs/support.md supports.
	EnvCertManagerOldest = "E2E_CERT_MANAGER_CONTROLLER_OLDEST"
	EnvCrossplaneCore    = "CROSSPLANE_CORE"
	// EnvCrossplaneCoreNext is the newer Crossplane core the e2e also runs on.
	EnvCrossplaneCoreNext = "CROSSPLANE_CORE_NEXT"
	// EnvCrossplaneCLI may be empty: the demo runs without the CLI (see Push and Install).
	EnvCrossplaneCLI = "CROSSPLANE"

	// EnvKubernetesVersion is the oldest Kubernetes docs/support.md supports, which the
	// binaries above are.
	EnvKubernetesVersion = "E2E_KUBERNETES_VERSION"
	// The newest Kubernetes docs/support.md supports (E2E_KUBERNETES_NEXT_VERSION): the
	// control plane of TestCrossplaneNext when EnvKubernetesNext is set.
	EnvKubernetesNext            = "E2E_KUBERNETES_NEXT"
	EnvKubeAPIServerNext         = "E2E_KUBE_APISERVER_NEXT"
	EnvKubeControllerManagerNext = "E2E_KUBE_CONTROLLER_MANAGER_NEXT"
	EnvKubeSchedulerNext         = "E2E_KUBE_SCHEDULER_NEXT"
	EnvKubernetesNextVersion     = "E2E_KUBERNETES_NEXT_VERSION"
)

// Binaries are the paths of the programs the stack runs.
type Binaries struct {
	Etcd, KubeAPIServer, KubeControllerManager, Kubectl string
	KubeScheduler, Kwok                                 string
	CertManager                                         string
	CrossplaneCore                                      string
	// CrossplaneCLI is "" when there is none: the stack then does what the CLI would
	// with go-containerregistry and kubectl.
	CrossplaneCLI string
}

// BinariesFromEnv reads the binaries' paths from the variables the Makefile exports.
func BinariesFromEnv() (Binaries, error) {
	var errs []error
	get := func(env string) string {
		p := os.Getenv(env)
		if p == "" {
			errs = append(errs, fmt.Errorf("%s is not set: run this through make, which builds bin/ and exports it", env))
			return ""
		}
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (make e2e-tools and make tools build it)", env, err))
		}
		return p
	}
	b := Binaries{
		Etcd:                  get(cluster.EnvEtcd),
		KubeAPIServer:         get(cluster.EnvKubeAPIServer),
		KubeControllerManager: get(cluster.EnvKubeControllerManager),
		Kubectl:               get(cluster.EnvKubectl),
		KubeScheduler:         get(EnvKubeScheduler),
		Kwok:                  get(EnvKwok),
		CertManager:           get(EnvCertManager),
		CrossplaneCore:        get(EnvCrossplaneCore),
	}
	if os.Getenv(EnvCrossplaneCLI) != "" {
		b.CrossplaneCLI = get(EnvCrossplaneCLI)
	}
	return b, errors.Join(errs...)
}

// Options configures Up.
type Options struct {
	Bin Binaries
	// Dir receives the PKI, kubeconfigs, data and every process's log. It is emptied first.
	Dir string
	// CrossplaneCRDs and CertManagerCRDs are directories of CRD manifests: cluster/crds of
	// the Crossplane core module and deploy/crds of the cert-manager module (see ResolveCRDs).
	CrossplaneCRDs, CertManagerCRDs string
	// Progress receives one line per step, with the time since Up began. May be nil.
	Progress io.Writer
	// CrossplaneArgs are added to `crossplane core start`'s flags (to try settings such as
	// --circuit-breaker-burst).
	CrossplaneArgs []string
	// ProviderKubernetes, when set, makes provider-kubernetes installable and kcp stand-ins
	// available: Crossplane runs Providers with the External runtime too, and `core init` gets
	// the Helm chart's default activation (--activation=*) so that providers' managed
	// resources are active; Install pushes provider-kubernetes' package and mirrors its public
	// repository; the package runtime runs each active ProviderRevision's binary as a process
	// (see runProvider); KCPStandIn starts kcp stand-ins. Nothing runs until a scenario
	// installs the provider (InstallProviderKubernetes, or a Configuration's dependency) or
	// starts a stand-in.
	ProviderKubernetes *ProviderKubernetes
}

// Stack is a running control plane.
type Stack struct {
	*cluster.Cluster

	// Registry is the host:port of the OCI registry.
	Registry string
	// CrossplaneMetrics is the address of Crossplane core's Prometheus metrics.
	CrossplaneMetrics string

	opts     Options
	began    time.Time
	mu       sync.Mutex
	procs    []*proc.Process
	registry *registry
	runtime  *packageRuntime

	// standIns are the kcp stand-ins by "<namespace>/<rootShard>"; hosts the entries of the
	// providers' hosts file (nil until first needed); kcpCRDDocs kcp's CRDs, loaded once.
	standIns   map[string]*kcpstandin.StandIn
	hosts      map[string]string
	kcpCRDDocs [][]byte
	// standInMu serialises KCPStandIn.
	standInMu sync.Mutex
	// podForwards are the addresses every provider's network namespace reaches besides the
	// API server (the kcp stand-in fronts, relays).
	podForwards []string
	// rbacNet is the RBAC manager's network namespace (see startCrossplane).
	rbacNet *podNet

	// clusterB is the second cluster, started on first use (ClusterB; clusterBMu serialises
	// that, s.mu guards the field once set).
	clusterBMu  sync.Mutex
	clusterB    *ClusterB
	clusterBErr error
}

// Up starts everything. On error, the returned Stack, if not nil, must still be stopped.
func Up(ctx context.Context, o Options) (*Stack, error) {
	s := &Stack{opts: o, began: time.Now(), standIns: map[string]*kcpstandin.StandIn{}}
	s.Step("starting etcd, kube-apiserver and kube-controller-manager")
	c, err := cluster.New(cluster.Options{
		Etcd: o.Bin.Etcd, KubeAPIServer: o.Bin.KubeAPIServer, Kubectl: o.Bin.Kubectl,
		KubeControllerManager: o.Bin.KubeControllerManager,
		Dir:                   o.Dir,
	})
	if c != nil {
		s.Cluster = c
	}
	if err != nil {
		return s, fmt.Errorf("control plane: %w", err)
	}
	s.Step("kube-apiserver ready at %s", c.URL)

	if err := s.startNodes(ctx); err != nil {
		return s, fmt.Errorf("kube-scheduler and kwok: %w", err)
	}
	s.Step("kube-scheduler running; %d kwok fake nodes Ready in two zones (kwok stands in for kubelets: pods are marked running, no container runs)", len(FakeNodes))

	if err := s.startCertManager(ctx); err != nil {
		return s, fmt.Errorf("cert-manager: %w", err)
	}
	s.Step("cert-manager controllers running")
	if err := s.startCrossplane(ctx); err != nil {
		return s, fmt.Errorf("crossplane: %w", err)
	}
	s.Step("Crossplane core and RBAC manager ready")
	if err := s.startRegistry(); err != nil {
		return s, fmt.Errorf("registry: %w", err)
	}
	s.Step("OCI registry at %s", s.Registry)
	s.runtime = newPackageRuntime(s)
	go s.runtime.run(ctx)
	return s, nil
}

// Step prints a progress line: the time since Up began, and what happened.
func (s *Stack) Step(format string, args ...any) {
	if s.opts.Progress == nil {
		return
	}
	fmt.Fprintf(s.opts.Progress, "[%6.1fs] %s\n", time.Since(s.began).Seconds(), fmt.Sprintf(format, args...))
}

// Exited reports the first process of the stack that has ended, or nil.
func (s *Stack) Exited() error {
	if s.Cluster != nil {
		if err := s.Cluster.Exited(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	b := s.clusterB
	s.mu.Unlock()
	if b != nil {
		if err := b.Exited(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if err := p.Exited(); err != nil {
			return err
		}
	}
	for _, k := range s.standIns {
		if err := k.Exited(); err != nil {
			return err
		}
	}
	return nil
}

// Stop ends every process, the last started first.
func (s *Stack) Stop() {
	if s.runtime != nil {
		s.runtime.stop()
	}
	s.mu.Lock()
	procs := s.procs
	s.procs = nil
	standIns := s.standIns
	s.standIns = map[string]*kcpstandin.StandIn{}
	b := s.clusterB
	s.clusterB = nil
	s.mu.Unlock()
	for _, k := range standIns {
		k.Close()
	}
	if b != nil {
		b.stop()
	}
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(10 * time.Second)
	}
	if s.rbacNet != nil {
		s.rbacNet.close()
	}
	if s.registry != nil {
		s.registry.stop()
	}
	if s.Cluster != nil {
		s.Cluster.Stop()
	}
}

// Process is the stack's process whose log is <name>.log ("crossplane", "kube-apiserver",
// "function-<revision>", ...), or nil.
func (s *Stack) Process(name string) *proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if filepath.Base(p.Log) == name+".log" {
			return p
		}
	}
	return s.Cluster.Process(name)
}

// forget removes a process the stack stopped on purpose from its processes, so that Exited
// does not report it.
func (s *Stack) forget(p *proc.Process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.procs = slices.DeleteFunc(s.procs, func(q *proc.Process) bool { return q == p })
}

// start runs a process of the stack with its log in Dir/<name>.log.
func (s *Stack) start(name string, env []string, bin string, args ...string) (*proc.Process, error) {
	p, err := proc.Start(filepath.Join(s.Dir, name+".log"), env, bin, args...)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	return p, nil
}
