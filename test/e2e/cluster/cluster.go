package cluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Environment variables naming the binaries; make/e2e-tools.mk and make/tools.mk export them.
const (
	EnvEtcd                  = "E2E_ETCD"
	EnvKubeAPIServer         = "E2E_KUBE_APISERVER"
	EnvKubectl               = "E2E_KUBECTL"
	EnvKubeControllerManager = "E2E_KUBE_CONTROLLER_MANAGER"
)

// Options configures Start.
type Options struct {
	// Etcd, KubeAPIServer and Kubectl are paths to the binaries.
	Etcd, KubeAPIServer, Kubectl string

	// KubeControllerManager, when set, is started with the controllers that RBAC and
	// deletion need: ClusterRole aggregation (Crossplane's permissions are aggregated),
	// garbage collection (Crossplane deletes composed resources through owner references),
	// namespaces and service accounts; and those that run workloads on nodes: Deployments,
	// ReplicaSets, StatefulSets, PodDisruptionBudgets, volume binding, node lifecycle. Pods
	// stay Pending unless something schedules them and plays their nodes (package stack).
	KubeControllerManager string

	// Dir receives the PKI, the kubeconfig and the logs (etcd.log, kube-apiserver.log,
	// kube-controller-manager.log, kubectl.log). It is emptied first. Start defaults it to
	// OutputDir(t); New requires it.
	Dir string

	// ReadyTimeout bounds the wait for /readyz. Defaults to 2 minutes.
	ReadyTimeout time.Duration

	// APIServerArgs are appended to kube-apiserver's command line (a flag given twice takes
	// the last value): --profiling=true lets a measurement force a garbage collection
	// (/debug/pprof/heap?gc=1).
	APIServerArgs []string
}

// FromEnv returns Options with the binaries named by E2E_ETCD, E2E_KUBE_APISERVER and
// E2E_KUBECTL. It fails the test (it does not skip it) when one is unset or missing: run the
// tests through make, which builds and exports them.
func FromEnv(t testing.TB) Options {
	t.Helper()
	get := func(env string) string {
		p := os.Getenv(env)
		if p == "" {
			t.Fatalf("%s is not set: run end-to-end tests through make (make e2e-schema), which builds bin/ and exports it", env)
		}
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v (make e2e-tools builds it)", env, p, err)
		}
		return p
	}
	return Options{Etcd: get(EnvEtcd), KubeAPIServer: get(EnvKubeAPIServer), Kubectl: get(EnvKubectl)}
}

// WithControllerManager adds the kube-controller-manager named by E2E_KUBE_CONTROLLER_MANAGER
// to o, failing the test when it is unset or missing.
func WithControllerManager(t testing.TB, o Options) Options {
	t.Helper()
	p := os.Getenv(EnvKubeControllerManager)
	if p == "" {
		t.Fatalf("%s is not set: run end-to-end tests through make, which builds bin/ and exports it", EnvKubeControllerManager)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s=%s: %v (make e2e-tools builds it)", EnvKubeControllerManager, p, err)
	}
	o.KubeControllerManager = p
	return o
}

// OutputDir is _output/e2e/<test name> in the root of the Go module the test runs in.
func OutputDir(t testing.TB) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "_output", "e2e", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
}

// ModuleRoot is the nearest directory at or above the working directory holding a go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// Cluster is a running etcd and kube-apiserver.
type Cluster struct {
	// Dir holds the PKI, Kubeconfig and the logs.
	Dir string
	// Kubeconfig is the path of an admin (system:masters) kubeconfig.
	Kubeconfig string
	// URL is the kube-apiserver's address, https://127.0.0.1:<port>.
	URL string
	// EtcdURL is etcd's client URL (plain HTTP on 127.0.0.1), for more API servers that keep
	// their objects under a prefix of their own (the kcp stand-in).
	EtcdURL string
	// HTTP is an admin client for URL.
	HTTP *http.Client

	kubectl    string
	kubectlLog io.Writer
	logMu      sync.Mutex
	procs      []*proc.Process
	pki        pki
	// outage is the kube-apiserver StopAPIServer stopped (guarded by logMu).
	outage *apiOutage
}

