// Package kcpstandin is a STAND-IN for kcp, not kcp: kcp v0.32.3 builds only from its full
// source tree, which CI does not have, so end-to-end tests that need "something kcp-shaped at
// https://<rootshard>-proxy.<namespace>.svc.cluster.local:6443" (provider-kubernetes objects
// acting inside kcp) get this instead, named KCPStandIn wherever they rely on it.
//
// What it is:
//
//   - A front ("kcp stand-in front"), one per RootShard, listening on a loopback address of the
//     test's private network namespace. It serves the TLS certificate it is given (in the e2e,
//     the one cert-manager issued for the RootShard's proxy), verifies client certificates
//     against the client CA it is given, admits only certificates whose Organization includes
//     system:kcp:admin (403 otherwise), and reverse-proxies /clusters/<workspace path>/... to
//     that path's backend with the prefix stripped, authenticated upstream as an admin.
//     Anything else is 404.
//   - A backend per workspace path: a real kube-apiserver (the harness's binary), started on
//     the first request for the path, storing under --etcd-prefix=/kcp-standin/<name>/<path>
//     in the harness's etcd, serving kcp v0.32.3's own CRDs from the pinned Go module
//     (core.kcp.io Shards and LogicalClusters, tenancy.kcp.io Workspaces and WorkspaceTypes,
//     apis.kcp.io, ...) next to every built-in kind. Cluster-scoped objects, ClusterRoleBindings
//     among them, therefore exist per path, as they do per logical cluster in kcp.
//
// What differs from kcp: no logical clusters in one server, no real workspaces (creating a
// Workspace object creates no workspace: nothing reconciles it, its path has no backend until
// something requests it, and it never becomes Ready), no shards or scheduling onto them, no
// APIExports/APIBindings behaviour, no virtual workspaces, no /services/ URLs, no wildcard
// (cross-workspace) requests, and no kcp authorization: the front checks the admin group and
// nothing else, and every admitted request acts as a cluster admin of its path's backend.
package kcpstandin

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// AdminGroup is the group kcp treats as its administrators; the front admits only client
// certificates with this Organization.
const AdminGroup = "system:kcp:admin"

// Options configures New.
type Options struct {
	// Name identifies the kcp installation this stands in for, such as "<namespace>/<rootshard>":
	// it prefixes the backends' etcd keys and names their logs.
	Name string
	// Addr is the front's listen address, such as 127.0.0.2:6443 (any 127.0.0.0/8 address of
	// the network namespace's loopback). With port 0, a free port is chosen on the first
	// start and kept.
	Addr string
	// ServingCert and ServingKey (PEM) are the front's serving certificate (with its chain)
	// and key.
	ServingCert, ServingKey []byte
	// ClientCA (PEM) verifies client certificates.
	ClientCA []byte

	// KubeAPIServer is the kube-apiserver binary the backends run.
	KubeAPIServer string
	// EtcdURL is the etcd the backends store in, each under its own prefix.
	EtcdURL string
	// CRDs are the CRDs every backend serves, as JSON (LoadCRDs).
	CRDs [][]byte
	// Dir receives the backends' PKI and logs (kcp-standin-<name>-<path>.log).
	Dir string
	// Logf, if set, receives a line per backend started and per front start and stop.
	Logf func(format string, args ...any)
	// OnFront, if set, is called after the front starts (up) and stops (!up), with its
	// address: the harness mirrors the front's reachability into the network namespaces it
	// forwards it to, so that clients there see connections refused while it is stopped.
	OnFront func(addr string, up bool)
}

// StandIn is a running kcp stand-in for one kcp installation.
type StandIn struct {
	o       Options
	tlsConf *tls.Config
	pki     backendPKI
	// upstream is the admin transport to every backend.
	upstream http.RoundTripper

	mu sync.Mutex
	// addr is where the front listens: Options.Addr, its port chosen on the first start if 0.
	addr     string
	backends map[string]*backend
	// watches counts the open watch requests by "<path> <backend path>".
	watches map[string]int
	// refused counts the requests refused for want of the admin group, by user.
	refused map[string]int
	front   *http.Server
	closed  bool
}

// backend is one workspace path's kube-apiserver. ready closes once it serves the CRDs, or
// failed to (err).
type backend struct {
	path  string
	url   *url.URL
	proc  *proc.Process
	proxy *httputil.ReverseProxy
	ready chan struct{}
	err   error
}

