package scenarios

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
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

// The names examples/authentication gives what a platform brings: its identity provider, its
// webhooks, and the Secrets that point kcp at them.
const (
	authIssuer    = "https://login.auth.example.com"
	authHooksHost = "hooks.auth.example.com"
	authClientID  = "kcp"
	// authFrontProxyHost is the installation's front-proxy; authExtensionsHost the FrontProxy
	// XR beside it that maps /ext/ to the extension.
	authFrontProxyHost = "api.auth.example.com"
	authExtensionsHost = "ext.auth.example.com"
	// authStructuredShard is the Shard XR beside the installation that authenticates with the
	// structured configuration instead of the --oidc-* flags.
	authStructuredShard = "sso"
)

// authStandIn stands in for what a platform brings to examples/authentication and kcp calls:
// an OIDC identity provider (discovery and signing keys; the test signs the ID tokens it would
// hand out) and the token, authorization and audit webhooks. It is not an identity provider
// such as Dex or Keycloak: kcp's side of each protocol is real, this side is the least that
// speaks it. With RealKCP it serves HTTPS on a pod of its own (realkcp.Cluster.Listen) and
// records what kcp asked; on kwok only its Secrets are used.
type authStandIn struct {
	// issuer is the OIDC issuer's URL; hooksHost, when set, serves the webhooks too.
	issuer, hooksHost string

	once             sync.Once
	caPEM            []byte
	serving          tls.Certificate
	signer           *rsa.PrivateKey
	ciToken, hookTok string

	mu      sync.Mutex
	reviews []accessReview // SubjectAccessReviews kcp sent, in order
	audited []string       // users of the audit events kcp sent
	hooked  int            // TokenReviews answered authenticated
	ext     []extRequest   // requests the front-proxy's path mapping /ext/ passed on
}

// extRequest is a request kcp's front-proxy passed on to the extension (/ext/).
type extRequest struct {
	User, Groups, ClientCert string
}

// accessReview is what kcp asked the authorization webhook.
type accessReview struct {
	User   string
	Groups []string
	What   string // "<verb> <resource>" or "<verb> <path>"
}

var authStandInOfExample = &authStandIn{issuer: authIssuer, hooksHost: authHooksHost}

func (a *authStandIn) init(t *testing.T) {
	t.Helper()
	a.once.Do(func() {
		ca, err := certs.NewCA("OIDC issuer and webhooks stand-in CA")
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := ca.Issue(certs.Leaf{CommonName: "login", Usage: x509.ExtKeyUsageServerAuth,
			DNSNames: a.hosts()})
		if err != nil {
			t.Fatal(err)
		}
		if a.serving, err = tls.X509KeyPair(leaf.CertPEM, leaf.KeyPEM); err != nil {
			t.Fatal(err)
		}
		if a.signer, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			t.Fatal(err)
		}
		a.caPEM, a.ciToken, a.hookTok = ca.PEM, randomToken(t), randomToken(t)
	})
}

// hosts are the names the stand-in serves: the issuer's, and the webhooks'.
func (a *authStandIn) hosts() []string {
	hosts := []string{strings.TrimPrefix(a.issuer, "https://")}
	if a.hooksHost != "" {
		hosts = append(hosts, a.hooksHost)
	}
	return hosts
}

func randomToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// manifests are the Secrets examples/authentication names (testdata/secrets.yaml shows their
// shape), pointing at this stand-in.
func (a *authStandIn) manifests(t *testing.T, ns string) []byte {
	t.Helper()
	a.init(t)
	kubeconfig := func(path string) string {
		kc, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Config",
			"clusters":        []any{map[string]any{"name": "webhook", "cluster": map[string]any{"server": "https://" + a.hooksHost + path, "certificate-authority-data": b64(a.caPEM)}}},
			"users":           []any{map[string]any{"name": "kcp", "user": map[string]any{}}},
			"contexts":        []any{map[string]any{"name": "webhook", "context": map[string]any{"cluster": "webhook", "user": "kcp"}}},
			"current-context": "webhook"})
		if err != nil {
			t.Fatal(err)
		}
		return b64(kc)
	}
	secret := func(name, key, value string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: %s}\ndata: {%s: %s}\n", name, ns, key, value)
	}
	return []byte(strings.Join([]string{
		secret("login-ca", "ca.crt", b64(a.caPEM)),
		secret("kcp-tokens", "token.csv", b64([]byte(a.ciToken+`,ci-bot,ci-bot,"ci,oidc:ci"`+"\n"))),
		secret("kcp-token-webhook", "kubeconfig", kubeconfig("/authenticate")),
		secret("kcp-authorization-webhook", "kubeconfig", kubeconfig("/authorize")),
		secret("kcp-audit-webhook", "kubeconfig", kubeconfig("/audit")),
		a.structuredAuth(t, ns),
	}, "---\n"))
}

