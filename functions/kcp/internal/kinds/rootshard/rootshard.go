// Package rootshard composes everything kcp-operator creates for a RootShard: its PKI (root
// CA, four intermediate CAs and their Issuers, the leaf certificates), the logical-cluster-admin
// kubeconfigs, merged CA bundles, the <rs>-kcp Deployment and Service, the internal
// <rs>-proxy with its certificates, path mapping and kubeconfig; and, which kcp-operator
// does not, the reference Secret <rs>-reference that publishes it.
//
// Compose is a pure function of the XR and the observed state, so it is table-tested without
// gRPC.
package rootshard

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/rotation"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
)

// composer holds what every step of one composition needs.
type composer struct {
	b       *builder.Builder
	rs      *v1alpha1.RootShard
	name    names.RootShard
	baseURL string
	// encryption is what the encryption at rest decided for the workload.
	encryption rotation.Outcome
}

// Compose composes a RootShard. The XR must have passed Validate.
func Compose(rs *v1alpha1.RootShard, st *observed.State) (result.Result[v1alpha1.RootShardStatus], field.ErrorList) {
	c := &composer{
		b:       builder.New(rs.GetName(), rs.GetNamespace(), st),
		rs:      rs,
		name:    names.RootShard(rs.GetName()),
		baseURL: names.RootShardURL(rs),
	}
	if err := c.b.CheckDowngrade(c.b.Key("deployment", "kcp"), rs.Spec.Image, rs.Spec.Upgrade, field.NewPath("spec", "image", "tag"), field.NewPath("spec", "upgrade")); err != nil {
		return result.Result[v1alpha1.RootShardStatus]{}, field.ErrorList{err}
	}
	// Every Shard in the namespace is read to list this RootShard's shards in status and to
	// trust their service account keys.
	c.b.Inputs.Require(required.All(v1alpha1.KindShard))
	c.registerExternalInputs()
	c.composePKI()
	c.composeKubeconfigs()
	c.composeMergedBundles()
	enc, err := rotation.Compose(c.b, rotation.ForKCP(c.server(), c.b.Key("deployment", "kcp")))
	if err != nil {
		return result.Result[v1alpha1.RootShardStatus]{}, field.ErrorList{err}
	}
	c.encryption = enc
	shard := c.composeRootShardWorkload()
	proxy := c.composeProxy()
	c.composeAccess()
	c.composeRegistrations()
	target, client := c.server().Monitoring(map[string]string{names.LabelOwnerRootShard: string(c.name)})
	warning := c.b.Monitoring(rs.Spec.Monitoring, "spec.monitoring", target, &client)
	image := c.b.RunningImage(shard.Key, rs.Status.Image, proxy.Key)
	c.composeReference(image)
	available := c.b.Report(shard, proxy)
	status := v1alpha1.RootShardStatus{
		Phase:       builder.Phase(available),
		Image:       image,
		BaseURL:     c.baseURL,
		ExternalURL: names.ExternalURL(rs.Spec.External),
		Shards:      c.shardRefs(),
		Encryption:  enc.Status,
	}
	if n, known := c.b.St.DeploymentServing(shard.Key); known {
		status.AvailableReplicas = &n
	}
	return builder.Composed(c.b, status, warning), nil
}

// shardNames lists the names of this RootShard's Shards, sorted.
func (c *composer) shardNames() []string {
	var out []string
	for _, sh := range required.ShardsOf(c.b.St, c.rs.Name) {
		out = append(out, sh.Name)
	}
	return out
}

// shardRefs is status.shards, as kcp-operator writes it.
func (c *composer) shardRefs() []v1alpha1.ShardReference {
	var out []v1alpha1.ShardReference
	for _, n := range c.shardNames() {
		out = append(out, v1alpha1.ShardReference{Name: n})
	}
	return out
}

// registerExternalInputs declares the user's Secrets and ConfigMaps that workloads mount, so
// they are read as required resources and gate the workloads.
func (c *composer) registerExternalInputs() {
	s := c.rs.Spec
	if ref := s.Certificates.CASecretRef; ref != nil {
		c.b.Inputs.External(inputs.KindSecret, ref.Name, "spec.certificates.caSecretRef.name")
	}
	if ref := s.CABundleSecretRef; ref != nil {
		c.b.Inputs.External(inputs.KindSecret, ref.Name, "spec.caBundleSecretRef.name")
	}
	if ref := s.ClientCABundleRef; ref != nil {
		c.b.Inputs.External(inputs.KindSecret, ref.Name, "spec.clientCABundleRef.name")
	}
	if ref := s.Cache.Ref; ref != nil {
		cs := names.CacheServer(ref.Name)
		for _, n := range []string{cs.Kubeconfig(), cs.CA(), cs.ClientCertificate()} {
			c.b.Inputs.External(inputs.KindSecret, n, "spec.cache.ref.name (CacheServer "+ref.Name+")")
		}
	}
	for _, o := range kcpserver.UserObjects(&s.CommonShardSpec) {
		c.b.Inputs.External(o.Kind, o.Name, o.Field)
	}
}
