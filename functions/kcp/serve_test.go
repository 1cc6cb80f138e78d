package main

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// blockingFunction counts the calls inside RunFunction at once and holds each until released.
type blockingFunction struct {
	fnv1.UnimplementedFunctionRunnerServiceServer
	inside, most atomic.Int32
	release      chan struct{}
}

func (f *blockingFunction) RunFunction(ctx context.Context, _ *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	n := f.inside.Add(1)
	defer f.inside.Add(-1)
	for {
		m := f.most.Load()
		if n <= m || f.most.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-f.release:
	case <-ctx.Done():
	}
	return &fnv1.RunFunctionResponse{}, nil
}

func TestServerBoundsConcurrentCalls(t *testing.T) {
	cases := map[string]struct {
		reason string
		bound  uint32
		calls  int
	}{
		"OneAtATime": {reason: "With a bound of 1, a second call waits at the caller until the first returns.", bound: 1, calls: 5},
		"Four":       {reason: "Calls beyond the bound wait; calls within it run together.", bound: 4, calls: 12},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fn := &blockingFunction{release: make(chan struct{})}
			srv, err := newServer(fn, serveOptions{insecure: true, maxRecvBytes: 4 << 20, maxConcurrentCalls: tc.bound})
			if err != nil {
				t.Fatal(err)
			}
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = srv.Serve(lis) }()
			defer srv.Stop()

			conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close() //nolint:errcheck // Closing a test connection.
			client := fnv1.NewFunctionRunnerServiceClient(conn)

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			done := make(chan error, tc.calls)
			for range tc.calls {
				go func() {
					_, err := client.RunFunction(ctx, &fnv1.RunFunctionRequest{})
					done <- err
				}()
			}
			// Let every call reach the server, or wait at the caller, then release them one by one.
			deadline := time.Now().Add(10 * time.Second)
			for fn.inside.Load() < int32(tc.bound) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			for range tc.calls {
				fn.release <- struct{}{}
				if err := <-done; err != nil {
					t.Fatalf("\n%s\nRunFunction(...): %v", tc.reason, err)
				}
			}
			if got := fn.most.Load(); got != int32(tc.bound) {
				t.Errorf("\n%s\nmost calls inside RunFunction at once: got %d, want %d", tc.reason, got, tc.bound)
			}
		})
	}
}

func TestNewServerRefusesBadSettings(t *testing.T) {
	cases := map[string]struct {
		reason string
		o      serveOptions
		want   string
	}{
		"NoCredentials": {
			reason: "Without a certificates directory or --insecure the server would serve nothing Crossplane can reach; say which flag to set.",
			o:      serveOptions{maxConcurrentCalls: 1},
			want:   "--tls-certs-dir",
		},
		"MissingCertificates": {
			reason: "A certificates directory without tls.crt names the directory.",
			o:      serveOptions{tlsCertsDir: "/nonexistent", maxConcurrentCalls: 1},
			want:   `--tls-certs-dir "/nonexistent"`,
		},
		"InsecureWithCertificates": {
			reason: "--insecure beside a certificates directory would silently serve plaintext: refuse, naming both.",
			o:      serveOptions{insecure: true, tlsCertsDir: "/etc/tls", maxConcurrentCalls: 1},
			want:   `--insecure and --tls-certs-dir (or TLS_SERVER_CERTS_DIR) "/etc/tls" are both set`,
		},
		"NoCalls": {
			reason: "A bound of zero calls would serve nothing.",
			o:      serveOptions{insecure: true},
			want:   "concurrent calls",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := newServer(&blockingFunction{}, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("\n%s\nnewServer(...): got error %v, want one containing %q", tc.reason, err, tc.want)
			}
		})
	}
}
