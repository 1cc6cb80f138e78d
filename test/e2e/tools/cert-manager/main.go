// Command cert-manager-controller runs a subset of cert-manager's controllers
// as a local process against any API server, for end-to-end tests that have no
// cluster to deploy cert-manager into.
//
// cert-manager's own controller main lives in a nested Go module that the Go
// module proxy does not serve, and it imports internal packages that only code
// under github.com/cert-manager/cert-manager may import. Its controllers,
// however, are public packages of the main module: each registers a constructor
// with pkg/controller in init(), so importing a controller package makes it
// known, and this main runs every known controller.
//
// Compared with upstream's main, this one:
//   - runs only what self-signed and CA issuance needs (issuers,
//     clusterissuers, the certificates-* pipeline, the CertificateRequest
//     approver and the CA and self-signed CertificateRequest signers);
//   - never elects a leader: run exactly one instance per API server;
//   - binds metrics and healthz to 127.0.0.1 by default;
//   - reads flags only (no config file, no ACME, no Gateway API).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	"github.com/cert-manager/cert-manager/pkg/healthz"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
	utilfeature "github.com/cert-manager/cert-manager/pkg/util/feature"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	// Controllers register themselves with pkg/controller when imported.
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"

	// Issuer implementations register with pkg/issuer when imported; the
	// (cluster)issuers controllers use them to set an issuer's Ready condition.
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

type options struct {
	kubeconfig               string
	master                   string
	namespace                string
	clusterResourceNamespace string
	controllers              string
	workers                  int
	qps                      float64
	burst                    int
	enableOwnerRef           bool
	featureGates             string
	metricsAddress           string
	healthzAddress           string
	version                  bool
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager-controller:", err)
		os.Exit(1)
	}
}

func run() error {
	known := knownControllers()

	o := options{}
	fs := flag.NewFlagSet("cert-manager-controller", flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty means in-cluster config.")
	fs.StringVar(&o.master, "master", "", "Overrides the API server address of the kubeconfig.")
	fs.StringVar(&o.namespace, "namespace", "", "Only watch this namespace (disables the clusterissuers controller); empty watches all.")
	fs.StringVar(&o.clusterResourceNamespace, "cluster-resource-namespace", "kube-system", "Namespace of the Secrets that ClusterIssuers refer to.")
	fs.StringVar(&o.controllers, "controllers", strings.Join(known, ","), "Comma-separated controllers to run, out of the default list.")
	fs.IntVar(&o.workers, "concurrent-workers", 5, "Workers per controller.")
	fs.Float64Var(&o.qps, "kube-api-qps", 20, "Client QPS towards the API server.")
	fs.IntVar(&o.burst, "kube-api-burst", 50, "Client burst towards the API server.")
	fs.BoolVar(&o.enableOwnerRef, "enable-certificate-owner-ref", false, "Make each Certificate the owner of its Secret.")
	fs.StringVar(&o.featureGates, "feature-gates", "", "cert-manager controller feature gates, e.g. ServerSideApply=true.")
	fs.StringVar(&o.metricsAddress, "metrics-listen-address", "127.0.0.1:9402", "Prometheus metrics address; empty disables.")
	fs.StringVar(&o.healthzAddress, "healthz-listen-address", "127.0.0.1:9403", "Liveness (/livez) address; empty disables.")
	fs.BoolVar(&o.version, "version", false, "Print the cert-manager version and exit.")
	klog.InitFlags(fs) // -v, -logtostderr, ...
	_ = fs.Parse(os.Args[1:])

	if o.version {
		fmt.Println(util.VersionInfo().GitVersion)
		return nil
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	enabled := splitList(o.controllers)
	for _, name := range enabled {
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown controller %q; known: %s", name, strings.Join(known, ", "))
		}
	}
	if o.featureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(o.featureGates); err != nil {
			return fmt.Errorf("--feature-gates: %w", err)
		}
	}

	logf.InitLogs()
	defer logf.FlushLogs()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	log := logf.FromContext(ctx)

	certificates := controller.CertificateOptions{EnableOwnerRef: o.enableOwnerRef}
	withUpstreamBackoff(&certificates)
	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		APIServerHost:      o.master,
		Kubeconfig:         o.kubeconfig,
		KubernetesAPIQPS:   float32(o.qps),
		KubernetesAPIBurst: o.burst,
		Namespace:          o.namespace,
		IssuerOptions: controller.IssuerOptions{
			ClusterResourceNamespace: o.clusterResourceNamespace,
		},
		CertificateOptions: certificates,
	})
	if err != nil {
		return err
	}
	// Every Context built by the factory shares its informer factories; build
	// one to reach them.
	shared, err := factory.Build()
	if err != nil {
		return err
	}

	g, ctx := errgroup.WithContext(ctx)

	if o.metricsAddress != "" {
		ln, err := net.Listen("tcp", o.metricsAddress)
		if err != nil {
			return fmt.Errorf("metrics listener: %w", err)
		}
		srv := shared.Metrics.NewServer(ln)
		g.Go(func() error { return serveUntilDone(ctx, srv, ln) })
		log.Info("serving metrics", "address", ln.Addr().String())
	}
	if o.healthzAddress != "" {
		ln, err := net.Listen("tcp", o.healthzAddress)
		if err != nil {
			return fmt.Errorf("healthz listener: %w", err)
		}
		hs := healthz.NewServer(20 * time.Second)
		g.Go(func() error { return hs.Start(ctx, ln) })
		log.Info("serving healthz", "address", ln.Addr().String())
	}

	// Construct every controller first: constructors register the informers
	// they need with the shared factories, which are started afterwards.
	for _, name := range enabled {
		if name == clusterissuers.ControllerName && o.namespace != "" {
			log.Info("not starting controller: scoped to one namespace", "controller", name)
			continue
		}
		c, err := controller.Known()[name](factory)
		if err != nil {
			return fmt.Errorf("constructing controller %s: %w", name, err)
		}
		log.Info("starting controller", "controller", name)
		g.Go(func() error { return c.Run(o.workers, ctx) })
	}
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())

	err = g.Wait()
	shared.HTTP01ResourceMetadataInformersFactory.Shutdown()
	shared.KubeSharedInformerFactory.Shutdown()
	shared.SharedInformerFactory.Shutdown()
	log.Info("stopped")
	return err
}

// knownControllers lists the controllers registered by the imports above.
func knownControllers() []string {
	var names []string
	for name := range controller.Known() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// serveUntilDone serves srv on ln until ctx ends, then shuts it down.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
