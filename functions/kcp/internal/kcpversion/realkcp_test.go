package kcpversion

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// The tests below hold the gates to kcp's own binaries: KCP_BIN is a directory holding them,
// built from kcp's release KCP_TAG (kcpimage.DefaultTag unless set; KCP_TAG=main for a build
// of kcp's main branch, which counts as the newest kcp). They are skipped without KCP_BIN, as
// CI has no kcp binaries; etcd is E2E_ETCD, or bin/etcd, which `make test` builds.

// TestCacheServerStoragePrefixOnRealKCP: kcp's cache-server, started on a local etcd with
// --etcd-prefix=/probe-cache, must write its keys where CacheServerStoragePrefix says.
func TestCacheServerStoragePrefixOnRealKCP(t *testing.T) {
	kcpBin, tag, etcdBin := realKCP(t)
	dir := t.TempDir()
	client := startEtcd(t, etcdBin, dir)
	ports := freePorts(t, 1)
	ca := filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(ca, []byte(testworld.CAPEM()), 0o600); err != nil {
		t.Fatal(err)
	}
	const asked = "/probe-cache"
	start(t, filepath.Join(dir, "cache-server.log"), filepath.Join(kcpBin, "cache-server"),
		"--etcd-servers="+client, "--etcd-prefix="+asked, "--client-ca-file="+ca,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports[0]), "--cert-dir="+filepath.Join(dir, "certs"))

	want := CacheServerStoragePrefix(tag, asked)
	var got []string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		got = topLevelKeys(t, etcdBin, client)
		if len(got) > 0 {
			break
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("kcp %s's cache-server started with --etcd-prefix=%s wrote under %v; CacheServerStoragePrefix says %s (logs in %s)", tag, asked, got, want, dir)
	}
}

// TestEmbeddedCacheStoragePrefixOnRealKCP: kcp started with --etcd-prefix=/probe-root and its
// embedded cache must, once ready, hold its keys under the shard's prefix and where
// EmbeddedCacheStoragePrefix says the cache is: /cache apart on v0.32.3, the shard's own
// prefix on kcp main.
func TestEmbeddedCacheStoragePrefixOnRealKCP(t *testing.T) {
	kcpBin, tag, etcdBin := realKCP(t)
	dir := t.TempDir()
	client := startEtcd(t, etcdBin, dir)
	const asked = "/probe-root"
	if err := startKCP(t, kcpBin, dir, client, "--etcd-prefix="+asked); err != nil {
		t.Fatalf("kcp %s: %v (logs in %s)", tag, err, dir)
	}
	want := []string{asked}
	if cache := EmbeddedCacheStoragePrefix(tag, asked); cache != asked {
		want = append(want, cache)
	}
	sort.Strings(want)
	if got := topLevelKeys(t, etcdBin, client); !slices.Equal(got, want) {
		t.Errorf("kcp %s started with --etcd-prefix=%s and an embedded cache wrote under %v; EmbeddedCacheStoragePrefix says %v (logs in %s)", tag, asked, got, want, dir)
	}
}

// TestObjectLimitFlagsOnRealKCP: kcp started with the object limit flags must become ready
// where SupportsObjectLimit says it has them, and refuse to start where it says not.
func TestObjectLimitFlagsOnRealKCP(t *testing.T) {
	kcpBin, tag, etcdBin := realKCP(t)
	dir := t.TempDir()
	client := startEtcd(t, etcdBin, dir)
	// The flags as parts/kcpserver renders spec.objectLimit (TestObjectLimitArgs pins them).
	ready := startKCP(t, kcpBin, dir, client, "--logical-cluster-total-object-limit=300", "--logical-cluster-object-count-scan-interval=10s")
	switch want := SupportsObjectLimit(tag); {
	case want && ready != nil:
		t.Errorf("SupportsObjectLimit(%q) is true, but kcp did not start with the flags: %v (logs in %s)", tag, ready, dir)
	case !want && ready == nil:
		t.Errorf("SupportsObjectLimit(%q) is false, but kcp started with the flags (logs in %s)", tag, dir)
	}
}

// realKCP is KCP_BIN, the kcp release it was built from, and etcd; it skips the test without
// KCP_BIN.
func realKCP(t *testing.T) (kcpBin, tag, etcdBin string) {
	t.Helper()
	kcpBin = os.Getenv("KCP_BIN")
	if kcpBin == "" {
		t.Skip("KCP_BIN is not set: set it to a directory holding kcp's binaries (kcp " + kcpimage.DefaultTag + ", or KCP_TAG) to check the gates against them")
	}
	tag = os.Getenv("KCP_TAG")
	if tag == "" {
		tag = kcpimage.DefaultTag
	}
	etcdBin = os.Getenv("E2E_ETCD")
	if etcdBin == "" {
		etcdBin = filepath.Join("..", "..", "..", "..", "bin", "etcd")
	}
	return kcpBin, tag, etcdBin
}

// startKCP runs `kcp start` with an embedded cache on etcd at client, its data and log in
// dir, and args, until the test ends; it returns once kcp is ready, or why it is not.
func startKCP(t *testing.T, kcpBin, dir, client string, args ...string) error {
	t.Helper()
	port := freePorts(t, 1)[0]
	exited := start(t, filepath.Join(dir, "kcp.log"), filepath.Join(kcpBin, "kcp"), append([]string{"start",
		"--root-directory=" + filepath.Join(dir, "kcp"), "--etcd-servers=" + client,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port)}, args...)...)
	return waitReady(t.Context(), fmt.Sprintf("https://127.0.0.1:%d/readyz", port), 3*time.Minute, exited)
}

// startEtcd runs a single-member etcd in dir until the test ends and returns its client URL.
func startEtcd(t *testing.T, etcdBin, dir string) string {
	t.Helper()
	ports := freePorts(t, 3)
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	start(t, filepath.Join(dir, "etcd.log"), etcdBin, "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer, "--initial-cluster=default="+peer,
		fmt.Sprintf("--listen-metrics-urls=http://127.0.0.1:%d", ports[2]))
	return client
}

// waitReady waits until url answers 200 (kcp serves /readyz to anyone), or until the process
// has exited.
func waitReady(ctx context.Context, url string, timeout time.Duration, exited <-chan struct{}) error {
	// kcp's serving certificate is its own, made at start; readiness is all that is asked.
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // A local probe of a certificate made a moment ago.
	last := "no answer"
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		select {
		case <-exited:
			return errors.New("it exited")
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			last = err.Error()
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = resp.Status
	}
	return fmt.Errorf("%s not ready after %s: %s", url, timeout, last)
}

// topLevelKeys lists the first path segment of every key in etcd, "/" included.
func topLevelKeys(t *testing.T, etcdBin, endpoint string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(filepath.Dir(etcdBin), "etcdctl"), "--endpoints="+endpoint, "get", "", "--prefix", "--keys-only").Output()
	if err != nil {
		return nil // not serving yet
	}
	seen := map[string]bool{}
	for _, k := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(strings.TrimPrefix(k, "/"), "/")
		seen["/"+first] = true
	}
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// start runs bin with args until the test ends, its output in log. The channel is closed
// when the process exits.
func start(t *testing.T, log, bin string, args ...string) <-chan struct{} {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = f.Close()
	})
	return exited
}

// freePorts returns n ports free on 127.0.0.1 now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close() //nolint:errcheck // Only its port is needed.
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
