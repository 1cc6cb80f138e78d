package workload

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// EtcdTLSOrder is the order in which kcp-operator writes a component's three etcd TLS flags;
// it differs between components, and the composed arguments follow it flag for flag.
type EtcdTLSOrder int

const (
	// CertKeyCA: --etcd-certfile, --etcd-keyfile, --etcd-cafile (a root shard or shard).
	CertKeyCA EtcdTLSOrder = iota
	// CACertKey: --etcd-cafile, --etcd-certfile, --etcd-keyfile (a cache server).
	CACertKey
)

// EtcdFlags returns the --etcd-* flags of a server using the external etcd e, whose client
// certificate Secret is mounted at dir (tls.crt, tls.key, ca.crt).
func EtcdFlags(e v1alpha1.EtcdConfig, dir string, order EtcdTLSOrder) []string {
	args := []string{"--etcd-servers=" + strings.Join(e.Endpoints, ",")}
	if e.Prefix != "" {
		args = append(args, "--etcd-prefix="+e.Prefix)
	}
	if e.TLSConfig == nil {
		return args
	}
	ca, cert, key := "--etcd-cafile="+dir+"/ca.crt", "--etcd-certfile="+dir+"/tls.crt", "--etcd-keyfile="+dir+"/tls.key"
	if order == CACertKey {
		return append(args, ca, cert, key)
	}
	return append(args, cert, key, ca)
}

// shardEtcdDir is where a shard mounts its etcd client certificate, as kcp-operator does.
const shardEtcdDir = "/etc/etcd/tls"

// EmbeddedEtcdDir is where a server keeps kcp's embedded etcd: an emptyDir, since the
// root filesystem is read-only and --root-directory is empty.
const EmbeddedEtcdDir = "/var/etcd"

// EmbeddedEtcd is the flag and scratch volume of kcp's embedded etcd, as kcp-operator gives
// a cache server without an etcd; sizeLimit, when set, bounds the node disk it may fill.
func EmbeddedEtcd(sizeLimit *resource.Quantity) Spec {
	s := Spec{Args: []string{"--embedded-etcd-directory=" + EmbeddedEtcdDir}}
	s.Mounts.EmptyDir("etcd-scratch", EmbeddedEtcdDir, sizeLimit)
	return s
}

// EmbeddedEtcdSizeLimit bounds a root shard's embedded etcd on its node's disk: etcd's own
// backend quota (2 GiB) plus its write-ahead log and snapshots. Past it the kubelet evicts
// the pod, and a development kcp starts over, instead of filling a node the platform shares.
var EmbeddedEtcdSizeLimit = resource.MustParse("4Gi")

// Etcd returns the --etcd-* flags and the client certificate mount of a shard; for a root
// shard that asks for kcp's embedded etcd, no --etcd-servers (kcp's default is its embedded
// etcd) and the embedded etcd's directory.
func Etcd(e v1alpha1.EtcdConfig) Spec {
	if e.Embedded() {
		limit := EmbeddedEtcdSizeLimit
		return EmbeddedEtcd(&limit)
	}
	s := Spec{Args: EtcdFlags(e, shardEtcdDir, CertKeyCA)}
	if e.TLSConfig != nil {
		s.Mounts.Secret("etcd-client-cert", e.TLSConfig.SecretRef.Name, shardEtcdDir)
	}
	return s
}

// Audit returns the audit policy and webhook flags and mounts.
//
// Unlike kcp-operator (quirk 1) the truncate flag is --audit-webhook-truncate-max-event-size,
// the name kcp accepts.
func Audit(a *v1alpha1.AuditSpec) Spec {
	var s Spec
	if a == nil {
		return s
	}
	if p := a.Policy; p != nil && p.ConfigMap != nil {
		s.Mounts.ConfigMap("audit-policy", p.ConfigMap.Name, "/etc/kcp/audit/policy")
		s.Args = append(s.Args, "--audit-policy-file="+path.Join("/etc/kcp/audit/policy", p.ConfigMap.Key))
	}
	w := a.Webhook
	if w == nil {
		return s
	}
	s.Args = appendInt(s.Args, "--audit-webhook-batch-buffer-size", w.BatchBufferSize)
	s.Args = appendInt(s.Args, "--audit-webhook-batch-max-size", w.BatchMaxSize)
	s.Args = appendDuration(s.Args, "--audit-webhook-batch-max-wait", w.BatchMaxWait)
	s.Args = appendInt(s.Args, "--audit-webhook-batch-throttle-burst", w.BatchThrottleBurst)
	if w.BatchThrottleEnable {
		s.Args = append(s.Args, "--audit-webhook-batch-throttle-enable")
	}
	s.Args = appendString(s.Args, "--audit-webhook-batch-throttle-qps", w.BatchThrottleQPS)
	s.Args = appendDuration(s.Args, "--audit-webhook-initial-backoff", w.InitialBackoff)
	s.Args = appendString(s.Args, "--audit-webhook-mode", string(w.Mode))
	if w.TruncateEnabled {
		s.Args = append(s.Args, "--audit-webhook-truncate-enabled")
	}
	s.Args = appendInt(s.Args, "--audit-webhook-truncate-max-batch-size", w.TruncateMaxBatchSize)
	s.Args = appendInt(s.Args, "--audit-webhook-truncate-max-event-size", w.TruncateMaxEventSize)
	s.Args = appendString(s.Args, "--audit-webhook-version", w.Version)
	if w.ConfigSecretName != "" {
		s.Mounts.Secret("audit-webhook-config", w.ConfigSecretName, "/etc/kcp/audit/webhook")
		s.Args = append(s.Args, "--audit-webhook-config-file=/etc/kcp/audit/webhook/kubeconfig")
	}
	return s
}

