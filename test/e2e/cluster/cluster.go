package cluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Environment variables naming the binaries; make/e2e-tools.mk and make/tools.mk export them.
const (
	EnvEtcd          = "E2E_ETCD"
	EnvKubeAPIServer = "E2E_KUBE_APISERVER"
	EnvKubectl       = "E2E_KUBECTL"
)

// Options configures Start.
type Options struct {
	// Etcd, KubeAPIServer and Kubectl are paths to the binaries.
	Etcd, KubeAPIServer, Kubectl string

	// Dir receives the PKI, the kubeconfig and the logs (etcd.log, kube-apiserver.log,
	// kubectl.log). It is emptied first. Defaults to OutputDir(t).
	Dir string

	// ReadyTimeout bounds the wait for /readyz. Defaults to 2 minutes.
	ReadyTimeout time.Duration
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
	// HTTP is an admin client for URL.
	HTTP *http.Client

	kubectl    string
	kubectlLog io.Writer
	logMu      sync.Mutex
	procs      []*process
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
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	c, err := start(o)
	if c != nil {
		t.Cleanup(c.Stop)
	}
	if err != nil {
		t.Fatalf("cannot start the control plane (logs in %s): %v", o.Dir, err)
	}
	t.Logf("kube-apiserver ready at %s; kubeconfig and logs in %s", c.URL, c.Dir)
	return c
}

func start(o Options) (*Cluster, error) {
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
	ports, err := freePorts(4)
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
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	etcd, err := startProcess(filepath.Join(o.Dir, "etcd.log"), o.Etcd,
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

	api, err := startProcess(filepath.Join(o.Dir, "kube-apiserver.log"), o.KubeAPIServer,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(apiPort),
		"--cert-dir="+o.Dir,
		"--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--tls-cert-file="+p.ServerCert, "--tls-private-key-file="+p.ServerKey,
		"--client-ca-file="+p.CACert,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+p.SAPub,
		"--service-account-signing-key-file="+p.SAKey,
		"--authorization-mode=RBAC",
		"--profiling=false",
	)
	if err != nil {
		return c, err
	}
	c.procs = append(c.procs, api)

	c.Kubeconfig = filepath.Join(o.Dir, "admin.kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: admin
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: e2e
  context:
    cluster: e2e
    user: admin
current-context: e2e
`, c.URL, p.CACert, p.AdminCert, p.AdminKey)
	if err := os.WriteFile(c.Kubeconfig, []byte(kc), 0o600); err != nil {
		return c, err
	}

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
	return c, c.waitReady(o.ReadyTimeout)
}

// waitReady polls /readyz until it answers 200, a process exits, or the timeout passes.
func (c *Cluster) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		for _, p := range c.procs {
			select {
			case <-p.done:
				return fmt.Errorf("%s exited: %v; last lines of %s:\n%s", filepath.Base(p.cmd.Path), p.err, p.log, tail(p.log, 20))
			default:
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
	cmd.Env = append(os.Environ(), "HTTPS_PROXY=", "HTTP_PROXY=", "https_proxy=", "http_proxy=")
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

// Stop ends kube-apiserver, then etcd: SIGTERM, then SIGKILL after 10 seconds.
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].stop(10 * time.Second)
	}
	c.procs = nil
	if f, ok := c.kubectlLog.(io.Closer); ok {
		_ = f.Close()
	}
}

type process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startProcess starts bin with args, standard output and error to logPath. The process is
// killed if the thread that started it (and so the test process) dies.
func startProcess(logPath, bin string, args ...string) (*process, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// freePorts returns n distinct free TCP ports on 127.0.0.1. Inside a private network
// namespace nothing else competes for them.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
