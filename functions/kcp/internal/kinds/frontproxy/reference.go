package frontproxy

import (
	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// composeReference publishes the FrontProxy's reference Secret: its public URL; as ca.crt
// what a kubeconfig to it trusts, the RootShard's server CA and spec.caBundleSecretRef (the
// Kubeconfig kind's CA sources); as client-ca.crt the RootShard's client CA, which issues
// every kubeconfig's client certificate, its front-proxy client CA. Called last: it waits for
// every certificate.
func (c *composer) composeReference() {
	ca := []string{c.root.CA(names.CAServer)}
	if ref := c.fp.Spec.CABundleSecretRef; ref != nil {
		ca = append(ca, ref.Name)
	}
	r := reference.Reference{Kind: v1alpha1.KindFrontProxy, Name: c.fp.Name, Namespace: c.b.Namespace, URL: names.FrontProxyURL(c.fp, c.rs)}
	c.b.Reference(r, map[string]string{names.LabelOwnerFrontProxy: string(c.name)},
		builder.ReferenceCAs{CA: ca, ClientCA: []string{c.root.CA(names.CAClient)}})
}
