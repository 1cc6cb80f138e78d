// Command function-kcp is the composition function of configuration-kcp: it composes kcp
// installations from Crossplane composite resources, one kind per row of the table in fn.go
// (newTable), a row for each kind the API defines (v1alpha1.Kinds).
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/alecthomas/kong"
	"github.com/crossplane/function-sdk-go"
)

// CLI of the function server.
type CLI struct {
	Debug bool `help:"Emit debug logs in addition to info logs." short:"d"`

	Network     string `default:"tcp" help:"Network on which to listen for gRPC connections."`
	Address     string `default:":9443" help:"Address at which to listen for gRPC connections."`
	TLSCertsDir string `env:"TLS_SERVER_CERTS_DIR" help:"Directory containing server certs (tls.key, tls.crt) and the CA used to verify client certificates (ca.crt)."`
	Insecure    bool   `help:"Run without mTLS credentials. For local development with crossplane composition render only."`

	MetricsAddress         string        `default:":8080" help:"Address of the Prometheus metrics server; empty disables it."`
	MaxRecvMessageSize     int           `default:"4" help:"Maximum size of received messages in MB."`
	MaxConcurrentCalls     uint32        `default:"0" help:"RunFunction calls served at once; callers hold further calls until one finishes. 0 means two per CPU (GOMAXPROCS): the work is CPU-bound, so that keeps every CPU busy while memory stays bounded."`
	CircuitBreakerCooldown time.Duration `default:"5m" help:"Crossplane's --circuit-breaker-cooldown. While an XR's circuit breaker may be dropping its watch events, the function answers with a short TTL; set this when Crossplane runs with another cooldown."`
	SoftMemoryLimit        int64         `default:"20" help:"Go soft memory limit in MiB: the garbage collector works harder as the function nears it. GOMEMLIMIT, when set, takes precedence; 0 disables it."`
}

// Run the function server.
func (c *CLI) Run() error {
	log, err := function.NewLogger(c.Debug)
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && c.SoftMemoryLimit > 0 {
		debug.SetMemoryLimit(c.SoftMemoryLimit << 20)
	}
	calls := c.MaxConcurrentCalls
	if calls == 0 {
		calls = uint32(2 * runtime.GOMAXPROCS(0))
	}
	return serve(context.Background(), newFunction(log, breaker{cooldown: c.CircuitBreakerCooldown}), serveOptions{
		network:            c.Network,
		address:            c.Address,
		tlsCertsDir:        c.TLSCertsDir,
		insecure:           c.Insecure,
		metricsAddress:     c.MetricsAddress,
		maxRecvBytes:       c.MaxRecvMessageSize * 1024 * 1024,
		maxConcurrentCalls: calls,
	})
}

func main() {
	ctx := kong.Parse(&CLI{}, kong.Description("A Crossplane composition function that composes kcp installations."))
	ctx.FatalIfErrorf(ctx.Run())
}