// New checks the options and starts the front. No backend runs until a request, or a test
// helper, names its path.
func New(o Options) (*StandIn, error) {
	switch {
	case o.Name == "", o.Addr == "", o.KubeAPIServer == "", o.EtcdURL == "", o.Dir == "":
		return nil, errors.New("kcpstandin: Name, Addr, KubeAPIServer, EtcdURL and Dir are required")
	case len(o.CRDs) == 0:
		return nil, errors.New("kcpstandin: no CRDs (LoadCRDs)")
	}
	cert, err := tls.X509KeyPair(o.ServingCert, o.ServingKey)
	if err != nil {
		return nil, fmt.Errorf("kcpstandin: serving certificate: %w", err)
	}
	cas := x509.NewCertPool()
	if !cas.AppendCertsFromPEM(o.ClientCA) {
		return nil, errors.New("kcpstandin: no certificate in the client CA")
	}
	dir := filepath.Join(o.Dir, "kcp-standin-"+fileName(o.Name))
	p, err := writeBackendPKI(dir)
	if err != nil {
		return nil, err
	}
	s := &StandIn{
		o: o,
		tlsConf: &tls.Config{
			Certificates: []tls.Certificate{cert},
			// Verified if given: a request without one gets a 401 that says why, rather than a
			// failed handshake.
			ClientAuth: tls.VerifyClientCertIfGiven,
			ClientCAs:  cas,
			MinVersion: tls.VersionTLS12,
		},
		pki:      p,
		backends: map[string]*backend{},
		watches:  map[string]int{},
		refused:  map[string]int{},
	}
	s.upstream, err = p.transport()
	if err != nil {
		return nil, err
	}
	return s, s.StartFront()
}

// Addr is the front's listen address.
func (s *StandIn) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// StartFront starts the front again after StopFront, on the same address with the same
// certificates; every backend and its objects are as they were.
func (s *StandIn) StartFront() error {
	addr, err := s.startFront()
	if err == nil && s.o.OnFront != nil {
		s.o.OnFront(addr, true)
	}
	return err
}

func (s *StandIn) startFront() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("kcpstandin: closed")
	}
	if s.front != nil {
		return s.addr, nil
	}
	if s.addr == "" {
		s.addr = s.o.Addr
	}
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return "", fmt.Errorf("kcp stand-in front: %w", err)
	}
	s.addr = l.Addr().String()
	srv := &http.Server{
		Handler:           s,
		TLSConfig:         s.tlsConf.Clone(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	s.front = srv
	s.logf("kcp stand-in front for %s listening on %s", s.o.Name, s.addr)
	return s.addr, nil
}

// StopFront stops the front, as if kcp became unreachable: the listener and every open
// connection (watches included) close, and new connections are refused until StartFront.
func (s *StandIn) StopFront() {
	s.mu.Lock()
	if s.front == nil {
		s.mu.Unlock()
		return
	}
	_ = s.front.Close()
	s.front = nil
	addr := s.addr
	s.mu.Unlock()
	s.logf("kcp stand-in front for %s stopped", s.o.Name)
	// Outside the lock: the callback may call back (Exited, Addr).
	if s.o.OnFront != nil {
		s.o.OnFront(addr, false)
	}
}

// Close stops the front and every backend.
func (s *StandIn) Close() {
	s.StopFront()
	s.mu.Lock()
	s.closed = true
	bs := s.backends
	s.backends = map[string]*backend{}
	s.mu.Unlock()
	for _, b := range bs {
		<-b.ready
		if b.proc != nil {
			b.proc.Stop(10 * time.Second)
		}
	}
}

// Exited reports a backend that has ended, or nil.
func (s *StandIn) Exited() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.backends {
		select {
		case <-b.ready:
			if b.proc != nil {
				if err := b.proc.Exited(); err != nil {
					return err
				}
			}
		default:
		}
	}
	return nil
}

// RESTConfig is an admin configuration for the backend of a workspace path, reaching it
// directly (not through the front, so it works while the front is stopped). It starts the
// backend if none runs yet.
func (s *StandIn) RESTConfig(ctx context.Context, path string) (*rest.Config, error) {
	b, err := s.backend(ctx, path)
	if err != nil {
		return nil, err
	}
	return s.pki.restConfig(b.url.String()), nil
}

// Dynamic is a dynamic client for the backend of a workspace path (see RESTConfig).
func (s *StandIn) Dynamic(ctx context.Context, path string) (dynamic.Interface, error) {
	c, err := s.RESTConfig(ctx, path)
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(c)
}

// Kubeconfig writes an admin kubeconfig for the backend of a workspace path (see RESTConfig)
// and returns its file, for kubectl.
func (s *StandIn) Kubeconfig(ctx context.Context, path string) (string, error) {
	b, err := s.backend(ctx, path)
	if err != nil {
		return "", err
	}
	f := filepath.Join(s.pki.dir, "admin-"+fileName(path)+".kubeconfig")
	return f, os.WriteFile(f, Kubeconfig(b.url.String(), s.pki.caPEM, s.pki.adminCert, s.pki.adminKey), 0o600)
}

