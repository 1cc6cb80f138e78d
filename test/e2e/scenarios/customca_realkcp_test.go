package scenarios

import (
	"context"
	"crypto/x509"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// The names examples/custom-ca gives what an organisation brings: its etcd cluster and its
// identity provider.
const (
	customCAIssuer = "https://login.example.com"
	// customCARootShardHost is the RootShard's shardBaseURL host.
	customCARootShardHost = "root.kcp.example.com"
	// customCAPublicHost is the FrontProxy kcp's public name (port 443).
	customCAPublicHost = "api.kcp.example.com"
)

// customCAEtcdHosts are the etcd endpoints examples/custom-ca names, in namespace ns.
func customCAEtcdHosts(ns string) []string {
	var hosts []string
	for i := range 3 {
		hosts = append(hosts, fmt.Sprintf("etcd-%d.etcd.%s.svc.cluster.local", i, ns))
	}
	return hosts
}

// customCAStandIn stands in for the PKI and infrastructure an organisation brings to
// examples/custom-ca: its root CA key pair (caSecretRef), an etcd CA with a client
// certificate for kcp (etcd.tlsConfig), an older client CA whose certificates stay trusted
// (clientCABundleRef), a public CA (caBundleSecretRef), its OIDC issuer (an authStandIn), an
// image pull secret and an audit policy. On kwok only its Secrets are used; with RealKCP its
// etcd serves mutual TLS and its issuer serves kcp.
type customCAStandIn struct {
	oidc        *authStandIn
	etcdHostsOf func(ns string) []string

	once                       sync.Once
	root, etcd, legacy, public *certs.CA
	etcdServing, etcdClient    certs.KeyPair
	legacyAdmin                certs.KeyPair // CN legacy-admin, O system:kcp:admin, of the legacy CA
}

var customCAStandInOfExample = &customCAStandIn{oidc: &authStandIn{issuer: customCAIssuer}, etcdHostsOf: customCAEtcdHosts}

func (s *customCAStandIn) init(t *testing.T, ns string) {
	t.Helper()
	s.once.Do(func() {
		ca := func(cn string) *certs.CA {
			c, err := certs.NewCA(cn)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		issue := func(ca *certs.CA, l certs.Leaf) certs.KeyPair {
			kp, err := ca.Issue(l)
			if err != nil {
				t.Fatal(err)
			}
			return kp
		}
		s.root, s.etcd, s.legacy, s.public = ca("Example Org root CA"), ca("Example Org etcd CA"), ca("Example Org legacy client CA"), ca("Example public CA")
		s.etcdServing = issue(s.etcd, certs.Leaf{CommonName: "etcd", Usage: x509.ExtKeyUsageServerAuth, DNSNames: s.etcdHostsOf(ns)})
		s.etcdClient = issue(s.etcd, certs.Leaf{CommonName: "kcp-root", Usage: x509.ExtKeyUsageClientAuth})
		s.legacyAdmin = issue(s.legacy, certs.Leaf{CommonName: "legacy-admin", Organization: []string{"system:kcp:admin"}, Usage: x509.ExtKeyUsageClientAuth})
	})
	s.oidc.init(t)
}

// manifests are the Secrets and ConfigMap examples/custom-ca names (testdata/ shows their
// shape).
func (s *customCAStandIn) manifests(t *testing.T, ns string) []byte {
	t.Helper()
	s.init(t, ns)
	doc := func(o map[string]any) string {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	secret := func(name, typ string, data map[string][]byte) string {
		d := map[string]any{}
		for k, v := range data {
			d[k] = b64(v)
		}
		return doc(map[string]any{"apiVersion": "v1", "kind": "Secret", "type": typ, "metadata": map[string]any{"name": name, "namespace": ns}, "data": d})
	}
	return []byte(strings.Join([]string{
		secret("kcp-root-ca", "kubernetes.io/tls", map[string][]byte{"tls.crt": s.root.PEM, "tls.key": s.root.KeyPEM}),
		secret("etcd-client-tls", "Opaque", map[string][]byte{"tls.crt": s.etcdClient.CertPEM, "tls.key": s.etcdClient.KeyPEM, "ca.crt": s.etcd.PEM}),
		secret("legacy-client-cas", "Opaque", map[string][]byte{"tls.crt": s.legacy.PEM}),
		secret("public-ca-bundle", "Opaque", map[string][]byte{"tls.crt": s.public.PEM}),
		secret("oidc-ca", "Opaque", map[string][]byte{"ca.crt": s.oidc.caPEM}),
		secret("registry-credentials", "kubernetes.io/dockerconfigjson", map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}),
		doc(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "kcp-audit-policy", "namespace": ns},
			"data": map[string]any{"policy.yaml": "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"}}),
	}, "---\n"))
}

