package kubeconfig

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// Kinds of target.
const (
	KindRootShard  = v1alpha1.KindRootShard
	KindShard      = v1alpha1.KindShard
	KindFrontProxy = v1alpha1.KindFrontProxy
)

// DefaultWorkspace is the workspace the default context opens without spec.targetWorkspace.
const DefaultWorkspace = "root"

// Context and cluster names kcp-operator writes.
const (
	contextDefault   = "default"
	contextBase      = "base"
	contextShardBase = "shard-base"
)

// target is the resolved target of a Kubeconfig: exactly one of rs (alone), sh or fp is the
// target, and rs is always the RootShard whose CAs issue and serve.
type target struct {
	rs   *v1alpha1.RootShard
	root names.RootShard
	// sh is the target Shard, nil unless the target is a Shard.
	sh *v1alpha1.Shard
	// fp is the target FrontProxy, nil unless the target is a FrontProxy.
	fp *v1alpha1.FrontProxy
}

// resolveTarget reads the target and its RootShard, which are required resources. It
// returns why it cannot when one of them is not known.
func (c *composer) resolveTarget() (string, bool) {
	t := c.kc.Spec.Target
	var rootName, via string
	// cfg is the spec.rootShard of the Shard or FrontProxy the target names.
	var cfg *v1alpha1.RootShardConfig
	switch {
	case t.RootShardRef != nil:
		rootName = t.RootShardRef.Name
	case t.ShardRef != nil:
		n := t.ShardRef.Name
		c.b.Inputs.Require(required.Named(KindShard, n))
		sh := &v1alpha1.Shard{}
		if !required.Get(c.b.St, KindShard, n, sh) {
			return fmt.Sprintf("Shard %s (spec.target.shardRef.name) does not exist in namespace %s; create it or fix the reference", n, c.b.Namespace), false
		}
		c.t.sh, cfg, via = sh, &sh.Spec.RootShard, "Shard "+n+", named by spec.target.shardRef.name"
	case t.FrontProxyRef != nil:
		n := t.FrontProxyRef.Name
		c.b.Inputs.Require(required.Named(KindFrontProxy, n))
		fp := &v1alpha1.FrontProxy{}
		if !required.Get(c.b.St, KindFrontProxy, n, fp) {
			return fmt.Sprintf("FrontProxy %s (spec.target.frontProxyRef.name) does not exist in namespace %s; create it or fix the reference", n, c.b.Namespace), false
		}
		c.t.fp, cfg, via = fp, &fp.Spec.RootShard, "FrontProxy "+n+", named by spec.target.frontProxyRef.name"
	}
	if cfg != nil {
		// The Shard or FrontProxy names its RootShard by the XR or by its reference Secret;
		// the kubeconfig follows it the same way.
		if (cfg.Ref == nil || cfg.Ref.Name == "") && (cfg.SecretRef == nil || cfg.SecretRef.Name == "") {
			return fmt.Sprintf("%s names no RootShard in its spec.rootShard", via), false
		}
		c.b.Inputs.Require(required.RootShardRequirement(*cfg))
		if r := cfg.Ref; r != nil && r.Name != "" {
			// Asked for with the RootShard, as below: one round less than after reading it.
			c.b.Inputs.Read(inputs.KindSecret, names.RootShard(r.Name).CA(names.CAServer))
		}
		read := required.ReadRootShard(c.b.St, *cfg, c.b.Namespace)
		switch {
		case read.Invalid != nil:
			return fmt.Sprintf("the RootShard of %s cannot be read: %v", via, read.Invalid), false
		case read.RootShard == nil:
			return fmt.Sprintf("the RootShard of %s: %s", via, read.Missing), false
		}
		rootName = read.RootShard.Name
		c.b.Inputs.Read(inputs.KindSecret, names.RootShard(rootName).CA(names.CAServer))
		c.t.rs, c.t.root = read.RootShard, names.RootShard(rootName)
		return "", true
	}
	c.b.Inputs.Require(required.Named(KindRootShard, rootName))
	// The RootShard's server CA, named after it, is asked for with it (see readOwnSecrets).
	c.b.Inputs.Read(inputs.KindSecret, names.RootShard(rootName).CA(names.CAServer))
	rs, ok := required.RootShard(c.b.St, rootName)
	if !ok {
		return fmt.Sprintf("RootShard %s (spec.target.rootShardRef.name) does not exist in namespace %s; create it or fix the reference", rootName, c.b.Namespace), false
	}
	c.t.rs, c.t.root = rs, names.RootShard(rootName)
	return "", true
}

