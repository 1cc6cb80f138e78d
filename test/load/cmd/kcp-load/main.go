// Command kcp-load measures the function server as Crossplane uses it: it starts bin/function-kcp
// with mutual TLS on 127.0.0.1, builds a converged RootShard request through it, then for each
// number of concurrent callers sends RunFunction for a fixed duration and prints latency
// percentiles, throughput and the server's resident memory, sampled through each level.
// `make load` runs it.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// rootShard is examples/basic's RootShard.
const rootShard = `{"apiVersion":"kcp.crossplane.io/v1alpha1","kind":"RootShard","metadata":{"name":"root","namespace":"kcp"},
"spec":{"external":{"hostname":"api.example.com","port":6443},
"certificates":{"issuerRef":{"group":"cert-manager.io","kind":"ClusterIssuer","name":"kcp-selfsigned"}},
"cache":{},"etcd":{"endpoints":["http://etcd.kcp.svc.cluster.local:2379"]}}}`

func main() {
	fn := flag.String("function", "bin/function-kcp", "the function binary")
	duration := flag.Duration("duration", 10*time.Second, "how long each concurrency level sends requests")
	callers := flag.String("callers", "1,10,100", "comma-separated numbers of concurrent callers")
	flag.Parse()
	if err := run(*fn, *duration, *callers); err != nil {
		fmt.Fprintln(os.Stderr, "kcp-load:", err)
		os.Exit(1)
	}
}

func run(fn string, duration time.Duration, callerList string) error {
	var levels []int
	for _, s := range strings.Split(callerList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-callers: %q is not a positive number", s)
		}
		levels = append(levels, n)
	}
	dir, err := os.MkdirTemp("", "kcp-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir) //nolint:errcheck // Best effort.
	creds, err := writeCerts(dir)
	if err != nil {
		return err
	}
	addr, err := freeAddress()
	if err != nil {
		return err
	}
	cmd := exec.Command(fn, "--address="+addr, "--tls-certs-dir="+dir, "--metrics-address=")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill() //nolint:errcheck // Best effort.

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return err
	}
	defer conn.Close() //nolint:errcheck // Best effort.
	client := fnv1.NewFunctionRunnerServiceClient(conn)
	call := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return client.RunFunction(ctx, req)
	}
	// The server may take a moment to listen.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err = call(fnrequest.New(rootShard)); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("the function does not answer: %w", err)
	}
	req, err := fnrequest.Converged(call, rootShard)
	if err != nil {
		return err
	}

	fmt.Printf("converged RootShard over mTLS, %s per level, %s\n", duration, fn)
	fmt.Printf("server memory sampled every %s during each level: mean and max resident set (anonymous + file-backed at the max)\n\n", sampleEvery)
	fmt.Println("| callers | requests | req/s | p50 | p99 | max | server RSS mean | server RSS max (anon + file) |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, n := range levels {
		samples := sample(cmd.Process.Pid)
		lat, errs := load(call, req, n, duration)
		mem := samples()
		if errs > 0 {
			return fmt.Errorf("%d of %d calls failed with %d callers", errs, len(lat)+errs, n)
		}
		if len(mem) == 0 {
			return fmt.Errorf("no memory samples of the server (pid %d)", cmd.Process.Pid)
		}
		mean, top := 0.0, mem[0]
		for _, m := range mem {
			mean += m.rss / float64(len(mem))
			if m.rss > top.rss {
				top = m
			}
		}
		fmt.Printf("| %d | %d | %.0f | %s | %s | %s | %.1f MiB | %.1f MiB (%.1f + %.1f) |\n", n, len(lat), float64(len(lat))/duration.Seconds(),
			pct(lat, 50), pct(lat, 99), lat[len(lat)-1].Round(time.Microsecond), mean, top.rss, top.anon, top.file)
	}
	return nil
}

const sampleEvery = 50 * time.Millisecond

// sample reads the server's memory every sampleEvery until the returned function is called,
// which returns the samples.
func sample(pid int) func() []memory {
	var out []memory
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if m, err := readMemory(pid); err == nil {
					out = append(out, m)
				}
			}
		}
	}()
	return func() []memory {
		close(done)
		<-finished
		return out
	}
}

// load runs n callers for d and returns the sorted latencies of the calls that succeeded.
func load(call fnrequest.RunFunc, req *fnv1.RunFunctionRequest, n int, d time.Duration) ([]time.Duration, int) {
	var mu sync.Mutex
	var all []time.Duration
	errs := 0
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			bad := 0
			for time.Now().Before(stop) {
				start := time.Now()
				if _, err := call(req); err != nil {
					bad++
					continue
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			all = append(all, mine...)
			errs += bad
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(all)
	return all, errs
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(0, min(i, len(sorted))-1)].Round(time.Microsecond)
}

// memory is the process's resident set from /proc: the total, its anonymous part (heap,
// stacks: what the function's work allocates) and its file-backed part (the binary's pages).
type memory struct{ rss, anon, file float64 }

func readMemory(pid int) (memory, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.Atoi(f[1])
		mib := float64(kb) / 1024
		switch f[0] {
		case "VmRSS:":
			m.rss = mib
		case "RssAnon:":
			m.anon = mib
		case "RssFile:":
			m.file = mib
		}
	}
	return m, nil
}

// writeCerts writes the server's tls.crt, tls.key and the client CA (ca.crt) into dir, as
// Crossplane's package runtime mounts them, and returns the client's credentials.
func writeCerts(dir string) (credentials.TransportCredentials, error) {
	ca, err := certs.NewCA("kcp-load")
	if err != nil {
		return nil, err
	}
	server, err := ca.Issue(certs.Leaf{CommonName: "function-kcp", Usage: x509.ExtKeyUsageServerAuth, IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		return nil, err
	}
	client, err := ca.Issue(certs.Leaf{CommonName: "crossplane", Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		return nil, err
	}
	for name, b := range map[string][]byte{"tls.crt": server.CertPEM, "tls.key": server.KeyPEM, "ca.crt": ca.PEM} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, err
		}
	}
	pair, err := tls.X509KeyPair(client.CertPEM, client.KeyPEM)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.PEM)
	return credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12}), nil
}

func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close() //nolint:errcheck // Only its port is needed.
	return l.Addr().String(), nil
}