// Authorization returns the authorization webhook flags and mounts.
func Authorization(a *v1alpha1.AuthorizationSpec) Spec {
	var s Spec
	if a == nil || a.Webhook == nil {
		return s
	}
	w := a.Webhook
	if len(w.AllowPaths) > 0 {
		s.Args = append(s.Args, "--authorization-always-allow-paths="+strings.Join(w.AllowPaths, ","))
	}
	s.Args = appendDuration(s.Args, "--authorization-webhook-cache-authorized-ttl", w.CacheAuthorizedTTL)
	s.Args = appendDuration(s.Args, "--authorization-webhook-cache-unauthorized-ttl", w.CacheUnauthorizedTTL)
	s.Args = appendString(s.Args, "--authorization-webhook-version", w.Version)
	if w.ConfigSecretName != "" {
		s.Mounts.Secret("authorization-webhook-config", w.ConfigSecretName, "/etc/kcp/authorization/webhook")
		s.Args = append(s.Args, "--authorization-webhook-config-file=/etc/kcp/authorization/webhook/kubeconfig")
	}
	return s
}

// DefaultOIDCCAKey is the key of spec.auth.oidc.caFileRef when none is given. kcp-operator
// documents this default but does not apply it (quirk 11); we do.
const DefaultOIDCCAKey = "ca.crt"

// DefaultTokenAuthFileKey is the key of spec.auth.tokenAuthFile when none is given.
const DefaultTokenAuthFileKey = "token.csv"

// Authentication returns the OIDC or structured authentication configuration, token
// webhook, token file and service account flags and mounts. serviceAccountCerts are the service-account certificate Secrets of the RootShard
// and every Shard of the installation, root shard first, then shards sorted by name.
func Authentication(a *v1alpha1.AuthSpec, serviceAccountCerts []ServiceAccountCert) Spec {
	var s Spec
	if a == nil {
		return s
	}
	if o := a.OIDC; o != nil {
		s.Args = appendString(s.Args, "--oidc-issuer-url", o.IssuerURL)
		s.Args = appendString(s.Args, "--oidc-client-id", o.ClientID)
		s.Args = appendString(s.Args, "--oidc-groups-claim", o.GroupsClaim)
		s.Args = appendString(s.Args, "--oidc-username-claim", o.UsernameClaim)
		s.Args = appendString(s.Args, "--oidc-username-prefix", o.UsernamePrefix)
		s.Args = appendString(s.Args, "--oidc-groups-prefix", o.GroupsPrefix)
		if ref := o.CAFileRef; ref != nil {
			key := ref.Key
			if key == "" {
				key = DefaultOIDCCAKey
			}
			s.Mounts.Secret("oidc-ca-file", ref.Name, "/etc/kcp/tls/oidc")
			s.Args = append(s.Args, "--oidc-ca-file=/etc/kcp/tls/oidc/"+key)
		}
	}
	if c := a.AuthenticationConfiguration; c != nil {
		s.Mounts.ConfigMap("authentication-config", c.Name, "/etc/kcp/authentication/config")
		s.Args = append(s.Args, "--authentication-config="+path.Join("/etc/kcp/authentication/config", c.Key))
	}
	if w := a.Webhook; w != nil {
		s.Args = appendDuration(s.Args, "--authentication-token-webhook-cache-ttl", w.CacheAuthenticationTTL)
		s.Args = appendString(s.Args, "--authentication-token-webhook-version", w.Version)
		s.Mounts.Secret("authentication-webhook-config", w.ConfigSecretName, "/etc/kcp/authentication/webhook")
		s.Args = append(s.Args, "--authentication-token-webhook-config-file=/etc/kcp/authentication/webhook/kubeconfig")
	}
	if t := a.TokenAuthFile; t != nil {
		key := t.Key
		if key == "" {
			key = DefaultTokenAuthFileKey
		}
		s.Mounts.Secret("token-auth-file", t.SecretName, "/etc/kcp/authentication/token")
		s.Args = append(s.Args, "--token-auth-file=/etc/kcp/authentication/token/"+key)
	}
	if a.ServiceAccount != nil && a.ServiceAccount.Enabled {
		s.Args = append(s.Args, "--service-account-lookup=false")
		for _, sa := range serviceAccountCerts {
			dir := fmt.Sprintf("/etc/kcp/tls/%s/service-account", sa.Owner)
			s.Mounts.Secret(sa.Secret, sa.Secret, dir)
			s.Args = append(s.Args, "--service-account-key-file="+dir+"/tls.crt")
		}
	}
	return s
}

// ServiceAccountCert is the service-account certificate Secret of one shard.
type ServiceAccountCert struct {
	// Owner is the RootShard or Shard name.
	Owner string
	// Secret is <owner>-service-account.
	Secret string
}

func appendString(args []string, flag, v string) []string {
	if v == "" {
		return args
	}
	return append(args, flag+"="+v)
}

func appendInt(args []string, flag string, v int) []string {
	if v == 0 {
		return args
	}
	return append(args, flag+"="+strconv.Itoa(v))
}

func appendDuration(args []string, flag string, d *metav1.Duration) []string {
	// An explicit 0s is passed on: for the cache TTLs it turns the cache off.
	if d == nil {
		return args
	}
	return append(args, flag+"="+d.Duration.String())
}
