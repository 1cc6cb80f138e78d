// Package virtualworkspace composes everything kcp-operator creates for a VirtualWorkspace:
// an external kcp virtual workspace server for one RootShard or Shard. Its certificates are
// issued by the target's RootShard CAs; it borrows the target's logical-cluster-admin
// kubeconfig (authenticating with its own client certificate) unless given a kubeconfig.
package virtualworkspace

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/vwserver"
)

// URL is the external URL the targeted shard advertises for this server.
func URL(vw *v1alpha1.VirtualWorkspace) string { return names.ExternalURL(vw.Spec.External) }

type composer struct {
	b    *builder.Builder
	vw   *v1alpha1.VirtualWorkspace
	name names.VirtualWorkspace
	// rs is the RootShard whose CAs the server uses: the target, or the target Shard's.
	rs   *v1alpha1.RootShard
	root names.RootShard
	// sh is the target Shard, nil when the target is the RootShard.
	sh *v1alpha1.Shard
}

// Compose composes a VirtualWorkspace. The XR must have passed Validate.
func Compose(vw *v1alpha1.VirtualWorkspace, st *observed.State) (result.Result[v1alpha1.VirtualWorkspaceStatus], field.ErrorList) {
	c := &composer{
		b:    builder.New(vw.GetName(), vw.GetNamespace(), st),
		vw:   vw,
		name: names.VirtualWorkspace(vw.GetName()),
	}
	deployment := c.b.Key("deployment", c.name.Deployment())
	if err := c.b.CheckDowngrade(deployment, vw.Spec.Image, vw.Spec.Upgrade, field.NewPath("spec", "image", "tag"), field.NewPath("spec", "upgrade")); err != nil {
		return result.Result[v1alpha1.VirtualWorkspaceStatus]{}, field.ErrorList{err}
	}
	if why, ok := c.resolveTarget(); !ok {
		return c.waitForTarget(why), nil
	}
	// A virtual workspace server runs a new kcp only once the shard it serves does.
	upgraded := *vw // shallow: only the image pointer is replaced
	c.vw = &upgraded
	c.vw.Spec.Image = c.b.ImageFor(deployment, vw.Spec.Image, c.leader())

	srv := c.server()
	c.registerExternalInputs(srv)
	c.composePKI()
	c.composeMergedClientCA()
	out := c.composeWorkload(srv)
	available := c.b.Report(out)
	return builder.Composed(c.b, v1alpha1.VirtualWorkspaceStatus{Phase: builder.Phase(available), Image: c.b.RunningImage(out.Key, vw.Status.Image), URL: URL(vw)}), nil
}

// resolveTarget reads the target RootShard, or the target Shard and its RootShard. It
// returns why it cannot when one of them is not known.
func (c *composer) resolveTarget() (string, bool) {
	t := c.vw.Spec.Target
	var rootName string
	if r := t.ShardRef; r != nil {
		c.b.Inputs.Require(required.Named(v1alpha1.KindShard, r.Name))
		sh := &v1alpha1.Shard{}
		if !required.Get(c.b.St, v1alpha1.KindShard, r.Name, sh) {
			return fmt.Sprintf("Shard %s (spec.target.shardRef.name) does not exist in namespace %s; create it or fix the reference", r.Name, c.b.Namespace), false
		}
		ref := sh.Spec.RootShard.Ref
		if ref == nil || ref.Name == "" {
			return fmt.Sprintf("Shard %s (spec.target.shardRef.name) names no RootShard in its spec.rootShard.ref.name", r.Name), false
		}
		c.sh, rootName = sh, ref.Name
	} else {
		rootName = t.RootShardRef.Name
	}
	c.b.Inputs.Require(required.Named(v1alpha1.KindRootShard, rootName))
	rs, ok := required.RootShard(c.b.St, rootName)
	if !ok {
		if c.sh != nil {
			return fmt.Sprintf("RootShard %s (spec.rootShard.ref.name of Shard %s, named by spec.target.shardRef.name) does not exist in namespace %s; create it or fix the reference", rootName, c.sh.Name, c.b.Namespace), false
		}
		return fmt.Sprintf("RootShard %s (spec.target.rootShardRef.name) does not exist in namespace %s; create it or fix the reference", rootName, c.b.Namespace), false
	}
	c.rs, c.root = rs, names.RootShard(rootName)
	return "", true
}

// leader is the target whose kcp this server's follows.
func (c *composer) leader() builder.Leader {
	if c.sh != nil {
		return builder.Leader{Kind: v1alpha1.KindShard, Name: c.sh.Name, Image: c.sh.Status.Image}
	}
	return builder.Leader{Kind: v1alpha1.KindRootShard, Name: c.rs.Name, Image: c.rs.Status.Image}
}

