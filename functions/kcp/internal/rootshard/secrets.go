package rootshard

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/crossplane/function-sdk-go/resource"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/gate"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kubeconfig"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// composeKubeconfigs composes the two kubeconfig Secrets the root shard uses to reach
// logical clusters as their admin, through its own URL and through the external one.
func (c *composer) composeKubeconfigs() {
	internal := kubeconfig.Files{
		ClusterName: "root-shard", Server: c.baseURL, CAFile: kcpserver.PathServerCA,
		UserName: "shard", CertFile: kcpserver.DirLogicalClusterAdmin + "/tls.crt", KeyFile: kcpserver.DirLogicalClusterAdmin + "/tls.key",
		ContextName: "shard-base",
	}
	c.addSecret(c.name.LogicalClusterAdminKubeconfig(), map[string][]byte{"kubeconfig": internal.Config().Marshal()})

	ext := c.rs.Spec.External
	server := ExternalURL(c.rs)
	if ext.PrivateHostname != "" {
		port := ext.Port
		if ext.PrivatePort != nil {
			port = *ext.PrivatePort
		}
		server = "https://" + net.JoinHostPort(ext.PrivateHostname, strconv.FormatUint(uint64(port), 10))
	}
	ca := kcpserver.PathServerCA
	if c.rs.Spec.CABundleSecretRef != nil {
		ca = kcpserver.PathCABundle
	}
	external := kubeconfig.Files{
		ClusterName: "root-shard", Server: server, CAFile: ca,
		UserName: "shard", CertFile: kcpserver.DirExternalLCA + "/tls.crt", KeyFile: kcpserver.DirExternalLCA + "/tls.key",
		ContextName: "shard-base",
	}
	c.addSecret(c.name.ExternalLogicalClusterAdminKubeconfig(), map[string][]byte{"kubeconfig": external.Config().Marshal()})
}

// composeMergedBundles composes the CA bundles that combine an issued CA with a CA bundle
// the user provides. They need the CA certificates' data, read as required resources; until
// that is available an existing bundle is kept as it is.
func (c *composer) composeMergedBundles() {
	s := c.rs.Spec
	serverCA, clientCA := c.name.CA(names.CAServer), c.name.CA(names.CAClient)
	var clientBundle, caBundle []string
	if ref := s.ClientCABundleRef; ref != nil {
		clientBundle = []string{ref.Name}
	}
	if ref := s.CABundleSecretRef; ref != nil {
		caBundle = []string{ref.Name}
	}
	if len(caBundle) > 0 {
		c.mergedBundle(c.name.MergedCABundle(), serverCA, caBundle)
		c.mergedBundle(c.name.ProxyMergedCABundle(), serverCA, caBundle)
	}
	if len(clientBundle) > 0 {
		c.mergedBundle(c.name.MergedClientCA(), clientCA, clientBundle)
	}
	// The proxy's client CA bundle always exists, even without a user bundle.
	c.mergedBundle(c.name.ProxyMergedClientCA(), clientCA, clientBundle)
}

// mergedBundle composes Secret name whose tls.crt is the issued CA's tls.crt followed by the
// tls.crt of each user Secret, joined by newlines as kcp-operator does.
func (c *composer) mergedBundle(name, issuedCA string, userSecrets []string) {
	key := c.key("secret", name)
	c.inputs.Composed(gate.KindSecret, name, key)
	parts := make([]string, 0, 1+len(userSecrets))
	sources := append([]string{issuedCA}, userSecrets...)
	var missing []string
	pending := false
	for _, src := range sources {
		c.inputs.Read(gate.KindSecret, src)
		l := c.st.Secret(src)
		crt := l.Data["tls.crt"]
		if !l.Found || len(crt) == 0 {
			if c.inputs.Pending(src, c.st) {
				// Not issued yet: CertificatesReady already says so.
				pending = true
				continue
			}
			missing = append(missing, src)
			continue
		}
		parts = append(parts, string(crt))
	}
	if len(missing) > 0 || pending {
		c.keepOrWait(key, missing, fmt.Sprintf("tls.crt of Secret %s (to build Secret %s)", strings.Join(missing, ", "), name))
		return
	}
	c.addSecret(name, map[string][]byte{"tls.crt": []byte(strings.Join(parts, "\n"))})
}

// addSecret composes a Secret of this RootShard, labelled as kcp-operator labels its Secrets.
func (c *composer) addSecret(name string, data map[string][]byte) {
	key := c.key("secret", name)
	c.inputs.Composed(gate.KindSecret, name, key)
	sec := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: c.namespace,
			Labels: map[string]string{names.LabelOwnerRootShard: string(c.name)},
		},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
	c.out.Desired.Add(key, sec, readiness(c.st.Exists(key)))
}

// keepOrWait carries an observed object forward unchanged when it cannot be rebuilt now:
// never delete what exists because an input is momentarily unavailable. Missing inputs are
// reported with why.
func (c *composer) keepOrWait(key resource.Name, missing []string, why string) {
	_, exists := c.st.Get(key)
	if exists {
		u, _ := c.st.Get(key)
		c.out.Desired.Keep(key, u, resource.ReadyTrue)
		why += ", kept unchanged meanwhile"
	}
	if len(missing) > 0 {
		c.waiting = append(c.waiting, why)
	}
}
