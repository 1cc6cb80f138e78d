package stack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/kcpstandin"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/netns"
)

// Where provider-kubernetes comes from: the repository a Configuration's dependsOn names, the
// newest and oldest versions make/e2e-tools.mk pins (docs/support.md), and the name
// Crossplane's dependency resolution gives the Provider (its repository path as a DNS label).
const (
	ProviderKubernetesRepository    = "xpkg.crossplane.io/crossplane-contrib/provider-kubernetes"
	ProviderKubernetesVersion       = "v1.3.1"
	ProviderKubernetesOldestVersion = "v1.2.0"
	ProviderKubernetesName          = "crossplane-contrib-provider-kubernetes"
	// EnvProviderKubernetesXpkg and EnvProviderKubernetesOldestXpkg name the packages make
	// e2e builds.
	EnvProviderKubernetesXpkg       = "E2E_PROVIDER_KUBERNETES_XPKG"
	EnvProviderKubernetesOldestXpkg = "E2E_PROVIDER_KUBERNETES_OLDEST_XPKG"
)

// ProviderKubernetesArgs are the provider's flags in the e2e, after the health probe address:
// a 10s poll (its default is 10m, so an Object's drift, or a kcp stand-in front coming back,
// would be seen minutes late), watches on (Object.spec.watch needs them), and Secret data
// redacted from Objects' status.atProvider.manifest (--sanitize-secrets, as
// docs/multi-cluster.md tells platforms to run it: an Object copying a Secret into another
// cluster must not write the Secret's keys into its own status).
var ProviderKubernetesArgs = []string{"--poll=10s", "--enable-watches", "--sanitize-secrets"}

// ProviderKubernetes makes provider-kubernetes installable and kcp stand-ins available (see
// Options.ProviderKubernetes).
type ProviderKubernetes struct {
	// Package is provider-kubernetes' .xpkg for this machine's architecture (make e2e builds
	// it and exports E2E_PROVIDER_KUBERNETES_XPKG).
	Package string
	// Version is the package's version (ProviderKubernetesVersion when empty): it is pushed,
	// and a Provider names it, as that version.
	Version string
	// KCPCRDs is kcp's config/crds directory in the module cache (kcpstandin.ResolveCRDs
	// exports E2E_KCP_CRDS).
	KCPCRDs string
	// Args replace ProviderKubernetesArgs when not nil.
	Args []string
}

func (p *ProviderKubernetes) version() string {
	if p.Version != "" {
		return p.Version
	}
	return ProviderKubernetesVersion
}

func (p *ProviderKubernetes) args() []string {
	if p.Args != nil {
		return p.Args
	}
	return ProviderKubernetesArgs
}

// pushProviderKubernetes pushes the provider's package under its public repository's path and
// mirrors that repository to the local registry with an ImageConfig, as for our packages: a
// Configuration depending on it, or a Provider naming it, resolves here.
func (s *Stack) pushProviderKubernetes(ctx context.Context) error {
	p := s.opts.ProviderKubernetes
	repo := repoPath(ProviderKubernetesRepository)
	if _, err := s.Push(ctx, p.Package, repo, p.version()); err != nil {
		return err
	}
	public := strings.TrimSuffix(ProviderKubernetesRepository, "/provider-kubernetes")
	mirror := fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: crossplane-contrib-local-mirror
spec:
  matchImages:
  - type: Prefix
    prefix: %s/
  rewriteImage:
    prefix: %s/%s/
`, public, s.Registry, repoPath(public))
	if err := s.Apply(ctx, []byte(mirror)); err != nil {
		return err
	}
	s.Step("pushed provider-kubernetes %s to %s/%s", p.version(), s.Registry, repo)
	return nil
}

// InstallProviderKubernetes applies a Provider naming provider-kubernetes' public package,
// unless one exists (a Configuration's dependency installs it under the same name), and waits
// until it is Healthy and the package runtime runs it.
func (s *Stack) InstallProviderKubernetes(ctx context.Context) error {
	if s.opts.ProviderKubernetes == nil {
		return errors.New("the stack runs without Options.ProviderKubernetes")
	}
	version := s.opts.ProviderKubernetes.version()
	if _, err := s.Kubectl(ctx, nil, "get", "provider.pkg.crossplane.io", ProviderKubernetesName); err != nil {
		p := fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1
kind: Provider
metadata:
  name: %s
spec:
  package: %s:%s
`, ProviderKubernetesName, ProviderKubernetesRepository, version)
		if err := s.Apply(ctx, []byte(p)); err != nil {
			return err
		}
		s.Step("applied Provider %s (%s:%s)", ProviderKubernetesName, ProviderKubernetesRepository, version)
	}
	if err := s.WaitCondition(ctx, 3*time.Minute, "Healthy", "provider.pkg.crossplane.io", ProviderKubernetesName); err != nil {
		return err
	}
	return s.Eventually(ctx, time.Minute, "provider-kubernetes running", func(context.Context) (bool, string, error) {
		return len(s.Providers()) > 0, "no provider process yet", nil
	})
}

