package kcpversion

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestCacheServerStoragePrefixOnRealKCP holds CacheServerStoragePrefix to what kcp's own
// cache-server does: started from KCP_BIN (kcp's default release, kcpimage.DefaultTag) on a
// local etcd with --etcd-prefix=/probe-cache, it must write its keys where the gate says.
// Skipped without KCP_BIN, as CI has no kcp binaries; etcd is E2E_ETCD, or bin/etcd, which
// `make test` builds.
func TestCacheServerStoragePrefixOnRealKCP(t *testing.T) {
	kcpBin := os.Getenv("KCP_BIN")
	if kcpBin == "" {
		t.Skip("KCP_BIN is not set: set it to a directory holding kcp's cache-server (kcp " + kcpimage.DefaultTag + ") to check the gate against it")
	}
	etcdBin := os.Getenv("E2E_ETCD")
	if etcdBin == "" {
		etcdBin = filepath.Join("..", "..", "..", "..", "bin", "etcd")
	}
	dir := t.TempDir()
	ports := freePorts(t, 4)
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	start(t, filepath.Join(dir, "etcd.log"), etcdBin, "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer, "--initial-cluster=default="+peer,
		fmt.Sprintf("--listen-metrics-urls=http://127.0.0.1:%d", ports[2]))
	ca := filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(ca, []byte(testworld.CAPEM()), 0o600); err != nil {
		t.Fatal(err)
	}
	const asked = "/probe-cache"
	start(t, filepath.Join(dir, "cache-server.log"), filepath.Join(kcpBin, "cache-server"),
		"--etcd-servers="+client, "--etcd-prefix="+asked, "--client-ca-file="+ca,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports[3]), "--cert-dir="+filepath.Join(dir, "certs"))

	want := CacheServerStoragePrefix(kcpimage.DefaultTag, asked)
	var got []string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		got = topLevelKeys(t, etcdBin, client)
		if len(got) > 0 {
			break
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("kcp %s's cache-server started with --etcd-prefix=%s wrote under %v; CacheServerStoragePrefix says %s (logs in %s)", kcpimage.DefaultTag, asked, got, want, dir)
	}
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

// start runs bin with args until the test ends, its output in log.
func start(t *testing.T, log, bin string, args ...string) {
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
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = f.Close()
	})
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
