// Package shard composes everything kcp-operator creates for a Shard: its certificates
// (issued by its RootShard's CAs), the three kubeconfig Secrets, merged CA bundles, and the
// <sh>-shard-kcp Deployment and Service that register the shard with its root shard.
package shard

import (
	"fmt"
	"slices"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/placement"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/rotation"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// Certificate template keys a Shard understands.
var templateKeys = []string{"server", "virtual-workspaces", "service-account", "client", "mounts-proxy", "logical-cluster-admin", "external-logical-cluster-admin"}

// The fields an image change is checked against.
var (
	imageTagField = field.NewPath("spec", "image", "tag")
	upgradeField  = field.NewPath("spec", "upgrade")
	placedField   = field.NewPath("spec", "placement")
)

type composer struct {
	b    *builder.Builder
	sh   *v1alpha1.Shard
	name names.Shard
	rs   *v1alpha1.RootShard
	root names.RootShard
	// read is how rs was read: from the XR, or from its reference Secret.
	read required.RootShardRead
	// placement is where the workload runs, nil for this cluster.
	placement *placement.Target
}

// Compose composes a Shard. The XR must have passed Validate.
func Compose(sh *v1alpha1.Shard, st *observed.State) (result.Result[v1alpha1.ShardStatus], field.ErrorList) {
	c := &composer{
		b:    builder.New(sh.GetName(), sh.GetNamespace(), st),
		sh:   sh,
		name: names.Shard(sh.GetName()),
	}
	deployment := c.b.Key("deployment", c.name.Deployment())
	if err := c.b.CheckDowngrade(deployment, sh.Spec.Image, sh.Spec.Upgrade, imageTagField, upgradeField); err != nil {
		return result.Result[v1alpha1.ShardStatus]{}, field.ErrorList{err}
	}
	c.placement = placement.Of(sh.Spec.Placement, sh.GetNamespace())
	if err := placement.Check(st, deployment, c.placement, placedField, v1alpha1.KindShard); err != nil {
		return result.Result[v1alpha1.ShardStatus]{}, field.ErrorList{err}
	}
	c.b.Inputs.Require(required.RootShardRequirement(sh.Spec.RootShard))
	if r := sh.Spec.RootShard.Ref; r != nil {
		// The RootShard's name is known before it is read: ask for what follows from it now.
		c.b.Inputs.Require(registration(names.RootShard(r.Name), sh.GetName()))
		c.requireAhead(names.RootShard(r.Name))
	}
	read := required.ReadRootShard(st, sh.Spec.RootShard, sh.GetNamespace())
	if read.Invalid != nil {
		return result.Result[v1alpha1.ShardStatus]{}, field.ErrorList{read.Invalid}
	}
	if read.RootShard == nil {
		return c.waitForRootShard(read.Missing), nil
	}
	rs, rootName := read.RootShard, read.RootShard.Name
	c.rs, c.root, c.read = rs, names.RootShard(rootName), read
	if read.SameNamespace(c.b.Namespace) {
		// The RootShard composes the Object that registers this shard in its own namespace.
		c.b.Inputs.Require(registration(c.root, sh.GetName()))
	}
	c.requireAhead(c.root)
	if errs := c.checkPlacedReach(); len(errs) > 0 {
		return result.Result[v1alpha1.ShardStatus]{}, errs
	}
	c.b.ReadsCertificatesOf("RootShard "+rootName, read.IssuingCertificates(st))
	// A shard runs a new kcp only once its root shard does (kcp#4032).
	upgraded := *sh // shallow: only the image pointer is replaced
	c.sh = &upgraded
	c.sh.Spec.Image = c.b.ImageFor(deployment, sh.Spec.Image, builder.Leader{Kind: v1alpha1.KindRootShard, Name: rootName, Image: rs.Status.Image})

	srv := c.server()
	c.registerExternalInputs(srv)
	c.composePKI()
	c.composeKubeconfigs()
	c.composeMergedBundles()
	enc, err := rotation.Compose(c.b, rotation.ForKCP(srv, deployment))
	if err != nil {
		return result.Result[v1alpha1.ShardStatus]{}, field.ErrorList{err}
	}
	out := c.composeWorkload(srv, enc)
	if out.Err != nil {
		return result.Result[v1alpha1.ShardStatus]{}, field.ErrorList{field.InternalError(placedField, out.Err)}
	}
	target, client := srv.Monitoring(map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerShard: string(c.name)})
	warning := c.b.Monitoring(sh.Spec.Monitoring, "spec.monitoring", target, &client)
	available := c.b.Report(out)
	status := v1alpha1.ShardStatus{Phase: builder.Phase(available), Image: c.b.RunningImage(out.Key, sh.Status.Image), BaseURL: names.ShardURL(sh), Encryption: enc.Status}
	if n, known := c.b.St.DeploymentServing(out.Key); known {
		status.AvailableReplicas = &n
	}
	r := builder.Composed(c.b, status, warning)
	r.Conditions = append(r.Conditions, c.registered(), c.schedulable())
	return r, nil
}

