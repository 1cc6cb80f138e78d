package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/crossplane/function-sdk-go"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/proto/v1beta1"
	grpcprometheus "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"
)

// serveOptions are the server settings main takes from its flags.
type serveOptions struct {
	network, address string
	tlsCertsDir      string
	insecure         bool
	metricsAddress   string
	maxRecvBytes     int
	// maxConcurrentCalls is advertised to callers as HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS.
	maxConcurrentCalls uint32
}

// serve runs the function's gRPC server until it fails.
func serve(ctx context.Context, fn fnv1.FunctionRunnerServiceServer, o serveOptions) error {
	srv, err := newServer(fn, o)
	if err != nil {
		return err
	}
	lis, err := (&net.ListenConfig{}).Listen(ctx, o.network, o.address)
	if err != nil {
		return fmt.Errorf("cannot listen for %s connections at %q (--network, --address): %w", o.network, o.address, err)
	}
	if o.metricsAddress != "" {
		ms := &http.Server{Addr: o.metricsAddress, Handler: promhttp.Handler(), ReadHeaderTimeout: 30 * time.Second}
		go func() { _ = ms.ListenAndServe() }() // Metrics are best effort; the function serves without them.
	}
	return srv.Serve(lis)
}

// newServer is function-sdk-go's Serve, less the listening, with one addition the SDK does not
// expose: a bound on concurrent calls. The bound is enforced by the caller's gRPC client, which
// holds further calls until one finishes, so a request's bytes are not read, and its protobuf not
// decoded, until the server has room for it. Crossplane runs up to 100 reconciles at once;
// unbounded, each holds a decoded request and its response in memory together (see
// docs/performance.md). The work is CPU-bound, so a few calls per CPU keep every CPU busy and
// the queue moves to the caller at no cost in throughput.
func newServer(fn fnv1.FunctionRunnerServiceServer, o serveOptions) (*grpc.Server, error) {
	// The SDK's options load the mTLS credentials: server key pair, and client certificates
	// required and verified against ca.crt.
	if o.insecure && o.tlsCertsDir != "" {
		// The SDK would let --insecure win and serve plaintext beside certificates someone
		// meant to be used.
		return nil, fmt.Errorf("--insecure and --tls-certs-dir (or TLS_SERVER_CERTS_DIR) %q are both set: the server would serve plaintext and ignore the certificates; drop --insecure to serve mutual TLS, or unset the directory for local development", o.tlsCertsDir)
	}
	sdk := &function.ServeOptions{}
	for _, apply := range []function.ServeOption{function.MTLSCertificates(o.tlsCertsDir), function.Insecure(o.insecure)} {
		if err := apply(sdk); err != nil {
			return nil, fmt.Errorf("cannot load the server's TLS credentials from --tls-certs-dir %q: %w", o.tlsCertsDir, err)
		}
	}
	if sdk.Credentials == nil {
		return nil, errors.New("no TLS credentials: set --tls-certs-dir (or TLS_SERVER_CERTS_DIR), or --insecure for local development only")
	}
	if o.maxConcurrentCalls == 0 {
		return nil, errors.New("the bound on concurrent calls must be at least 1")
	}

	opts := []grpc.ServerOption{
		grpc.Creds(sdk.Credentials),
		grpc.MaxRecvMsgSize(o.maxRecvBytes),
		grpc.MaxConcurrentStreams(o.maxConcurrentCalls),
	}
	var metrics *grpcprometheus.ServerMetrics
	if o.metricsAddress != "" {
		metrics = grpcprometheus.NewServerMetrics()
		opts = append(opts, grpc.ChainUnaryInterceptor(metrics.UnaryServerInterceptor()))
		prometheus.MustRegister(metrics)
	}

	srv := grpc.NewServer(opts...)
	reflection.Register(srv)
	fnv1.RegisterFunctionRunnerServiceServer(srv, fn)
	v1beta1.RegisterFunctionRunnerServiceServer(srv, function.ServeBeta(fn))

	if metrics != nil {
		metrics.InitializeMetrics(srv)
	}
	return srv, nil
}