// Kubeconfig returns a kubeconfig for server with the CA and client key pair embedded (PEM),
// the shape of the kubeconfig Secrets provider-kubernetes reads.
func Kubeconfig(server string, ca, cert, key []byte) []byte {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: kcp
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: kcp
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: kcp
  context:
    cluster: kcp
    user: kcp
current-context: kcp
`, server, b64(ca), b64(cert), b64(key))
}

// backend returns the running backend of path, starting it if needed; concurrent callers for
// the same path wait for the same start. A failed start is forgotten, so the next call tries
// again.
func (s *StandIn) backend(ctx context.Context, path string) (*backend, error) {
	if !validPath(path) {
		return nil, fmt.Errorf("kcpstandin: %q is not a workspace path", path)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("kcpstandin: closed")
	}
	b, ok := s.backends[path]
	if !ok {
		b = &backend{path: path, ready: make(chan struct{})}
		s.backends[path] = b
		go s.start(b)
	}
	s.mu.Unlock()
	select {
	case <-b.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return b, nil
}

// start runs b's kube-apiserver and creates the CRDs in it. Its own deadline, not a caller's:
// a request that gives up must not leave a half-started backend behind.
func (s *StandIn) start(b *backend) {
	defer close(b.ready)
	began := time.Now()
	b.err = s.run(b)
	if b.err != nil {
		b.err = fmt.Errorf("kcp stand-in backend %s for path %s: %w", s.o.Name, b.path, b.err)
		s.mu.Lock()
		delete(s.backends, b.path)
		s.mu.Unlock()
		if b.proc != nil {
			b.proc.Stop(5 * time.Second)
			b.proc = nil
		}
		s.logf("%v", b.err)
		return
	}
	s.logf("kcp stand-in backend for %s path %s ready at %s after %.1fs (%d CRDs)", s.o.Name, b.path, b.url.Host, time.Since(began).Seconds(), len(s.o.CRDs))
}

func (s *StandIn) run(b *backend) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ports, err := cluster.FreePorts(1)
	if err != nil {
		return err
	}
	b.url = &url.URL{Scheme: "https", Host: "127.0.0.1:" + strconv.Itoa(ports[0])}
	p := s.pki
	b.proc, err = proc.Start(filepath.Join(s.o.Dir, "kcp-standin-"+fileName(s.o.Name)+"-"+fileName(b.path)+".log"), nil, s.o.KubeAPIServer,
		"--etcd-servers="+s.o.EtcdURL,
		"--etcd-prefix="+EtcdPrefix(s.o.Name, b.path),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(ports[0]),
		"--cert-dir="+p.dir,
		"--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--tls-cert-file="+p.serverCertFile, "--tls-private-key-file="+p.serverKeyFile,
		"--client-ca-file="+p.caFile,
		"--service-account-issuer=https://kcp-standin.invalid",
		"--service-account-key-file="+p.saPubFile,
		"--service-account-signing-key-file="+p.saKeyFile,
		"--authorization-mode=RBAC",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	b.proxy = s.reverseProxy(b.url)

	rc := p.restConfig(b.url.String())
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return err
	}
	if err := poll(ctx, func() (bool, string) {
		if err := b.proc.Exited(); err != nil {
			return true, err.Error()
		}
		resp, err := hc.Get(b.url.String() + "/readyz")
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	}); err != nil {
		return fmt.Errorf("/readyz: %w", err)
	}
	if err := b.proc.Exited(); err != nil {
		return err
	}

	dc, err := dynamic.NewForConfig(rc)
	if err != nil {
		return err
	}
	crds := dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	var names []string
	for _, j := range s.o.CRDs {
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(j); err != nil {
			return err
		}
		if _, err := crds.Create(ctx, &u, metav1.CreateOptions{FieldManager: "kcp-standin"}); err != nil && !kerrors.IsAlreadyExists(err) {
			return fmt.Errorf("CRD %s: %w", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	for _, n := range names {
		if err := poll(ctx, func() (bool, string) {
			u, err := crds.Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return true, ""
				}
			}
			return false, "not Established"
		}); err != nil {
			return fmt.Errorf("CRD %s: %w", n, err)
		}
	}
	return nil
}

// EtcdPrefix is where the backend of a workspace path stores its objects.
func EtcdPrefix(name, path string) string {
	return "/kcp-standin/" + name + "/" + path
}

// poll calls check every 250ms until it is done or ctx ends.
func poll(ctx context.Context, check func() (done bool, status string)) error {
	for {
		done, status := check()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; last: %s", ctx.Err(), status)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (s *StandIn) logf(format string, args ...any) {
	if s.o.Logf != nil {
		s.o.Logf(format, args...)
	}
}

// fileName makes a name or path usable in a file name.
func fileName(s string) string {
	return strings.NewReplacer("/", "_", ":", "_").Replace(s)
}