// waitForRootShard reports the Shard waiting for its RootShard (or its reference Secret),
// everything composed kept; why names what is missing.
func (c *composer) waitForRootShard(why string) result.Result[v1alpha1.ShardStatus] {
	return builder.Waiting(c.b, v1alpha1.ShardStatus{Phase: v1alpha1.PhaseProvisioning, Image: c.sh.Status.Image, BaseURL: names.ShardURL(c.sh)}, why)
}

// requireAhead asks, with the RootShard itself, for everything the shard reads whose name
// follows from the RootShard's name and the Shard's own spec: the RootShard's CA Secrets, the
// other Shards, the VirtualWorkspace. Crossplane calls the function again until its
// requirements stop changing, so asking for them only once the RootShard is read would cost
// a third call on every reconcile. (A RootShard with its own caSecretRef or a cache server
// adds Secrets only it names, and takes the third call.)
func (c *composer) requireAhead(root names.RootShard) {
	c.b.Inputs.Read(inputs.KindSecret, root.RootCA())
	for _, ca := range rootShardCAs {
		c.b.Inputs.Read(inputs.KindSecret, root.CA(ca))
	}
	if a := c.sh.Spec.Auth; a != nil && a.ServiceAccount != nil && a.ServiceAccount.Enabled {
		c.b.Inputs.Require(required.All(v1alpha1.KindShard))
	}
	if ref := c.sh.Spec.KcpVirtualWorkspace; ref != nil {
		c.b.Inputs.Require(required.Named(v1alpha1.KindVirtualWorkspace, ref.Name))
	}
}

// rootShardCAs are the RootShard's CAs a shard mounts besides its root CA.
var rootShardCAs = []string{names.CAServer, names.CAServiceAccount, names.CARequestHeaderClient, names.CAClient}

// server describes the shard's kcp server.
func (c *composer) server() kcpserver.Server {
	srv := kcpserver.Server{
		Name:                    string(c.name),
		Namespace:               c.b.Namespace,
		Root:                    c.root,
		Spec:                    &c.sh.Spec.CommonShardSpec,
		BaseURL:                 names.ShardURL(c.sh),
		RootExternal:            c.rs.Spec.External,
		RootCASecret:            names.RootCASecret(c.rs),
		CacheServer:             names.CacheServerOf(c.sh, c.rs),
		InheritedClientCABundle: c.rs.Spec.ClientCABundleRef != nil,
	}
	if a := c.sh.Spec.Auth; a != nil && a.ServiceAccount != nil && a.ServiceAccount.Enabled {
		c.b.Inputs.Require(required.All(v1alpha1.KindShard))
		var shards []string
		if c.read.SameNamespace(c.b.Namespace) {
			// The Shards of a RootShard of another namespace are there, not here.
			for _, s := range required.ShardsOf(c.b.St, c.rs.Name) {
				shards = append(shards, s.Name)
			}
		}
		// This shard may not be listed yet in a fresh render; it always mounts its own key.
		if !slices.Contains(shards, c.sh.Name) {
			shards = append(shards, c.sh.Name)
			slices.Sort(shards)
		}
		srv.ServiceAccountCerts = kcpserver.ServiceAccountCerts(c.rs.Name, shards)
	}
	if ref := c.sh.Spec.KcpVirtualWorkspace; ref != nil {
		c.b.Inputs.Require(required.Named(v1alpha1.KindVirtualWorkspace, ref.Name))
		if vw, ok := required.VirtualWorkspace(c.b.St, ref.Name); ok {
			srv.VirtualWorkspaceURL = names.ExternalURL(vw.Spec.External)
		}
	}
	return srv
}