// caSource is a Secret whose tls.crt the kubeconfig trusts.
type caSource struct {
	secret string
	// what describes the Secret for messages.
	what string
	// user is set for a bundle the user provides.
	user bool
}

// caSources are the RootShard's server CA and, for a FrontProxy with caBundleSecretRef,
// that bundle. A RootShard's or Shard's caBundleSecretRef is not used, as in kcp-operator.
func (t target) caSources() []caSource {
	out := []caSource{{secret: t.root.CA(names.CAServer), what: "the server CA of RootShard " + t.rs.Name}}
	if t.fp != nil {
		if ref := t.fp.Spec.CABundleSecretRef; ref != nil {
			out = append(out, caSource{secret: ref.Name, what: "spec.caBundleSecretRef.name of FrontProxy " + t.fp.Name, user: true})
		}
	}
	return out
}

// BaseURL is the server URL of the base cluster for a resolved target: the RootShard's or
// Shard's base URL, or the FrontProxy's external address.
func (t target) BaseURL() string {
	switch {
	case t.fp != nil:
		return names.FrontProxyURL(t.fp, t.rs)
	case t.sh != nil:
		return names.ShardURL(t.sh)
	}
	return names.RootShardURL(t.rs)
}

// Workspace is the workspace path the default context opens.
func Workspace(kc *v1alpha1.Kubeconfig) string {
	if w := kc.Spec.TargetWorkspace; w != "" {
		return w
	}
	return DefaultWorkspace
}

// layout returns the clusters, contexts and current context kcp-operator writes for the
// target, without credentials.
func (t target) layout(kc *v1alpha1.Kubeconfig) (kubeconfigfile.Embedded, error) {
	base := t.BaseURL()
	if s := kc.Spec.Server; s != "" {
		base = strings.TrimSuffix(s, "/") // validated: https://<host>[:<port>]
	}
	def, err := url.JoinPath(base, "clusters", Workspace(kc))
	if err != nil {
		return kubeconfigfile.Embedded{}, fmt.Errorf("the server URL %q of %s is not a valid URL: %w", base, TargetName(kc), err)
	}
	e := kubeconfigfile.Embedded{
		Clusters:       map[string]string{contextDefault: def, contextBase: base},
		Contexts:       map[string]string{contextDefault: contextDefault, contextBase: contextBase},
		CurrentContext: contextDefault,
	}
	if t.fp == nil {
		// Only shard targets have the shard-base context.
		e.Contexts[contextShardBase] = contextBase
	}
	return e, nil
}

// reservedSecrets maps the name of every Secret the target's installation composes or has
// cert-manager write to a description of it.
func (t target) reservedSecrets() map[string]string {
	out := map[string]string{}
	what := "a Secret of RootShard " + t.rs.Name
	for _, s := range t.root.Secrets() {
		out[s] = what
	}
	if t.sh != nil {
		what := "a Secret of Shard " + t.sh.Name
		for _, s := range names.Shard(t.sh.Name).Secrets() {
			out[s] = what
		}
	}
	if t.fp != nil {
		what := "a Secret of FrontProxy " + t.fp.Name
		for _, s := range frontProxySecrets(t.rs.Name, t.fp.Name) {
			out[s] = what
		}
	}
	return out
}

// frontProxySecrets lists every Secret a FrontProxy's composition writes or has cert-manager
// write, whether or not the spec switches them on.
func frontProxySecrets(rs, fp string) []string {
	root, f := names.RootShard(rs), names.FrontProxy(fp)
	return []string{
		f.Cert(root, "server"), f.Cert(root, "kubeconfig"), f.Cert(root, "requestheader"), f.Cert(root, names.CertPublicServer),
		f.Cert(root, names.CertMonitoring), f.DynamicKubeconfig(root), f.MergedCABundle(), f.MergedClientCA(),
		names.Reference(fp),
	}
}
