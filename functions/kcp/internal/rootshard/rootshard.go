// Package rootshard composes everything kcp-operator creates for a RootShard: its PKI (root
// CA, four intermediate CAs and their Issuers, the leaf certificates), the logical-cluster-admin
// kubeconfigs, merged CA bundles, the <rs>-kcp Deployment and Service, and the internal
// <rs>-proxy with its certificates, path mapping and kubeconfig.
//
// Compose is a pure function of the XR and the observed state, so it is table-tested without
// gRPC.
package rootshard

import (
	"fmt"
	"net/url"

	"github.com/crossplane/function-sdk-go/resource"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/gate"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/workload"
)

// Result is what the function should return for one RootShard.
type Result struct {
	Desired      desired.Set
	Requirements []gate.Requirement
	Status       v1alpha1.RootShardStatus
	Conditions   []condition.Condition
	// NotReady forces the XR not ready, e.g. while a workload is not composed yet: the
	// composed resources that do exist could otherwise all be ready.
	NotReady bool
	Warnings []string
}

// composer holds what every step of one composition needs.
type composer struct {
	rs        *v1alpha1.RootShard
	name      names.RootShard
	namespace string
	baseURL   string
	image     workload.Image
	st        *observed.State
	inputs    gate.Inputs
	out       Result
	// certificates lists the keys of every composed Certificate, for CertificatesReady.
	certificates []resource.Name
	// waiting describes inputs that are missing, for InputsReady.
	waiting []string
}

// Compose composes a RootShard. The XR must have passed Validate.
func Compose(rs *v1alpha1.RootShard, st *observed.State) Result {
	c := &composer{
		rs:        rs,
		name:      names.RootShard(rs.GetName()),
		namespace: rs.GetNamespace(),
		baseURL:   BaseURL(rs),
		image:     workload.ResolveImage(rs.Spec.Image),
		st:        st,
	}
	c.registerExternalInputs()
	c.composePKI()
	c.composeKubeconfigs()
	c.composeMergedBundles()
	shard := c.composeRootShardWorkload()
	proxy := c.composeProxy()
	c.report(shard, proxy)
	c.out.Requirements = c.inputs.Requirements()
	return c.out
}

// BaseURL is where other kcp components reach the root shard.
func BaseURL(rs *v1alpha1.RootShard) string {
	if rs.Spec.ShardBaseURL != "" {
		return rs.Spec.ShardBaseURL
	}
	return fmt.Sprintf("https://%s:6443",
		names.ServiceFQDN(names.RootShard(rs.GetName()).Deployment(), rs.GetNamespace(), rs.Spec.ClusterDomain))
}

// ExternalURL is the public URL of the installation.
func ExternalURL(rs *v1alpha1.RootShard) string { return kcpserver.ExternalURL(rs.Spec.External) }

// rootCASecret is the Secret holding the root CA key pair. Unlike kcp-operator (quirk 5),
// workloads mount the caSecretRef Secret when one is given, instead of <rs>-ca.
func (c *composer) rootCASecret() string {
	if ref := c.rs.Spec.Certificates.CASecretRef; ref != nil {
		return ref.Name
	}
	return c.name.RootCA()
}

// key is the stable composition resource name of an object of this RootShard, e.g.
// certificate-server-ca for the Certificate <rs>-server-ca.
func (c *composer) key(kind, objectName string) resource.Name {
	prefix := string(c.name) + "-"
	if len(objectName) > len(prefix) && objectName[:len(prefix)] == prefix {
		objectName = objectName[len(prefix):]
	}
	return resource.Name(kind + "-" + objectName)
}

// registerExternalInputs declares the user's Secrets and ConfigMaps that workloads mount, so
// they are read as required resources and gate the workloads.
func (c *composer) registerExternalInputs() {
	s := c.rs.Spec
	if ref := s.Certificates.CASecretRef; ref != nil {
		c.inputs.External(gate.KindSecret, ref.Name, "spec.certificates.caSecretRef.name")
	}
	if ref := s.CABundleSecretRef; ref != nil {
		c.inputs.External(gate.KindSecret, ref.Name, "spec.caBundleSecretRef.name")
	}
	if ref := s.ClientCABundleRef; ref != nil {
		c.inputs.External(gate.KindSecret, ref.Name, "spec.clientCABundleRef.name")
	}
	if ref := s.Cache.Ref; ref != nil {
		cs := names.CacheServer(ref.Name)
		for _, n := range []string{cs.Kubeconfig(), cs.CA(), cs.ClientCertificate()} {
			c.inputs.External(gate.KindSecret, n, "spec.cache.ref.name (CacheServer "+ref.Name+")")
		}
	}
	if t := s.Etcd.TLSConfig; t != nil {
		c.inputs.External(gate.KindSecret, t.SecretRef.Name, "spec.etcd.tlsConfig.secretRef.name")
	}
	if a := s.Audit; a != nil {
		if a.Policy != nil && a.Policy.ConfigMap != nil {
			c.inputs.External(gate.KindConfigMap, a.Policy.ConfigMap.Name, "spec.audit.policy.configMap.name")
		}
		if a.Webhook != nil && a.Webhook.ConfigSecretName != "" {
			c.inputs.External(gate.KindSecret, a.Webhook.ConfigSecretName, "spec.audit.webhook.configSecretName")
		}
	}
	if a := s.Authorization; a != nil && a.Webhook != nil && a.Webhook.ConfigSecretName != "" {
		c.inputs.External(gate.KindSecret, a.Webhook.ConfigSecretName, "spec.authorization.webhook.configSecretName")
	}
	if a := s.Auth; a != nil {
		if a.OIDC != nil && a.OIDC.CAFileRef != nil {
			c.inputs.External(gate.KindSecret, a.OIDC.CAFileRef.Name, "spec.auth.oidc.caFileRef.name")
		}
		if a.Webhook != nil {
			c.inputs.External(gate.KindSecret, a.Webhook.ConfigSecretName, "spec.auth.webhook.configSecretName")
		}
		if a.TokenAuthFile != nil {
			c.inputs.External(gate.KindSecret, a.TokenAuthFile.SecretName, "spec.auth.tokenAuthFile.secretName")
		}
	}
}

// hostOf returns the hostname of a URL, or "" when it has none.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
