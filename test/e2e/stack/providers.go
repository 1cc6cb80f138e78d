package stack

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Provider is a provider the package runtime runs (with ProviderKubernetes set).
type Provider struct {
	Revision string
	Image    string
	// Binary is the file extracted from the package's runtime image.
	Binary string
	// User is the service account user it authenticates to the API server as.
	User string
	// Health serves the provider's /readyz, in its network namespace.
	Health string
	proc   *proc.Process
	net    *podNet
}

// Providers returns the providers running now.
func (s *Stack) Providers() []Provider {
	if s.runtime == nil {
		return nil
	}
	s.runtime.mu.Lock()
	defer s.runtime.mu.Unlock()
	out := make([]Provider, 0, len(s.runtime.providers))
	for _, p := range s.runtime.providers {
		out = append(out, *p)
	}
	return out
}

// providerRevision is the part of a ProviderRevision the runtime reads.
type providerRevision struct {
	Object
	Spec struct {
		Image        string `json:"image"`
		DesiredState string `json:"desiredState"`
	} `json:"spec"`
	Status struct {
		TLSServerSecretName string      `json:"tlsServerSecretName"`
		ResolvedImage       string      `json:"resolvedImage"`
		Conditions          []Condition `json:"conditions"`
	} `json:"status"`
}

func (p providerRevision) condition(t string) Condition {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return Condition{Type: t, Status: "Unknown"}
}

// reconcileProviders runs every active ProviderRevision as the Deployment runtime would run
// its pod, and stops what no longer is active.
func (r *packageRuntime) reconcileProviders(ctx context.Context) error {
	var list struct {
		Items []providerRevision `json:"items"`
	}
	if err := r.s.Get(ctx, "/apis/pkg.crossplane.io/v1/providerrevisions", &list); err != nil {
		return err
	}
	active := map[string]bool{}
	var errs []string
	for _, rev := range list.Items {
		if rev.Spec.DesiredState != "Active" {
			continue
		}
		active[rev.Metadata.Name] = true
		if err := r.reconcileProviderRevision(ctx, rev); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", rev.Metadata.Name, err))
		}
	}
	r.mu.Lock()
	for name, p := range r.providers {
		if !active[name] {
			p.stop()
			delete(r.providers, name)
			r.logf("%s: no longer active; stopped", name)
		}
	}
	r.mu.Unlock()
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// reconcileProviderRevision plays the Deployment runtime's hooks: before the revision
// establishes its CRDs, a TLS server Secret (Crossplane injects its certificate into the
// CRDs' conversion webhooks) named in status.tlsServerSecretName; once the CRDs are
// established and the RBAC manager wrote the provider's system ClusterRole, the provider's
// process, as its service account's user bound to that role; then RuntimeHealthy.
func (r *packageRuntime) reconcileProviderRevision(ctx context.Context, rev providerRevision) error {
	name := rev.Metadata.Name
	secret := name + "-tls-server"
	if rev.Status.TLSServerSecretName != secret {
		if _, err := r.providerTLS(ctx, rev); err != nil {
			return err
		}
		patch := fmt.Sprintf(`{"status":{"tlsServerSecretName":%q}}`, secret)
		if _, err := r.s.Kubectl(ctx, []byte(patch), "patch", "providerrevision", name, "--subresource=status", "--type=merge", "--patch-file=/dev/stdin"); err != nil {
			return err
		}
		r.logf("%s: set status.tlsServerSecretName %s", name, secret)
		return nil
	}
	if c := rev.condition("RevisionHealthy"); c.Status != "True" {
		return nil // Its CRDs are not established yet.
	}
	role := "crossplane:provider:" + name + ":system"
	var clusterRole Object
	if err := r.s.Get(ctx, "/apis/rbac.authorization.k8s.io/v1/clusterroles/"+url.PathEscape(role), &clusterRole); errors.Is(err, cluster.ErrNotFound) {
		return nil // The RBAC manager has not written it yet.
	} else if err != nil {
		return err
	}

	r.mu.Lock()
	p := r.providers[name]
	r.mu.Unlock()
	if p == nil {
		var err error
		if p, err = r.runProvider(ctx, rev, role); err != nil {
			return err
		}
		r.mu.Lock()
		r.providers[name] = p
		r.mu.Unlock()
	}
	if err := p.proc.Exited(); err != nil {
		return err
	}
	// A kcp stand-in front started or stopped while this provider started.
	if err := r.s.syncPodNet(p.net); err != nil {
		return err
	}
	if rev.condition("RuntimeHealthy").Status == "True" {
		return nil
	}
	return r.markRuntimeHealthy(ctx, "providerrevision", name, len(rev.Status.Conditions) == 0)
}