// UserKubeconfig writes a kubeconfig for user name in groups, authenticated by a client
// certificate of the cluster's CA, and returns its path. Components that should run with
// their production permissions (Crossplane) use it instead of the admin kubeconfig.
func (c *Cluster) UserKubeconfig(name string, groups ...string) (string, error) {
	kp, err := c.pki.CA.Issue(certs.Leaf{CommonName: name, Organization: groups, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		return "", err
	}
	base := filepath.Join(c.Dir, "users", strings.NewReplacer(":", "_", "/", "_").Replace(name))
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	if err := writePair(kp, base+".crt", base+".key"); err != nil {
		return "", err
	}
	return base + ".kubeconfig", writeKubeconfig(base+".kubeconfig", c.URL, c.pki.CACert, base+".crt", base+".key")
}

// CAFile is the cluster CA's certificate, which every kubeconfig of the cluster names.
func (c *Cluster) CAFile() string { return c.pki.CACert }

// writeKubeconfig writes a kubeconfig with one cluster, one certificate user and one context.
func writeKubeconfig(path, url, ca, cert, key string) error {
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: user
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: e2e
  context:
    cluster: e2e
    user: user
current-context: e2e
`, url, ca, cert, key)
	return os.WriteFile(path, []byte(kc), 0o600)
}

// Start runs etcd and kube-apiserver on free 127.0.0.1 ports, waits until /readyz answers
// ok and registers their shutdown with t.Cleanup. It must run inside RunInNetNS.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	if !InNetNS() {
		t.Fatal("cluster.Start must run inside a private network namespace: call cluster.RunInNetNS from TestMain")
	}
	if o.Dir == "" {
		o.Dir = OutputDir(t)
	}
	c, err := New(o)
	if c != nil {
		t.Cleanup(c.Stop)
	}
	if err != nil {
		t.Fatalf("cannot start the control plane (logs in %s): %v", o.Dir, err)
	}
	t.Logf("kube-apiserver ready at %s; kubeconfig and logs in %s", c.URL, c.Dir)
	return c
}

// New is Start for callers without a testing.TB (the demo). It must run inside a private
// network namespace (see Run). On error, the returned Cluster, if not nil, must still be
// stopped.
func New(o Options) (*Cluster, error) {
	if !InNetNS() {
		return nil, errors.New("the control plane must run inside a private network namespace (cluster.Run)")
	}
	if o.Dir == "" {
		return nil, errors.New("cluster.Options.Dir is required")
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	if err := os.RemoveAll(o.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	p, err := writePKI(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("PKI: %w", err)
	}
	ports, err := FreePorts(4)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, etcdMetrics, apiPort := ports[0], ports[1], ports[2], ports[3]
	c := &Cluster{Dir: o.Dir, URL: "https://127.0.0.1:" + strconv.Itoa(apiPort), kubectl: o.Kubectl}

	klog, err := os.Create(filepath.Join(o.Dir, "kubectl.log"))
	if err != nil {
		return nil, err
	}
	c.kubectlLog = klog

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	c.EtcdURL = etcdURL
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	etcd, err := proc.Start(filepath.Join(o.Dir, "etcd.log"), nil, o.Etcd,
		"--name=e2e",
		"--data-dir="+filepath.Join(o.Dir, "etcd-data"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL,
		fmt.Sprintf("--listen-metrics-urls=http://127.0.0.1:%d", etcdMetrics),
		"--unsafe-no-fsync",
	)
	if err != nil {
		return c, err
	}
	c.procs = append(c.procs, etcd)

	api, err := proc.Start(filepath.Join(o.Dir, "kube-apiserver.log"), nil, o.KubeAPIServer, append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--cert-dir=" + o.Dir,
		"--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--tls-cert-file=" + p.ServerCert, "--tls-private-key-file=" + p.ServerKey,
		"--client-ca-file=" + p.CACert,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + p.SAPub,
		"--service-account-signing-key-file=" + p.SAKey,
		"--authorization-mode=RBAC",
		"--profiling=false",
	}, o.APIServerArgs...)...,
	)
	if err != nil {
		return c, err
	}
	c.procs = append(c.procs, api)

	c.Kubeconfig = filepath.Join(o.Dir, "admin.kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, c.URL, p.CACert, p.AdminCert, p.AdminKey); err != nil {
		return c, err
	}
	c.pki = p

	caPEM, err := os.ReadFile(p.CACert)
	if err != nil {
		return c, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
	if err != nil {
		return c, err
	}
	c.HTTP = &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:           nil, // Never leave the namespace, whatever HTTPS_PROXY says.
			TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		},
	}
	if err := c.waitReady(o.ReadyTimeout); err != nil {
		return c, err
	}
	if o.KubeControllerManager == "" {
		return c, nil
	}
	kcmPort, err := FreePorts(1)
	if err != nil {
		return c, err
	}
	kcm, err := proc.Start(filepath.Join(o.Dir, "kube-controller-manager.log"), nil, o.KubeControllerManager,
		"--kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(kcmPort[0]),
		// The workload controllers roll out Deployments and StatefulSets onto the nodes kwok
		// plays (see package stack); the disruption controller keeps PodDisruptionBudgets'
		// status; the volume controllers bind and protect a StatefulSet's claims; the node
		// lifecycle controller lifts a new node's not-ready taint once it reports Ready. No
		// taint-eviction-controller: a node the harness starves of CPU must not lose its pods.
		// The resource quota controller computes the usage of the teams' quotas
		// (examples/shared-kcp/quota.yaml): until it has, the API server refuses every
		// object a quota counts ("status unknown for quota").
		"--controllers="+strings.Join([]string{
			"garbage-collector-controller", "namespace-controller", "clusterrole-aggregation-controller",
			"serviceaccount-controller", "serviceaccount-token-controller", "root-ca-certificate-publisher-controller",
			"deployment-controller", "replicaset-controller", "statefulset-controller", "disruption-controller",
			"persistentvolume-binder-controller", "persistentvolumeclaim-protection-controller",
			"persistentvolume-protection-controller", "node-lifecycle-controller", "resourcequota-controller",
		}, ","),
		// A node whose Lease kwok renews late on two busy cores is not unreachable.
		"--node-monitor-grace-period=2m",
		"--service-account-private-key-file="+p.SAKey,
		"--root-ca-file="+p.CACert,
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--cert-dir="+filepath.Join(o.Dir, "kcm-certs"),
	)
	if err != nil {
		return c, err
	}
	c.procs = append(c.procs, kcm)
	return c, nil
}

// waitReady polls /readyz until it answers 200, a process exits, or the timeout passes.
func (c *Cluster) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		for _, p := range c.procs {
			if err := p.Exited(); err != nil {
				return err
			}
		}
		resp, err := c.HTTP.Get(c.URL + "/readyz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, b)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("/readyz not ok after %s: %s", timeout, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Kubectl runs kubectl with the admin kubeconfig, stdin as its standard input (may be nil).
// It returns standard output; a failure's error includes standard error. Every command and
// its output is appended to kubectl.log.
func (c *Cluster) Kubectl(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, c.kubectl, append([]string{"--kubeconfig=" + c.Kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), proc.NoProxy...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()

	c.logMu.Lock()
	fmt.Fprintf(c.kubectlLog, "$ kubectl %s\n%s%s", strings.Join(args, " "), stdout.Bytes(), stderr.Bytes())
	if err != nil {
		fmt.Fprintf(c.kubectlLog, "# %v\n", err)
	}
	c.logMu.Unlock()

	if err != nil {
		return stdout.Bytes(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// Get reads an API path with the admin client and decodes its JSON into out. It is for the
// harness's own loops that poll every second (the package runtime): a
// kubectl process each time costs far more CPU than the request. A missing object is
// ErrNotFound.
func (c *Cluster) Get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close() //nolint:errcheck // Read to the end below; nothing to do if closing fails.
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return json.Unmarshal(b, out)
	case http.StatusNotFound:
		return fmt.Errorf("GET %s: %w", path, ErrNotFound)
	default:
		return fmt.Errorf("GET %s: HTTP %d: %s", path, resp.StatusCode, bytes.TrimSpace(b))
	}
}

// ErrNotFound is what Get returns for a path the API server has no object at.
var ErrNotFound = errors.New("not found")

// Process is the cluster's process whose log is <name>.log (etcd, kube-apiserver,
// kube-controller-manager), or nil.
func (c *Cluster) Process(name string) *proc.Process {
	for _, p := range c.procs {
		if filepath.Base(p.Log) == name+".log" {
			return p
		}
	}
	return nil
}

// Exited reports the first of the cluster's processes that has ended, or nil.
func (c *Cluster) Exited() error {
	for _, p := range c.procs {
		if err := p.Exited(); err != nil {
			return err
		}
	}
	return nil
}

// Stop ends kube-controller-manager, kube-apiserver, then etcd: SIGTERM, then SIGKILL after
// 10 seconds.
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].Stop(10 * time.Second)
	}
	c.procs = nil
	if f, ok := c.kubectlLog.(io.Closer); ok {
		_ = f.Close()
	}
}
