// Command function-kcp is the composition function of configuration-kcp: it composes kcp
// installations (RootShard, and later Shard, FrontProxy, CacheServer, Kubeconfig and
// VirtualWorkspace) from Crossplane composite resources.
package main

import (
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

	MetricsAddress     string `default:":8080" help:"Address of the Prometheus metrics server; empty disables it."`
	MaxRecvMessageSize int    `default:"4" help:"Maximum size of received messages in MB."`
}

// Run the function server.
func (c *CLI) Run() error {
	log, err := function.NewLogger(c.Debug)
	if err != nil {
		return err
	}
	return function.Serve(&Function{log: log},
		function.Listen(c.Network, c.Address),
		function.MTLSCertificates(c.TLSCertsDir),
		function.Insecure(c.Insecure),
		function.MaxRecvMessageSize(c.MaxRecvMessageSize*1024*1024),
		function.WithMetricsServer(c.MetricsAddress),
	)
}

func main() {
	ctx := kong.Parse(&CLI{}, kong.Description("A Crossplane composition function that composes kcp installations."))
	ctx.FatalIfErrorf(ctx.Run())
}