// providerTLS issues the revision's webhook serving certificate (signed by Crossplane's CA,
// for the Service the Deployment runtime would create, and 127.0.0.1), writes it to the
// revision's tls directory and to its TLS server Secret, and returns the directory.
func (r *packageRuntime) providerTLS(ctx context.Context, rev providerRevision) (string, error) {
	name := rev.Metadata.Name
	data, err := r.s.SecretData(ctx, crossplaneNamespace, rootCASecret)
	if err != nil {
		return "", err
	}
	ca, err := certs.LoadCA(data["tls.crt"], data["tls.key"])
	if err != nil {
		return "", fmt.Errorf("secret %s/%s: %w", crossplaneNamespace, rootCASecret, err)
	}
	svc := rev.Metadata.Labels["pkg.crossplane.io/package"]
	kp, err := ca.Issue(certs.Leaf{
		CommonName: svc, Usage: x509.ExtKeyUsageServerAuth,
		IPs:      []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames: []string{svc, svc + "." + crossplaneNamespace, svc + "." + crossplaneNamespace + ".svc", "localhost"},
	})
	if err != nil {
		return "", err
	}
	// The provider's user must traverse the directories above its own TLS directory.
	dir := filepath.Join(r.s.Dir, "providers", name, "tls")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	for file, b := range map[string][]byte{"ca.crt": ca.PEM, "tls.crt": kp.CertPEM, "tls.key": kp.KeyPEM} {
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o600); err != nil {
			return "", err
		}
	}
	sec := map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name + "-tls-server", "namespace": crossplaneNamespace,
			"ownerReferences": []OwnerReference{revisionOwner(rev)}},
		"type":       "Opaque",
		"stringData": map[string]string{"tls.crt": string(kp.CertPEM), "tls.key": string(kp.KeyPEM), "ca.crt": string(ca.PEM)},
	}
	b, _ := json.Marshal(sec)
	return dir, r.s.Apply(ctx, b)
}

func revisionOwner(rev providerRevision) OwnerReference {
	return OwnerReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: rev.Metadata.Name, UID: rev.Metadata.UID}
}

