// Package cacheserver composes everything kcp-operator creates for a CacheServer: its own
// root CA (a cert-manager Certificate and Issuer), the serving and client certificates, the
// <cs>-kubeconfig Secret its consumers mount, and the <cs>-cache-server Deployment and
// Service; and, which kcp-operator does not, the reference Secret <cs>-reference that
// publishes it.
//
// Compose is a pure function of the XR and the observed state, so it is table-tested without
// gRPC.
package cacheserver

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// composer holds what every step of one composition needs.
type composer struct {
	b     *builder.Builder
	cs    *v1alpha1.CacheServer
	name  names.CacheServer
	url   string
	image kcpimage.Image
}

// Compose composes a CacheServer. The XR must have passed Validate.
func Compose(cs *v1alpha1.CacheServer, st *observed.State) (result.Result[v1alpha1.CacheServerStatus], field.ErrorList) {
	c := &composer{
		b:     builder.New(cs.GetName(), cs.GetNamespace(), st),
		cs:    cs,
		name:  names.CacheServer(cs.GetName()),
		url:   names.CacheServerURL(cs),
		image: kcpimage.Resolve(cs.Spec.Image),
	}
	if err := c.b.CheckDowngrade(c.b.Key("deployment", c.name.Deployment()), cs.Spec.Image, cs.Spec.Upgrade, field.NewPath("spec", "image", "tag"), field.NewPath("spec", "upgrade")); err != nil {
		return result.Result[v1alpha1.CacheServerStatus]{}, field.ErrorList{err}
	}
	c.registerExternalInputs()
	c.composePKI()
	c.composeKubeconfig()
	out := c.composeWorkload()
	c.composeReference()
	available := c.b.Report(out)
	return result.Result[v1alpha1.CacheServerStatus]{
		Desired:      c.b.Set,
		Requirements: c.b.Inputs.Requirements(),
		Status: v1alpha1.CacheServerStatus{
			Phase:   builder.Phase(available),
			Image:   c.b.RunningImage(out.Key, cs.Status.Image),
			URL:     c.url,
			Storage: Storage(cs),
		},
		Conditions: c.conditions(),
		NotReady:   c.b.NotReady(),
	}, nil
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
		c.b.Inputs.External(inputs.KindSecret, e.TLSConfig.SecretRef.Name, "spec.etcd.tlsConfig.secretRef.name")
	}
}