// registerExternalInputs declares the Secrets and ConfigMaps the shard mounts but does not
// compose: the RootShard's CAs, a CacheServer's Secrets, and the user's.
func (c *composer) registerExternalInputs(srv kcpserver.Server) {
	rsRef := c.read.Field()
	c.b.Inputs.External(inputs.KindSecret, srv.RootCASecret, rsRef)
	for _, ca := range rootShardCAs {
		c.b.Inputs.External(inputs.KindSecret, c.root.CA(ca), rsRef)
	}
	if cs := srv.CacheServer; cs != "" {
		field := "spec.cache.ref.name (CacheServer " + cs + ")"
		if c.sh.Spec.Cache == nil || c.sh.Spec.Cache.Ref == nil {
			field = "the RootShard's spec.cache.ref.name (CacheServer " + cs + ")"
		}
		n := names.CacheServer(cs)
		for _, s := range []string{n.Kubeconfig(), n.CA(), n.ClientCertificate()} {
			c.b.Inputs.External(inputs.KindSecret, s, field)
		}
	}
	if a := c.sh.Spec.Auth; a != nil && a.ServiceAccount != nil && a.ServiceAccount.Enabled {
		for _, sa := range srv.ServiceAccountCerts {
			if sa.Owner != string(c.name) {
				c.b.Inputs.External(inputs.KindSecret, sa.Secret, "spec.auth.serviceAccount (service account key of "+sa.Owner+")")
			}
		}
	}
	for _, o := range kcpserver.UserObjects(&c.sh.Spec.CommonShardSpec) {
		c.b.Inputs.External(o.Kind, o.Name, o.Field)
	}
}