// testCustomCARealKCP runs examples/custom-ca's pods as real kcp: its etcd endpoints resolve
// to one etcd member of the stand-in that serves mutual TLS and accepts only certificates of
// the stand-in's etcd CA, and its OIDC issuer is the stand-in's. Then, at the root shard
// directly, through its proxy and through the front-proxy:
//   - every etcd key the root shard wrote lies under the example's prefix /kcp/root (its
//     embedded cache's under /cache);
//   - a client that trusts only the organisation's root CA (caSecretRef) verifies kcp's
//     serving certificate, issued by cert-manager from that CA;
//   - a client certificate of the legacy CA (clientCABundleRef), never known to cert-manager,
//     is accepted as the admin by the root shard, its proxy and the front-proxy, and a
//     workspace created through the front-proxy with the Kubeconfig XR's admin is Ready;
//   - an ID token of the issuer and a service account token are accepted by the root shard;
//   - the root shard's three replicas elect one leader and fail over (checkReplicasOnRealKCP).
func testCustomCARealKCP(ctx context.Context, t *testing.T, e *env, binDir string, tp topology) {
	ns := tp.namespace
	s := tp.customCA
	s.init(t, ns)
	c := startRealKCP(ctx, t, e, binDir, ns)
	etcd, err := c.RunEtcdTLS(ctx, "etcd", realkcp.EtcdTLS{CertPEM: s.etcdServing.CertPEM, KeyPEM: s.etcdServing.KeyPEM, ClientCAPEM: s.etcd.PEM}, s.etcdHostsOf(ns)...)
	if err != nil {
		t.Fatal(err)
	}
	s.oidc.serve(ctx, t, e, c)
	pods := runNamespace(ctx, t, e, c, ns)
	rootShard, proxy, frontProxy := pods["root-kcp"], pods["root-proxy"], pods["kcp-front-proxy"]
	if rootShard == nil || proxy == nil || frontProxy == nil {
		t.Fatalf("no pod of Deployment root-kcp, root-proxy or kcp-front-proxy in %s: %v", ns, slices.Sorted(maps.Keys(pods)))
	}
	for host, p := range map[string]*realkcp.Pod{customCARootShardHost: rootShard, customCAPublicHost: frontProxy} {
		if err := c.Host(host, p.IP); err != nil {
			t.Fatal(err)
		}
	}
	exited := anyExited(pods)

	// The admin: a certificate of the legacy client CA, to a client that trusts only the
	// organisation's root CA.
	shardURL := "https://" + customCARootShardHost + ":6443"
	kubeconfig := func(server string, roots []byte, user map[string]any) []byte {
		kc, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Config",
			"clusters":        []any{map[string]any{"name": "kcp", "cluster": map[string]any{"server": server + "/clusters/root", "certificate-authority-data": b64(roots)}}},
			"users":           []any{map[string]any{"name": "user", "user": user}},
			"contexts":        []any{map[string]any{"name": "kcp", "context": map[string]any{"cluster": "kcp", "user": "user"}}},
			"current-context": "kcp"})
		if err != nil {
			t.Fatal(err)
		}
		return kc
	}
	legacyAdmin := map[string]any{"client-certificate-data": b64(s.legacyAdmin.CertPEM), "client-key-data": b64(s.legacyAdmin.KeyPEM)}
	direct := podKubectl(t, c, proxy, "legacy-admin-direct", kubeconfig(shardURL, s.root.PEM, legacyAdmin))
	start := time.Now()
	if err := e.Eventually(ctx, 4*time.Minute, "the root shard serves the legacy CA's admin, verified against the organisation's root CA", func(ctx context.Context) (bool, string, error) {
		out, err := direct(ctx, "", "get", "workspaces")
		return err == nil, out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP %s: the root shard answers %.1fs after start on etcd over mutual TLS (%d endpoints, one stand-in member); a client trusting only the root CA of caSecretRef verifies it, and accepts the legacy client CA's legacy-admin (O=system:kcp:admin)", ns, time.Since(start).Seconds(), len(s.etcdHostsOf(ns)))

	// The legacy admin through the root shard's proxy and the front-proxy, each of whose
	// client CAs include the RootShard's clientCABundleRef; the Kubeconfig XR's admin through
	// the front-proxy.
	for _, at := range []struct{ name, what, url string }{
		{"root-proxy", "the root shard's proxy", "https://root-proxy." + ns + ".svc.cluster.local:6443"},
		{"front-proxy", "the front-proxy", "https://" + customCAPublicHost + ":443"},
	} {
		k := podKubectl(t, c, proxy, "legacy-admin-"+at.name, kubeconfig(at.url, s.root.PEM, legacyAdmin))
		if err := e.Eventually(ctx, 2*time.Minute, at.what+" serves the legacy CA's admin", func(ctx context.Context) (bool, string, error) {
			out, err := k(ctx, "", "get", "workspaces")
			return err == nil, out, exited()
		}); err != nil {
			t.Fatal(err)
		}
		e.Step("RealKCP %s: %s at %s serves legacy-admin too, to a client trusting only the root CA", ns, at.what, at.url)
	}
	admin := podKubectl(t, c, proxy, "kcp-admin", secretKey(ctx, t, e, ns, tp.adminSecret, "kubeconfig"))
	if out, err := admin(ctx, "", "get", "workspaces"); err != nil {
		t.Fatalf("the admin kubeconfig %s: %v\n%s", tp.adminSecret, err, out)
	}
	start = time.Now()
	createWorkspaceReady(ctx, t, e, admin, "custom-ca", exited)
	e.Step("RealKCP %s: workspace custom-ca, created through the front-proxy with the admin kubeconfig %s, Ready %.1fs after create", ns, tp.adminSecret, time.Since(start).Seconds())

	// etcd: every key under the prefix, read with kcp's own client certificate.
	tlsDir := filepath.Join(etcd.Dir(), "tls")
	for f, b := range map[string][]byte{"client.crt": s.etcdClient.CertPEM, "client.key": s.etcdClient.KeyPEM} {
		if err := os.WriteFile(filepath.Join(tlsDir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := etcd.Command(ctx, nil, os.Getenv(envEtcdctl), "--endpoints=https://"+s.etcdHostsOf(ns)[0]+":2379",
		"--cacert="+filepath.Join(tlsDir, "client-ca.crt"), "--cert="+filepath.Join(tlsDir, "client.crt"), "--key="+filepath.Join(tlsDir, "client.key"),
		"get", "", "--from-key", "--keys-only").Output()
	if err != nil {
		t.Fatalf("etcdctl get in the etcd pod: %v", err)
	}
	// The root shard's own keys are under the prefix; its embedded cache's (the RootShard's
	// cache: {}) under /cache, where kcp v0.32.3 keeps them whatever the prefix
	// (docs/self-service.md, the cache server).
	var under, cache int
	var stray []string
	for _, k := range strings.Fields(string(keys)) {
		switch {
		case strings.HasPrefix(k, "/kcp/root/"):
			under++
		case strings.HasPrefix(k, "/cache/"):
			cache++
		default:
			stray = append(stray, k)
		}
	}
	if under == 0 || len(stray) > 0 {
		t.Errorf("etcd holds %d keys under /kcp/root/, %d under /cache/ and %d elsewhere (%v); want every key of the root shard under its etcd.prefix", under, cache, len(stray), firstN(stray, 5))
	} else {
		e.Step("RealKCP %s: etcd holds %d keys of the root shard, every one under its etcd.prefix /kcp/root/, and %d of its embedded cache under /cache/ (kcp v0.32.3 ignores the prefix there)", ns, under, cache)
	}

	// OIDC and service account tokens, at the root shard: each authenticates (kcp's RBAC then
	// forbids the user what it was not granted).
	asUserAt := func(name, token string) kubectlFunc {
		return podKubectl(t, c, proxy, name, kubeconfig(shardURL, s.root.PEM, map[string]any{"token": token}))
	}
	forbiddenAs := func(what string, k kubectlFunc, user string) {
		t.Helper()
		if err := e.Eventually(ctx, 2*time.Minute, what, func(ctx context.Context) (bool, string, error) {
			out, err := k(ctx, "", "get", "configmaps", "-n", "default")
			return err != nil && strings.Contains(out, `User "`+user+`"`), out, exited()
		}); err != nil {
			t.Fatal(err)
		}
	}
	start = time.Now()
	forbiddenAs("an ID token of "+customCAIssuer+" authenticates at the root shard", asUserAt("alice", s.oidc.idToken(t, "alice@example.com", "team-a")), "oidc:alice@example.com")
	e.Step("RealKCP %s: an ID token of the stand-in issuer %s authenticated by the root shard as oidc:alice@example.com %.1fs after the first try", ns, customCAIssuer, time.Since(start).Seconds())
	if out, err := direct(ctx, "", "create", "serviceaccount", "robot", "-n", "default"); err != nil && !strings.Contains(out, "AlreadyExists") {
		t.Fatalf("create serviceaccount: %v\n%s", err, out)
	}
	var token string
	if err := e.Eventually(ctx, time.Minute, "a token for service account robot", func(ctx context.Context) (bool, string, error) {
		out, err := direct(ctx, "", "create", "token", "robot", "-n", "default")
		token = strings.TrimSpace(out)
		return err == nil, out, nil
	}); err != nil {
		t.Fatal(err)
	}
	forbiddenAs("service account robot's token authenticates at the root shard", asUserAt("robot", token), "system:serviceaccount:default:robot")
	e.Step("RealKCP %s: a service account token of the root shard authenticated as system:serviceaccount:default:robot", ns)

	checkReplicasOnRealKCP(ctx, t, e, c, pods, admin, ns)
}

// firstN is at most n of s.
func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