// KCPStandInOptions says which RootShard a kcp stand-in stands in for and with which
// certificates.
type KCPStandInOptions struct {
	Namespace, RootShard string
	// ServingCert and ServingKey (PEM) are what the front serves; ClientCA (PEM) verifies
	// client certificates.
	ServingCert, ServingKey, ClientCA []byte
}

// KCPProxyHost is the Service name a RootShard's kcp is reached at:
// <rootShard>-proxy.<namespace>.svc.cluster.local.
func KCPProxyHost(namespace, rootShard string) string {
	return rootShard + "-proxy." + namespace + ".svc.cluster.local"
}

// KCPProxyURL is the URL of a workspace path through a RootShard's proxy, as a kubeconfig for
// it names: https://<KCPProxyHost>:6443/clusters/<path>.
func KCPProxyURL(namespace, rootShard, path string) string {
	return "https://" + KCPProxyHost(namespace, rootShard) + ":6443/clusters/" + path
}

// KCPStandIn starts a kcp stand-in (package kcpstandin) for a RootShard: its front on the next
// free loopback address (127.0.0.2, 127.0.0.3, ...) on port 6443, a hosts entry mapping
// KCPProxyHost to it in the /etc the providers read, and that address forwarded into every
// provider's network namespace while the front runs (refused there while it is stopped). Backends start on first use and store in
// the stack's etcd. The stack stops it.
func (s *Stack) KCPStandIn(o KCPStandInOptions) (*kcpstandin.StandIn, error) {
	if s.opts.ProviderKubernetes == nil {
		return nil, errors.New("the stack runs without Options.ProviderKubernetes")
	}
	crds, err := s.kcpCRDs()
	if err != nil {
		return nil, err
	}
	name := o.Namespace + "/" + o.RootShard
	// Not s.mu: starting the front calls back into the stack (OnFront).
	s.standInMu.Lock()
	defer s.standInMu.Unlock()
	s.mu.Lock()
	_, exists := s.standIns[name]
	addr := s.nextLoopback() + ":6443"
	s.mu.Unlock()
	if exists {
		return nil, fmt.Errorf("a kcp stand-in for %s runs already", name)
	}
	k, err := kcpstandin.New(kcpstandin.Options{
		Name: name, Addr: addr,
		ServingCert: o.ServingCert, ServingKey: o.ServingKey, ClientCA: o.ClientCA,
		KubeAPIServer: s.opts.Bin.KubeAPIServer, EtcdURL: s.EtcdURL, CRDs: crds, Dir: s.Dir,
		Logf: func(format string, args ...any) { s.Step("KCPStandIn: "+format, args...) },
		OnFront: func(addr string, up bool) {
			if err := s.forwardToPods(addr, up); err != nil {
				s.Step("KCPStandIn: forwarding %s into the providers' network namespaces: %v", addr, err)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.standIns[name] = k
	s.mu.Unlock()
	host := KCPProxyHost(o.Namespace, o.RootShard)
	if err := s.AddHost(host, strings.Split(addr, ":")[0]); err != nil {
		return nil, err
	}
	s.Step("KCPStandIn: %s -> %s (kcp stand-in front for %s)", host, addr, name)
	return k, nil
}

// CloseKCPStandIn stops a RootShard's kcp stand-in (its front and backends) and removes its
// hosts entry; the stack's etcd keeps what the backends stored.
func (s *Stack) CloseKCPStandIn(namespace, rootShard string) {
	name := namespace + "/" + rootShard
	s.mu.Lock()
	k := s.standIns[name]
	delete(s.standIns, name)
	s.mu.Unlock()
	if k == nil {
		return
	}
	k.Close()
	s.mu.Lock()
	if s.hosts != nil {
		delete(s.hosts, KCPProxyHost(namespace, rootShard))
		_ = writeHosts(filepath.Join(s.Dir, "provider-etc"), s.hosts)
	}
	s.mu.Unlock()
	s.Step("KCPStandIn: closed the kcp stand-in for %s", name)
}

// KCPStandInFromSecrets is KCPStandIn with the certificates cert-manager issued for the
// RootShard: the front serves tls.crt and tls.key of Secret <rootShard>-proxy-server (the
// serving certificate of the RootShard's internal proxy, issued by its server CA) and
// verifies clients against tls.crt of Secret <rootShard>-client-ca.
func (s *Stack) KCPStandInFromSecrets(ctx context.Context, namespace, rootShard string) (*kcpstandin.StandIn, error) {
	serving, err := s.SecretData(ctx, namespace, rootShard+"-proxy-server")
	if err != nil {
		return nil, err
	}
	ca, err := s.SecretData(ctx, namespace, rootShard+"-client-ca")
	if err != nil {
		return nil, err
	}
	return s.KCPStandIn(KCPStandInOptions{
		Namespace: namespace, RootShard: rootShard,
		ServingCert: serving["tls.crt"], ServingKey: serving["tls.key"], ClientCA: ca["tls.crt"],
	})
}

// loopbacks numbers the loopback addresses handed out (stand-in fronts, relays into real kcp
// pods) in this process, not per stack: stacks that run side by side (TestKCP and
// TestCrossplaneNext) share one network namespace, and each front listens on port 6443.
var loopbacks atomic.Int32

// nextLoopback is a loopback address no stack of this process was handed before: 127.0.0.2,
// 127.0.0.3, ...
func (s *Stack) nextLoopback() string {
	return fmt.Sprintf("127.0.0.%d", 1+loopbacks.Add(1))
}

// ReachFromProviders makes a server in another network namespace (a real kcp pod's: file ns,
// /proc/<pid>/ns/net, the server listening at target there) reachable by the providers as
// host, on target's port: a relay on a fresh loopback address of the stack's namespace
// dials target inside ns for each connection, the providers' hosts file maps host to that
// address, and it is forwarded into their network namespaces. stop undoes all three.
func (s *Stack) ReachFromProviders(host, ns, target string) (stop func(), err error) {
	_, port, err := net.SplitHostPort(target)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ip := s.nextLoopback()
	s.mu.Unlock()
	addr := net.JoinHostPort(ip, port)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	go netns.Serve(l, func() (net.Conn, error) { return netns.Dial(ns, target) })
	stop = func() {
		_ = l.Close()
		_ = s.forwardToPods(addr, false)
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.hosts, host)
		_ = writeHosts(filepath.Join(s.Dir, "provider-etc"), s.hosts)
	}
	if err := s.AddHost(host, ip); err != nil {
		stop()
		return nil, err
	}
	if err := s.forwardToPods(addr, true); err != nil {
		stop()
		return nil, err
	}
	s.Step("%s -> %s, relayed to %s in %s", host, addr, target, ns)
	return stop, nil
}

// kcpCRDs loads kcp's CRDs once.
func (s *Stack) kcpCRDs() ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kcpCRDDocs == nil {
		docs, err := kcpstandin.LoadCRDs(s.opts.ProviderKubernetes.KCPCRDs)
		if err != nil {
			return nil, err
		}
		s.kcpCRDDocs = docs
	}
	return s.kcpCRDDocs, nil
}

// AddHost maps a host name to an address in the hosts file of the /etc the providers read.
// Go's resolver notices the change within seconds, so it applies to running providers too.
func (s *Stack) AddHost(name, addr string) error {
	if _, err := s.etcDir(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hosts[name] = addr
	return writeHosts(filepath.Join(s.Dir, "provider-etc"), s.hosts)
}

// etcDir is the directory providers see as /etc: hosts (localhost and AddHost's entries) and
// nsswitch.conf (files only: there is no DNS server in the network namespace).
func (s *Stack) etcDir() (string, error) {
	dir := filepath.Join(s.Dir, "provider-etc")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts != nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "nsswitch.conf"), []byte("hosts: files\n"), 0o644); err != nil {
		return "", err
	}
	s.hosts = map[string]string{}
	return dir, writeHosts(dir, s.hosts)
}

// writeHosts replaces dir/hosts in one rename, so a reader never sees half a file.
func writeHosts(dir string, hosts map[string]string) error {
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", hosts[n], n)
	}
	tmp := filepath.Join(dir, ".hosts.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "hosts"))
}