// waitForTarget keeps everything the VirtualWorkspace composed as it is while its target
// cannot be read: without it nothing can be rebuilt, and nothing may be deleted.
func (c *composer) waitForTarget(why string) result.Result[v1alpha1.VirtualWorkspaceStatus] {
	return builder.Waiting(c.b, v1alpha1.VirtualWorkspaceStatus{Phase: v1alpha1.PhaseProvisioning, Image: c.vw.Status.Image, URL: URL(c.vw)}, why)
}

// targetKubeconfig is the target's logical-cluster-admin kubeconfig Secret, which points at
// the target's URL and trusts the server CA.
func (c *composer) targetKubeconfig() string {
	if c.sh != nil {
		return names.Shard(c.sh.Name).LogicalClusterAdminKubeconfig()
	}
	return c.root.LogicalClusterAdminKubeconfig()
}

// mergesClientCA reports whether the server trusts <vw>-merged-client-ca.
func (c *composer) mergesClientCA() bool {
	return c.rs.Spec.ClientCABundleRef != nil || c.vw.Spec.ClientCABundleRef != nil
}

// server describes the virtual workspace server.
func (c *composer) server() vwserver.Server {
	return vwserver.Server{
		Name:             c.vw.Name,
		Namespace:        c.b.Namespace,
		Spec:             &c.vw.Spec,
		Root:             c.root,
		RootCASecret:     names.RootCASecret(c.rs),
		TargetKubeconfig: c.targetKubeconfig(),
		CacheServer:      names.CacheServerOf(c.sh, c.rs),
		MergesClientCA:   c.mergesClientCA(),
	}
}

// registerExternalInputs declares the Secrets the server mounts but does not compose: the
// RootShard's CAs, the target's kubeconfig, a CacheServer's Secrets and the user's.
func (c *composer) registerExternalInputs(srv vwserver.Server) {
	rsField := "spec.target.rootShardRef.name (RootShard " + c.rs.Name + ")"
	targetField := rsField
	if c.sh != nil {
		rsField = "spec.target.shardRef.name (RootShard " + c.rs.Name + " of Shard " + c.sh.Name + ")"
		targetField = "spec.target.shardRef.name (Shard " + c.sh.Name + ")"
	}
	c.b.Inputs.External(inputs.KindSecret, srv.RootCASecret, rsField)
	for _, ca := range []string{names.CAServer, names.CARequestHeaderClient, names.CAClient} {
		c.b.Inputs.External(inputs.KindSecret, c.root.CA(ca), rsField)
	}
	c.b.Inputs.External(inputs.KindSecret, srv.TargetKubeconfig, targetField)
	if cs := srv.CacheServer; cs != "" {
		field := "spec.cache.ref.name of RootShard " + c.rs.Name + " (CacheServer " + cs + ")"
		if c.sh != nil && c.sh.Spec.Cache != nil && c.sh.Spec.Cache.Ref != nil {
			field = "spec.cache.ref.name of Shard " + c.sh.Name + " (CacheServer " + cs + ")"
		}
		n := names.CacheServer(cs)
		for _, s := range []string{n.Kubeconfig(), n.CA(), n.ClientCertificate()} {
			c.b.Inputs.External(inputs.KindSecret, s, field)
		}
	}
	if ref := c.vw.Spec.KubeconfigSecretRef; ref != nil {
		c.b.Inputs.External(inputs.KindSecret, ref.Name, "spec.kubeconfigSecretRef.name")
	}
	for i, ic := range c.vw.Spec.InitContainers {
		if ref := ic.KubeconfigSecretRef; ref != nil {
			c.b.Inputs.External(inputs.KindSecret, ref.Name, fmt.Sprintf("spec.initContainers[%d].kubeconfigSecretRef.name", i))
		}
	}
}

// composeMergedClientCA composes <vw>-merged-client-ca: the RootShard's client CA, then the
// RootShard's clientCABundleRef, then the VirtualWorkspace's.
func (c *composer) composeMergedClientCA() {
	if !c.mergesClientCA() {
		return
	}
	sources := []string{c.root.CA(names.CAClient)}
	if ref := c.rs.Spec.ClientCABundleRef; ref != nil {
		sources = append(sources, ref.Name)
	}
	if ref := c.vw.Spec.ClientCABundleRef; ref != nil {
		sources = append(sources, ref.Name)
	}
	labels := map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerVirtualWS: c.vw.Name}
	c.b.MergedBundle(c.name.MergedClientCA(), labels, sources...)
}
