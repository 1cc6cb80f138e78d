// Package frontproxy composes everything kcp-operator creates for a FrontProxy, the entry
// point of a kcp installation: its three certificates (issued by its RootShard's CAs), the
// merged client CA and backend CA bundles, the path-mapping ConfigMap, the dynamic
// kubeconfig, and the <fp>-front-proxy Deployment and Service; and, which kcp-operator does
// not, the reference Secret <fp>-reference that publishes it. The workload is rendered by
// the proxy package in front-proxy mode, the same renderer as the RootShard's internal proxy.
//
// Compose is a pure function of the XR and the observed state, so it is table-tested without
// gRPC.
package frontproxy

import (
	"net"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/placement"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

type composer struct {
	b    *builder.Builder
	fp   *v1alpha1.FrontProxy
	name names.FrontProxy
	rs   *v1alpha1.RootShard
	root names.RootShard
	// read is how rs was read: from the XR, or from its reference Secret.
	read required.RootShardRead
	// placement is where the workload runs, nil for this cluster.
	placement *placement.Target
}

// placedField is where a FrontProxy says which cluster it runs in.
var placedField = field.NewPath("spec", "placement")

// Compose composes a FrontProxy. The XR must have passed Validate.
func Compose(fp *v1alpha1.FrontProxy, st *observed.State) (result.Result[v1alpha1.FrontProxyStatus], field.ErrorList) {
	c := &composer{
		b:    builder.New(fp.GetName(), fp.GetNamespace(), st),
		fp:   fp,
		name: names.FrontProxy(fp.GetName()),
	}
	deployment := c.b.Key("deployment", c.name.Deployment())
	if err := c.b.CheckDowngrade(deployment, fp.Spec.Image, fp.Spec.Upgrade, field.NewPath("spec", "image", "tag"), field.NewPath("spec", "upgrade")); err != nil {
		return result.Result[v1alpha1.FrontProxyStatus]{}, field.ErrorList{err}
	}
	c.placement = placement.Of(fp.Spec.Placement, fp.GetNamespace())
	if err := placement.Check(st, deployment, c.placement, placedField, v1alpha1.KindFrontProxy); err != nil {
		return result.Result[v1alpha1.FrontProxyStatus]{}, field.ErrorList{err}
	}
	c.b.Inputs.Require(required.RootShardRequirement(fp.Spec.RootShard))
	read := required.ReadRootShard(st, fp.Spec.RootShard, fp.GetNamespace())
	if read.Invalid != nil {
		return result.Result[v1alpha1.FrontProxyStatus]{}, field.ErrorList{read.Invalid}
	}
	if read.RootShard == nil {
		return c.waitForRootShard(read.Missing), nil
	}
	rs, rootName := read.RootShard, read.RootShard.Name
	c.rs, c.root, c.read = rs, names.RootShard(rootName), read
	if read.Secret != "" {
		// Validate could not check the volumes named after a RootShard it did not know.
		if errs := validateVolumes(field.NewPath("spec"), fp, c.root, read.Field()); len(errs) > 0 {
			return result.Result[v1alpha1.FrontProxyStatus]{}, errs
		}
	}
	if errs := check.PlacedReach(placedField, fp.Spec.Placement, rs); len(errs) > 0 {
		return result.Result[v1alpha1.FrontProxyStatus]{}, errs
	}
	c.b.ReadsCertificatesOf("RootShard "+rootName, read.IssuingCertificates(st))
	// A front-proxy runs a new kcp only once its root shard does; a KcpInstallation also
	// waits for every shard.
	upgraded := *fp // shallow: only the image pointer is replaced
	c.fp = &upgraded
	c.fp.Spec.Image = c.b.ImageFor(deployment, fp.Spec.Image, builder.Leader{Kind: v1alpha1.KindRootShard, Name: rootName, Image: rs.Status.Image})

	p := c.proxy()
	c.registerExternalInputs(p)
	c.composePKI()
	c.composeMergedBundles()
	out := c.composeWorkload(p)
	if out.Err != nil {
		return result.Result[v1alpha1.FrontProxyStatus]{}, field.ErrorList{field.InternalError(placedField, out.Err)}
	}
	warning := c.composeMonitoring()
	c.composeReference()
	available := c.b.Report(out)
	status := v1alpha1.FrontProxyStatus{Phase: builder.Phase(available), Image: c.b.RunningImage(out.Key, fp.Status.Image), URL: names.FrontProxyURL(fp, rs)}
	if n, known := c.b.St.DeploymentServing(out.Key); known {
		status.AvailableReplicas = &n
	}
	return builder.Composed(c.b, status, warning), nil
}

// waitForRootShard reports the FrontProxy waiting for its RootShard (or its reference
// Secret), everything composed kept; why names what is missing.
func (c *composer) waitForRootShard(why string) result.Result[v1alpha1.FrontProxyStatus] {
	return builder.Waiting(c.b, v1alpha1.FrontProxyStatus{Phase: v1alpha1.PhaseProvisioning, Image: c.fp.Status.Image, URL: names.FrontProxyURL(c.fp, nil)}, why)
}

// ServicePort is the port of the <fp>-front-proxy Service, kcp-operator's fallback chain:
// spec.external.port if set; else, with the deprecated spec.externalHostname, its port (6443
// when it has none or an invalid one); else the RootShard's spec.external.port if set; else
// 6443.
func ServicePort(fp *v1alpha1.FrontProxy, rs *v1alpha1.RootShard) int32 {
	if p := fp.Spec.External.Port; p > 0 {
		return int32(p)
	}
	if h := fp.Spec.ExternalHostname; h != "" {
		if _, port, err := net.SplitHostPort(h); err == nil {
			if n, err := strconv.Atoi(port); err == nil && n > 0 && n <= 65535 {
				return int32(n)
			}
		}
		return names.Port
	}
	if rs != nil && rs.Spec.External.Port > 0 {
		return int32(rs.Spec.External.Port)
	}
	return names.Port
}

// externalHost is the front-proxy's own public hostname, without port: the deprecated
// spec.externalHostname, else spec.external.hostname, else "".
func externalHost(fp *v1alpha1.FrontProxy) string {
	if h := fp.Spec.ExternalHostname; h != "" {
		if host, _, err := net.SplitHostPort(h); err == nil {
			return host
		}
		return h
	}
	return fp.Spec.External.Hostname
}