// composePKI composes the shard's certificates, issued by the RootShard's CAs.
func (c *composer) composePKI() {
	labels := names.Labels(string(c.name), names.ComponentShard)
	secretLabels := map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerShard: string(c.name)}
	tpl := c.sh.Spec.CertificateTemplates
	// One CertificateSet, <shard>-shard-certs: a Shard composing its Certificates itself
	// would spend most of Crossplane's default burst of watch events on cert-manager's
	// updates of them. The suffix differs from every RootShard set's, so no Shard's set has
	// the name of a RootShard's.
	defer c.b.InCertificateSet("", nil)
	c.b.InCertificateSet(names.ShardCertificateSet, labels)
	leaf := func(kind, cn string, orgs []string, usages []cmv1.KeyUsage, issuerCA string) pki.Leaf {
		return pki.Leaf{
			Name: c.name.Cert(kind), Namespace: c.b.Namespace, CommonName: cn, Organizations: orgs,
			Usages: usages, Issuer: c.root.CA(issuerCA), Labels: labels, SecretLabels: secretLabels,
		}
	}
	svc := names.ServiceFQDN(c.name.Deployment(), c.b.Namespace, c.sh.Spec.ClusterDomain)
	server := leaf("server", "", nil, pki.UsagesServing, names.CAServer)
	server.DNSNames = []string{"localhost", svc}
	if h := names.HostOf(c.sh.Spec.ShardBaseURL); h != "" {
		server.DNSNames = append(server.DNSNames, h)
	}
	if p := c.sh.Spec.Public; p != nil && p.ServerCertificate == nil {
		server.DNSNames = append(server.DNSNames, p.Hostname) // no certificate of its own: this one serves the public name
	}
	slices.Sort(server.DNSNames)
	server.DNSNames = slices.Compact(server.DNSNames)
	vw := leaf("virtual-workspaces", "", nil, pki.UsagesServerAuth, names.CAServer)
	vw.DNSNames = []string{svc}
	sh := string(c.name)
	for _, l := range []struct {
		key  string
		leaf pki.Leaf
	}{
		{"server", server},
		{"service-account", leaf("service-account", c.name.Cert("service-account"), nil, pki.UsagesSigningKey, names.CAServiceAccount)},
		{"virtual-workspaces", vw},
		{"client", leaf("client", "shard-"+sh, []string{"system:masters"}, pki.UsagesClient, names.CAClient)},
		{"mounts-proxy", leaf("mounts-proxy", "kcp-mounts-proxy", nil, pki.UsagesClient, names.CARequestHeaderClient)},
		{"logical-cluster-admin", leaf("logical-cluster-admin", "logical-cluster-admin-shard-"+sh, []string{"system:kcp:logical-cluster-admin"}, pki.UsagesClient, names.CAClient)},
		{"external-logical-cluster-admin", leaf("external-logical-cluster-admin", "external-logical-cluster-admin-shard-"+sh, []string{"system:kcp:external-logical-cluster-admin"}, pki.UsagesClient, names.CAClient)},
	} {
		c.b.Certificate(l.leaf.Certificate(), tpl.Get(l.key))
	}
	if p := c.sh.Spec.Public; p != nil && p.ServerCertificate != nil {
		c.b.Certificate(pki.PublicServer(c.name.Cert(names.CertPublicServer), c.b.Namespace, p.ServerCertificate, names.PublicDNSNames(p.ServerCertificate, p.Hostname), labels, secretLabels), nil)
	}
}

// composeKubeconfigs composes the shard's three kubeconfig Secrets: to the root shard (also
// the cache when there is no cache server), and to logical clusters as their admin through
// the shard's own URL and through the external one.
func (c *composer) composeKubeconfigs() {
	labels := map[string]string{names.LabelOwnerRootShard: c.rs.Name, names.LabelOwnerShard: string(c.name)}
	secret := func(name string, f kubeconfigfile.Files) {
		c.b.Secret(name, labels, map[string][]byte{"kubeconfig": f.Config().Marshal()})
	}
	secret(c.name.ClientKubeconfig(), kubeconfigfile.Files{
		ClusterName: "root-shard", Server: names.RootShardURL(c.rs), CAFile: kcpserver.PathServerCA,
		UserName: "shard", CertFile: kcpserver.DirClientCert + "/tls.crt", KeyFile: kcpserver.DirClientCert + "/tls.key",
		ContextName: "shard-base",
	})
	secret(c.name.LogicalClusterAdminKubeconfig(), kubeconfigfile.Files{
		ClusterName: "logical-cluster:admin", Server: names.ShardURL(c.sh), CAFile: kcpserver.PathServerCA,
		UserName: "logical-cluster-admin", CertFile: kcpserver.DirLogicalClusterAdmin + "/tls.crt", KeyFile: kcpserver.DirLogicalClusterAdmin + "/tls.key",
		ContextName: "logical-cluster",
	})
	server := names.ExternalAdminURL(c.rs.Spec.External)
	ca := kcpserver.PathServerCA
	if c.sh.Spec.CABundleSecretRef != nil {
		ca = kcpserver.PathCABundle
	}
	secret(c.name.ExternalLogicalClusterAdminKubeconfig(), kubeconfigfile.Files{
		ClusterName: "external-logical-cluster:admin", Server: server, CAFile: ca,
		UserName: "external-logical-cluster-admin", CertFile: kcpserver.DirExternalLCA + "/tls.crt", KeyFile: kcpserver.DirExternalLCA + "/tls.key",
		ContextName: "external-logical-cluster",
	})
}