// runProvider starts the revision's provider: the image's entrypoint, as the Deployment
// runtime's pod would run it, with the service account the runtime would create bound to the
// provider's system ClusterRole (the Deployment runtime's binding names the Deployment's
// service account; with no Deployment the RBAC manager's binding has no subject, so the
// harness binds it, to the same role). The process reads the harness's /etc (hosts entries
// for the kcp stand-ins) and, as root, runs hardened like the function.
func (r *packageRuntime) runProvider(ctx context.Context, rev providerRevision, role string) (*Provider, error) {
	name := rev.Metadata.Name
	image := rev.Status.ResolvedImage
	if image == "" {
		image = rev.Spec.Image
	}
	dir := filepath.Join(r.s.Dir, "providers", name)
	bin, imageUser, err := extractEntrypoint(ctx, image, dir)
	if err != nil {
		return nil, fmt.Errorf("cannot extract the provider from %s: %w", image, err)
	}
	tlsDir, err := r.providerTLS(ctx, rev)
	if err != nil {
		return nil, err
	}
	owner := revisionOwner(rev)
	rbac := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
			"metadata": map[string]any{"name": name, "namespace": crossplaneNamespace, "ownerReferences": []OwnerReference{owner}}},
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
			"metadata": map[string]any{"name": "e2e-package-runtime:" + name, "ownerReferences": []OwnerReference{owner}},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": crossplaneNamespace}}},
	}}
	b, _ := json.Marshal(rbac)
	if err := r.s.Apply(ctx, b); err != nil {
		return nil, err
	}
	user := "system:serviceaccount:" + crossplaneNamespace + ":" + name
	kubeconfig, err := r.s.UserKubeconfig(user, "system:serviceaccounts", "system:serviceaccounts:"+crossplaneNamespace)
	if err != nil {
		return nil, err
	}
	etc, err := r.s.etcDir()
	if err != nil {
		return nil, err
	}
	pn, err := r.s.newProviderNet(ctx, name)
	if err != nil {
		return nil, err
	}
	// Its own network namespace: any port is free there.
	p := &Provider{Revision: name, Image: image, Binary: bin, User: user, Health: "127.0.0.1:8081", net: pn}
	args := append([]string{"--health-probe-bind-addr=" + p.Health}, r.s.opts.ProviderKubernetes.args()...)
	env := []string{
		"KUBECONFIG=" + kubeconfig,
		"TLS_SERVER_CERTS_DIR=" + tlsDir, "WEBHOOK_TLS_CERT_DIR=" + tlsDir,
		"POD_NAMESPACE=" + crossplaneNamespace,
		"PROVIDER_NAME=" + rev.Metadata.Labels["pkg.crossplane.io/package"],
		"REVISION_NAME=" + name, "REVISION_UID=" + rev.Metadata.UID,
	}
	var command []string
	if os.Geteuid() == 0 {
		uid, gid, err := numericUser(imageUser)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", image, err)
		}
		// The CA certificate the kubeconfig names is public (a pod reads it from its service
		// account volume): readable by the image's user too.
		if err := os.Chmod(r.s.CAFile(), 0o644); err != nil {
			return nil, err
		}
		// In a cluster these are mounted for the pod's user; here they are the image user's.
		base := strings.TrimSuffix(kubeconfig, ".kubeconfig")
		for _, f := range []string{tlsDir, filepath.Join(tlsDir, "ca.crt"), filepath.Join(tlsDir, "tls.crt"), filepath.Join(tlsDir, "tls.key"),
			kubeconfig, base + ".crt", base + ".key"} {
			if err := os.Chown(f, uid, gid); err != nil {
				return nil, err
			}
		}
		command = HardenedWithEtc(uid, gid, etc, append([]string{bin}, args...)...)
		r.logf("%s: runs as %d:%d (user %s to the API server) with /etc from %s, every filesystem read-only, no capabilities", name, uid, gid, user, etc)
	} else {
		command = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" /etc && exec "$@"`, etc, bin}, args...)
		r.logf("%s: not root, so the provider runs as this user (user %s to the API server) with /etc from %s", name, user, etc)
	}
	command = pn.command(command...)
	p.proc, err = r.s.start("provider-"+name, env, command[0], command[1:]...)
	if err != nil {
		pn.close()
		return nil, err
	}
	r.logf("%s: started %s %s in a network namespace of its own", name, bin, strings.Join(args, " "))
	hc := pn.httpClient()
	if err := r.s.Eventually(ctx, time.Minute, "provider "+name+" /readyz", func(ctx context.Context) (bool, string, error) {
		resp, err := hc.Get("http://" + p.Health + "/readyz")
		if err != nil {
			return false, "", err
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status, nil
	}); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

func (p *Provider) stop() {
	p.proc.Stop(10 * time.Second)
	p.net.close()
}

// markRuntimeHealthy adds the RuntimeHealthy condition to a package revision's status, as the
// Deployment runtime does once the pod is available.
func (r *packageRuntime) markRuntimeHealthy(ctx context.Context, kind, name string, noConditions bool) error {
	cond := map[string]string{
		"type": "RuntimeHealthy", "status": "True", "reason": "HealthyPackageRevision",
		"message":            "served by the e2e package runtime (not a Deployment)",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}
	op := []map[string]any{{"op": "add", "path": "/status/conditions/-", "value": cond}}
	if noConditions {
		op = []map[string]any{{"op": "add", "path": "/status/conditions", "value": []any{cond}}}
	}
	b, _ := json.Marshal(op)
	if _, err := r.s.Kubectl(ctx, b, "patch", kind, name, "--subresource=status", "--type=json", "--patch-file=/dev/stdin"); err != nil {
		return err
	}
	r.logf("%s: set RuntimeHealthy", name)
	return nil
}
