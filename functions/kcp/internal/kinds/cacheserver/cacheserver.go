// Package cacheserver composes everything kcp-operator creates for a CacheServer: its own
// root CA (a cert-manager Certificate and Issuer), the serving and client certificates, the
// <cs>-kubeconfig Secret its consumers mount, and the <cs>-cache-server Deployment and Service.
//
// Compose is a pure function of the XR and the observed state, so it is table-tested without
// gRPC.
package cacheserver

import (
	"fmt"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Result is what the function should return for one CacheServer.
type Result struct {
	Desired      desired.Set
	Requirements []inputs.Requirement
	Status       v1alpha1.CacheServerStatus
	Conditions   []condition.Condition
	// NotReady forces the XR not ready while the Deployment is not composed: the composed
	// resources that do exist could otherwise all be ready.
	NotReady bool
}

// composer holds what every step of one composition needs.
type composer struct {
	*builder.Builder
	cs    *v1alpha1.CacheServer
	name  names.CacheServer
	url   string
	image workload.Image
}

// Compose composes a CacheServer. The XR must have passed Validate.
func Compose(cs *v1alpha1.CacheServer, st *observed.State) Result {
	c := &composer{
		Builder: builder.New(cs.GetName(), cs.GetNamespace(), st),
		cs:      cs,
		name:    names.CacheServer(cs.GetName()),
		url:     BaseURL(cs),
		image:   workload.ResolveImage(cs.Spec.Image),
	}
	c.registerExternalInputs()
	c.composePKI()
	c.composeKubeconfig()
	available := c.Report(c.composeWorkload())
	return Result{
		Desired:      c.Set,
		Requirements: c.Inputs.Requirements(),
		Status: v1alpha1.CacheServerStatus{
			Phase:   builder.Phase(available),
			URL:     c.url,
			Storage: Storage(cs),
		},
		Conditions: c.conditions(),
		NotReady:   c.NotReady(),
	}
}

// BaseURL is where shards reach the cache server: https://<cs>-cache-server.<ns>.svc.<cd>:6443.
func BaseURL(cs *v1alpha1.CacheServer) string {
	return fmt.Sprintf("https://%s:6443",
		names.ServiceFQDN(names.CacheServer(cs.GetName()).Deployment(), cs.GetNamespace(), cs.Spec.ClusterDomain))
}

// Storage is Embedded without spec.etcd, else External.
func Storage(cs *v1alpha1.CacheServer) v1alpha1.Storage {
	if cs.Spec.Etcd == nil {
		return v1alpha1.StorageEmbedded
	}
	return v1alpha1.StorageExternal
}

// registerExternalInputs declares the user's Secrets the Deployment mounts, so they are read
// as required resources and gate the Deployment.
func (c *composer) registerExternalInputs() {
	if e := c.cs.Spec.Etcd; e != nil && e.TLSConfig != nil {
		c.Inputs.External(inputs.KindSecret, e.TLSConfig.SecretRef.Name, "spec.etcd.tlsConfig.secretRef.name")
	}
}
