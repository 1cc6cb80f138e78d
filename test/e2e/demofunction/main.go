// Command demofunction is a test stand-in, not part of configuration-kcp: the composition
// function of the e2e's own Database XRD (group e2e.example.org), the service cluster's API
// that the real-kcp scenario publishes into kcp with a PublishedAPI. For each Database it
// composes Secret <name>-connection in the XR's namespace, holding key address, and sets
// status.address to the same value, as a platform's database Composition would write its
// connection details. make e2e packages it only when KCP_BIN is set; the scenario installs it
// as a Function, which the e2e's package runtime serves as it serves function-kcp.
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"os"

	"github.com/crossplane/function-sdk-go"
	v1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/crossplane/function-sdk-go/response"
)

// demo composes a Database.
type demo struct {
	v1.UnimplementedFunctionRunnerServiceServer
}

// Address is what a Database's connection details say: its name, namespace and size.
func Address(name, namespace, size string) string {
	return fmt.Sprintf("%s.%s.%s.databases.e2e.example.org:5432", name, namespace, size)
}

// RunFunction composes the connection Secret and sets status.address.
func (demo) RunFunction(_ context.Context, req *v1.RunFunctionRequest) (*v1.RunFunctionResponse, error) {
	rsp := response.To(req, response.DefaultTTL)
	xr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, fmt.Errorf("cannot read the observed Database: %w", err))
		return rsp, nil
	}
	name, ns := xr.Resource.GetName(), xr.Resource.GetNamespace()
	size, _ := xr.Resource.GetString("spec.size")
	address := Address(name, ns, size)

	desired, err := request.GetDesiredComposedResources(req)
	if err != nil {
		response.Fatal(rsp, fmt.Errorf("cannot read the desired resources: %w", err))
		return rsp, nil
	}
	secret := composed.New()
	secret.SetAPIVersion("v1")
	secret.SetKind("Secret")
	secret.SetName(name + "-connection")
	secret.SetNamespace(ns)
	secret.Object["type"] = "Opaque"
	secret.Object["data"] = map[string]any{"address": base64.StdEncoding.EncodeToString([]byte(address))}
	desired["connection"] = &resource.DesiredComposed{Resource: secret, Ready: resource.ReadyTrue}
	if err := response.SetDesiredComposedResources(rsp, desired); err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}

	dxr, err := request.GetDesiredCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, fmt.Errorf("cannot read the desired Database: %w", err))
		return rsp, nil
	}
	if err := dxr.Resource.SetString("status.address", address); err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	if err := response.SetDesiredCompositeResource(rsp, dxr); err != nil {
		response.Fatal(rsp, err)
	}
	return rsp, nil
}

func main() {
	// The flags the e2e's package runtime passes, as it passes them to function-kcp.
	address := flag.String("address", ":9443", "address at which to listen for gRPC connections")
	metrics := flag.String("metrics-address", ":8080", "address of the Prometheus metrics server")
	flag.Parse()
	if err := function.Serve(demo{},
		function.Listen("tcp", *address),
		function.MTLSCertificates(os.Getenv("TLS_SERVER_CERTS_DIR")),
		function.WithMetricsServer(*metrics),
	); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