// structuredAuth is the ConfigMap kcp-structured-auth: the stand-in issuer in a structured
// authentication configuration, its users and groups prefixed sso:, verified e-mail only.
func (a *authStandIn) structuredAuth(t *testing.T, ns string) string {
	t.Helper()
	config, err := yaml.Marshal(map[string]any{"apiVersion": "apiserver.config.k8s.io/v1beta1", "kind": "AuthenticationConfiguration",
		"jwt": []any{map[string]any{
			"issuer":               map[string]any{"url": a.issuer, "audiences": []string{authClientID}, "certificateAuthority": string(a.caPEM)},
			"claimMappings":        map[string]any{"username": map[string]any{"claim": "email", "prefix": "sso:"}, "groups": map[string]any{"claim": "groups", "prefix": "sso:"}},
			"claimValidationRules": []any{map[string]any{"expression": "claims.email_verified == true", "message": "only verified e-mail addresses sign in"}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "kcp-structured-auth", "namespace": ns},
		"data": map[string]any{"config.yaml": string(config)}})
	if err != nil {
		t.Fatal(err)
	}
	return string(cm)
}

// serve runs the stand-in on the pod network of c until the test ends.
func (a *authStandIn) serve(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster) {
	t.Helper()
	a.init(t)
	l, err := c.Listen(ctx, "auth-standin", 443, a.hosts()...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"issuer": a.issuer, "jwks_uri": a.issuer + "/keys", "authorization_endpoint": a.issuer + "/auth",
			"response_types_supported": []string{"id_token"}, "subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, _ *http.Request) {
		pub := a.signer.PublicKey
		writeJSON(w, map[string]any{"keys": []any{map[string]any{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
			"n": base64.RawURLEncoding.EncodeToString(pub.N.Bytes()), "e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes())}}})
	})
	mux.HandleFunc("POST /authenticate", a.tokenReview)
	mux.HandleFunc("POST /authorize", a.accessReview)
	mux.HandleFunc("POST /audit", a.auditEvents)
	mux.HandleFunc("/ext/", a.extension)
	// Client certificates are asked for, not verified: the extension records whom the
	// front-proxy presented itself as.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, TLSConfig: &tls.Config{Certificates: []tls.Certificate{a.serving},
		MinVersion: tls.VersionTLS12, ClientAuth: tls.RequestClientCert}}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	e.Step("auth stand-in: OIDC issuer %s, serving %s (not a real identity provider: kcp's side of each protocol is)", a.issuer, strings.Join(a.hosts(), ", "))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// tokenReview authenticates the hook token as user hooked of group hooked-team, and no other.
func (a *authStandIn) tokenReview(w http.ResponseWriter, r *http.Request) {
	var rev struct {
		APIVersion string                 `json:"apiVersion"`
		Spec       struct{ Token string } `json:"spec"`
	}
	if err := json.NewDecoder(r.Body).Decode(&rev); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	status := map[string]any{"authenticated": false}
	if rev.Spec.Token == a.hookTok {
		status = map[string]any{"authenticated": true, "user": map[string]any{"username": "hooked", "uid": "hooked", "groups": []string{"hooked-team"}}}
		a.mu.Lock()
		a.hooked++
		a.mu.Unlock()
	}
	writeJSON(w, map[string]any{"apiVersion": rev.APIVersion, "kind": "TokenReview", "status": status})
}

// accessReview records what kcp asks and allows oidc:alice@example.com to list namespaces,
// nothing else: whatever else it is asked, it has no opinion.
func (a *authStandIn) accessReview(w http.ResponseWriter, r *http.Request) {
	var rev struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			User   string   `json:"user"`
			Groups []string `json:"groups"` // authorization.k8s.io/v1
			// Group is v1beta1's name for the groups, kcp's default version
			// (--authorization-webhook-version).
			Group              []string `json:"group"`
			ResourceAttributes *struct {
				Verb, Resource string
			} `json:"resourceAttributes"`
			NonResourceAttributes *struct{ Verb, Path string } `json:"nonResourceAttributes"`
		} `json:"spec"`
	}
	if err := json.NewDecoder(r.Body).Decode(&rev); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s := rev.Spec
	what := ""
	if ra := s.ResourceAttributes; ra != nil {
		what = ra.Verb + " " + ra.Resource
	} else if na := s.NonResourceAttributes; na != nil {
		what = na.Verb + " " + na.Path
	}
	a.mu.Lock()
	a.reviews = append(a.reviews, accessReview{User: s.User, Groups: append(s.Groups, s.Group...), What: what})
	a.mu.Unlock()
	allowed := s.User == "oidc:alice@example.com" && what == "list namespaces"
	writeJSON(w, map[string]any{"apiVersion": rev.APIVersion, "kind": "SubjectAccessReview", "status": map[string]any{"allowed": allowed}})
}

// auditEvents records the user of each audit event kcp sends.
func (a *authStandIn) auditEvents(w http.ResponseWriter, r *http.Request) {
	var list struct {
		Items []struct {
			User struct{ Username string } `json:"user"`
		} `json:"items"`
	}
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	for _, ev := range list.Items {
		a.audited = append(a.audited, ev.User.Username)
	}
	a.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// extension answers what the front-proxy's path mapping passes on: the user and groups of
// its headers, and the subject of the client certificate it presented.
func (a *authStandIn) extension(w http.ResponseWriter, r *http.Request) {
	req := extRequest{User: r.Header.Get("X-Remote-User"), Groups: strings.Join(r.Header.Values("X-Remote-Group"), ",")}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		req.ClientCert = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	a.mu.Lock()
	a.ext = append(a.ext, req)
	a.mu.Unlock()
	writeJSON(w, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success", "message": req.User + " in " + req.Groups + " via " + req.ClientCert})
}

// idToken is an ID token of the stand-in issuer for email (verified), in groups, valid for
// an hour.
func (a *authStandIn) idToken(t *testing.T, email string, groups ...string) string {
	t.Helper()
	return a.idTokenWith(t, map[string]any{"email": email, "email_verified": true, "groups": groups})
}

// idTokenWith is an ID token of the stand-in issuer with claims besides iss, aud, sub (the
// email claim), iat and exp, valid for an hour.
func (a *authStandIn) idTokenWith(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	all := map[string]any{"iss": a.issuer, "aud": authClientID, "sub": claims["email"], "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	maps.Copy(all, claims)
	signed := enc(map[string]any{"alg": "RS256", "kid": "k1", "typ": "JWT"}) + "." + enc(all)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, a.signer, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// reviewsOf are the access reviews kcp sent for user so far.
func (a *authStandIn) reviewsOf(user string) []accessReview {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []accessReview
	for _, r := range a.reviews {
		if r.User == user {
			out = append(out, r)
		}
	}
	return out
}

// asUser is a kubeconfig like adminKubeconfig, at server (its path kept) when set, that
// authenticates with a bearer token instead of the admin's certificate.
func asUser(t *testing.T, adminKubeconfig []byte, server, token string) []byte {
	t.Helper()
	kc := adminKubeconfig
	if server != "" {
		kc = withServer(t, kc, server, nil)
	}
	var m map[string]any
	if err := yaml.Unmarshal(kc, &m); err != nil {
		t.Fatal(err)
	}
	for _, u := range m["users"].([]any) {
		u.(map[string]any)["user"] = map[string]any{"token": token}
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// check proves examples/authentication on real kcp, through the front-proxy at fpURL and at
// the root shard directly (shardURL), as kcp's authorization webhook (the stand-in) was asked:
// who the request was from, in which groups; and, through the front-proxy at extURL, its
// path mapping to the extension.
func (a *authStandIn) check(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, p, rootShard *realkcp.Pod, adminKubeconfig []byte, fpURL, extURL, shardURL, ssoURL string) {
	t.Helper()
	as := func(name, server, token string) kubectlFunc {
		return podKubectl(t, c, p, name, asUser(t, adminKubeconfig, server, token))
	}
	// eventually retries until kcp answers as want (the OIDC authenticator fetches the
	// issuer's keys in the background after start).
	eventually := func(what string, k kubectlFunc, wantOK bool, args ...string) string {
		t.Helper()
		var out string
		if err := e.Eventually(ctx, 2*time.Minute, what, func(ctx context.Context) (bool, string, error) {
			var err error
			out, err = k(ctx, "", args...)
			if wantOK {
				return err == nil, out, nil
			}
			return err != nil && strings.Contains(strings.ToLower(out), "forbidden"), out, nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// groupsSeen are user's groups in the webhook's last review of a request of user's.
	groupsSeen := func(user string) []string {
		t.Helper()
		rs := a.reviewsOf(user)
		if len(rs) == 0 {
			t.Fatalf("the authorization webhook was never asked about %s", user)
		}
		return rs[len(rs)-1].Groups
	}
	has := func(groups []string, g string) bool { return slices.Contains(groups, g) }
	// step reports a finding, while no check has failed: a later finding may rest on an
	// earlier one.
	step := func(format string, args ...any) {
		if !t.Failed() {
			e.Step(format, args...)
		}
	}

	// OIDC through the front-proxy: alice's token is accepted, kcp's RBAC allows her nothing,
	// the webhook allows her to list namespaces and nothing else.
	alice := a.idToken(t, "alice@example.com", "team-a", "contractors")
	viaProxy := as("alice-via-proxy", fpURL, alice)
	start := time.Now()
	out := eventually("alice (OIDC) lists namespaces through the front-proxy, as the authorization webhook allows", viaProxy, true, "get", "namespaces", "-o", "name")
	g := groupsSeen("oidc:alice@example.com")
	if !has(g, "oidc:team-a") || has(g, "oidc:contractors") {
		t.Errorf("through the front-proxy kcp saw alice in groups %v, want oidc:team-a passed on and oidc:contractors dropped (dropGroups)", g)
	}
	step("RealKCP auth: an ID token of the stand-in issuer accepted by the front-proxy %.1fs after kcp served; the authorization webhook let oidc:alice@example.com list %s, groups as kcp saw them %v", time.Since(start).Seconds(), strings.Join(strings.Fields(out), " "), g)
	eventually("alice may not list configmaps: neither kcp's RBAC nor the webhook allows it", viaProxy, false, "get", "configmaps", "-n", "default")

	// OIDC at the root shard itself: the issuer's groups as they are.
	eventually("alice (OIDC) lists namespaces at the root shard directly", as("alice-direct", shardURL, alice), true, "get", "namespaces")
	if g := groupsSeen("oidc:alice@example.com"); !has(g, "oidc:contractors") {
		t.Errorf("at the root shard kcp saw alice in groups %v, want oidc:contractors (only the front-proxy drops it)", g)
	}
	step("RealKCP auth: the root shard accepts the same ID token itself, with group oidc:contractors the front-proxy drops")

	// The token file, at the front-proxy (passOnGroups keeps oidc:ci, not ci) and the shard.
	eventually("ci-bot (token file) reaches kcp through the front-proxy", as("ci-via-proxy", fpURL, a.ciToken), false, "get", "namespaces")
	if g := groupsSeen("ci-bot"); !has(g, "oidc:ci") || has(g, "ci") {
		t.Errorf("through the front-proxy kcp saw ci-bot in groups %v, want only passOnGroups' oidc:ci of ci and oidc:ci", g)
	}
	eventually("ci-bot (token file) reaches the root shard", as("ci-direct", shardURL, a.ciToken), false, "get", "namespaces")
	if g := groupsSeen("ci-bot"); !has(g, "ci") {
		t.Errorf("at the root shard kcp saw ci-bot in groups %v, want ci", g)
	}
	step("RealKCP auth: a static token of the token file accepted by the front-proxy (groups passed on: oidc:ci of ci, oidc:ci) and by the root shard")

	// The token webhook, at the root shard.
	eventually("a token the token webhook reviews reaches the root shard", as("hooked-direct", shardURL, a.hookTok), false, "get", "namespaces")
	if g := groupsSeen("hooked"); !has(g, "hooked-team") {
		t.Errorf("kcp saw the webhook's user in groups %v, want hooked-team", g)
	}
	step("RealKCP auth: a token the token webhook reviewed accepted by the root shard as user hooked, group hooked-team")

	// A service account token, through the front-proxy.
	admin := podKubectl(t, c, p, "auth-admin", adminKubeconfig)
	if out, err := admin(ctx, "", "create", "serviceaccount", "robot", "-n", "default"); err != nil && !strings.Contains(out, "AlreadyExists") {
		t.Fatalf("create serviceaccount: %v\n%s", err, out)
	}
	var token string
	if err := e.Eventually(ctx, time.Minute, "a token for service account robot", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "create", "token", "robot", "-n", "default")
		token = strings.TrimSpace(out)
		return err == nil, out, nil
	}); err != nil {
		t.Fatal(err)
	}
	eventually("service account robot's token reaches kcp through the front-proxy", as("robot-via-proxy", fpURL, token), false, "get", "configmaps", "-n", "default")
	if rs := a.reviewsOf("system:serviceaccount:default:robot"); len(rs) == 0 {
		t.Error("the authorization webhook was never asked about system:serviceaccount:default:robot")
	}
	step("RealKCP auth: a service account token of the root shard accepted through the front-proxy as system:serviceaccount:default:robot")

	// The audit webhook received alice's requests.
	if err := e.Eventually(ctx, time.Minute, "the audit webhook receives alice's requests", func(context.Context) (bool, string, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		return slices.Contains(a.audited, "oidc:alice@example.com"), fmt.Sprintf("%d events", len(a.audited)), nil
	}); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	events, hooked := len(a.audited), a.hooked
	a.mu.Unlock()
	step("RealKCP auth: the audit webhook received %d events, alice's among them; the token webhook authenticated %d requests", events, hooked)

	// The extensions front-proxy passes /ext/ on to the extension, with alice's identity.
	if extURL != "" {
		ext := podKubectl(t, c, p, "alice-ext", replaceServer(t, asUser(t, adminKubeconfig, "", alice), extURL, false, nil))
		eventually("alice (OIDC) reaches the extension through the extensions front-proxy's path mapping /ext/", ext, true, "get", "--raw", "/ext/whoami")
		a.mu.Lock()
		last := a.ext[len(a.ext)-1]
		a.mu.Unlock()
		if last.User != "sso:alice@example.com" || !strings.Contains(last.Groups, "sso:team-a") || last.ClientCert == "" {
			t.Errorf("the extension was passed user %q, groups %q, by a client certificate %q; want sso:alice@example.com (the structured configuration's prefix), sso:team-a among the groups, and the front-proxy's certificate", last.User, last.Groups, last.ClientCert)
		} else {
			step("RealKCP auth: structured authentication and additionalPathMappings: %s/ext/whoami reached the extension as %s (groups %s), the front-proxy presenting certificate %q", extURL, last.User, last.Groups, last.ClientCert)
		}
		// The configuration's rule: an unverified e-mail address does not sign in.
		unverified := a.idTokenWith(t, map[string]any{"email": "mallory@example.com", "email_verified": false, "groups": []string{"team-a"}})
		out, err := podKubectl(t, c, p, "mallory-ext", replaceServer(t, asUser(t, adminKubeconfig, "", unverified), extURL, false, nil))(ctx, "", "get", "--raw", "/ext/whoami")
		if err == nil || !strings.Contains(out, "Unauthorized") {
			t.Errorf("an ID token with email_verified false reached the extension through the structured configuration: %v\n%s", err, out)
		} else {
			step("RealKCP auth: the structured configuration's claim rule refused an unverified e-mail address (Unauthorized)")
		}
	}

	// The shard sso authenticates the same issuer's tokens through the structured
	// configuration: users prefixed sso:, verified e-mail addresses only.
	if ssoURL != "" {
		sso := func(name, token string) kubectlFunc { return as(name, ssoURL, token) }
		out := eventually("alice (structured configuration) authenticates at the shard sso; kcp's RBAC forbids her the ConfigMaps", sso("alice-sso", alice), false, "get", "configmaps", "-n", "default")
		if !strings.Contains(out, `User "sso:alice@example.com"`) {
			t.Errorf("the shard sso did not authenticate alice's ID token as sso:alice@example.com: %s", out)
		}
		unverified := a.idTokenWith(t, map[string]any{"email": "mallory@example.com", "email_verified": false})
		if out, err := sso("mallory-sso", unverified)(ctx, "", "get", "configmaps", "-n", "default"); err == nil || !strings.Contains(out, "Unauthorized") {
			t.Errorf("the shard sso accepted an ID token with email_verified false: %v\n%s", err, out)
		}
		step("RealKCP auth: the shard sso (auth.authenticationConfiguration, --authentication-config) authenticated the issuer's ID token as sso:alice@example.com and refused an unverified e-mail address (Unauthorized)")
	}

	// The root shard runs with WorkspaceMounts on: the replica running kcp's controllers
	// starts the workspace mounts controller, which kcp installs only with the gate.
	const mounts = `"controller":"kcp-workspace-mounts"`
	if err := e.Eventually(ctx, time.Minute, "the root shard starts kcp's workspace mounts controller", func(context.Context) (bool, string, error) {
		log, err := os.ReadFile(filepath.Join(rootShard.Dir(), "kcp.log"))
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, `"msg":"starting registered controller"`) && strings.Contains(l, mounts) {
				return true, "", nil
			}
		}
		return false, "not in " + rootShard.Name + "'s log", err
	}); err != nil {
		t.Error(err)
	} else {
		step("RealKCP auth: --feature-gates=WorkspaceMounts=true: %s started kcp's workspace mounts controller, which kcp installs only with the gate", rootShard.Name)
	}
}