// composeMergedBundles composes the shard's CA bundles. Unlike kcp-operator (quirk 4) the
// merged CA bundle starts with the RootShard's server CA, not the shard's own serving
// certificate.
func (c *composer) composeMergedBundles() {
	labels := map[string]string{names.LabelOwnerShard: string(c.name)}
	if ref := c.sh.Spec.CABundleSecretRef; ref != nil {
		c.b.MergedBundle(c.name.MergedCABundle(), labels, c.root.CA(names.CAServer), ref.Name)
	}
	sources := []string{c.root.CA(names.CAClient)}
	if ref := c.rs.Spec.ClientCABundleRef; ref != nil {
		sources = append(sources, ref.Name)
	}
	if ref := c.sh.Spec.ClientCABundleRef; ref != nil {
		sources = append(sources, ref.Name)
	}
	if len(sources) > 1 {
		c.b.MergedBundle(c.name.MergedClientCA(), labels, sources...)
	}
}

// composeWorkload composes the shard's Deployment and Service once every input exists.
func (c *composer) composeWorkload(srv kcpserver.Server, enc rotation.Outcome) builder.Outcome {
	key := c.b.Key("deployment", srv.DeploymentName())
	blockers := enc.Apply(&srv, nil)
	if ref := c.sh.Spec.KcpVirtualWorkspace; ref != nil && srv.VirtualWorkspaceURL == "" {
		// Without the VirtualWorkspace's URL the flags cannot be rendered: hold the workload.
		blockers = append(blockers, fmt.Sprintf("VirtualWorkspace %s (spec.kcpVirtualWorkspace.name)", ref.Name))
	}
	return c.b.Workload(builder.Workload{
		Name:          srv.DeploymentName(),
		DeploymentKey: key,
		ServiceKey:    c.b.Key("service", srv.DeploymentName()),
		Mounts:        append(srv.Mounts(), srv.Authentication().Mounts...),
		Blockers:      blockers,
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			return srv.Deployment(c.b.Replicas(key, c.sh.Spec.Replicas, builder.DefaultReplicas), enc.Annotate(podAnnotations)), srv.Service()
		},
		Placement:        c.placement,
		CertificateOnly:  c.othersCertificates(srv),
		DisruptionBudget: c.sh.Spec.PodDisruptionBudget,
	})
}

// othersCertificates are the mounted Secrets a placed shard gets only the certificate of:
// the RootShard's CAs, the cache server's CA and other shards' service account keys.
func (c *composer) othersCertificates(srv kcpserver.Server) map[string]bool {
	out := map[string]bool{srv.RootCASecret: true}
	for _, ca := range rootShardCAs {
		out[c.root.CA(ca)] = true
	}
	if cs := srv.CacheServer; cs != "" {
		out[names.CacheServer(cs).CA()] = true
	}
	for _, sa := range srv.ServiceAccountCerts {
		if sa.Owner != string(c.name) {
			out[sa.Secret] = true
		}
	}
	return out
}

// checkPlacedReach refuses a placed shard that could not reach, or be reached by, the rest
// of the installation: by URLs that resolve in both clusters.
func (c *composer) checkPlacedReach() field.ErrorList {
	p := c.sh.Spec.Placement
	errs := check.PlacedReach(placedField, p, c.rs)
	if cs := names.CacheServerOf(c.sh, c.rs); p != nil && cs != "" {
		errs = append(errs, field.Invalid(placedField, p.ProviderConfigRef.Name,
			"the shard would reach CacheServer "+cs+" by its Service name, which resolves only in its own cluster; a placed shard uses the root shard's cache (remove spec.cache, and the RootShard's)"))
	}
	return errs
}
