package stack

import (
	"archive/tar"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// packageRuntime stands in for Crossplane's Deployment package runtime, which would run each
// active FunctionRevision's image as a pod: for every active revision it pulls the revision's
// image from the registry, extracts the image's entrypoint binary, serves it on 127.0.0.1
// with mTLS (server certificate signed by Crossplane's CA, Crossplane's client certificates
// verified against the same CA), and sets the revision's status.endpoint, its TLS server
// Secret and a RuntimeHealthy condition, as the runtime controller would.
type packageRuntime struct {
	s    *Stack
	dir  string
	logf func(format string, args ...any)

	mu        sync.Mutex
	functions map[string]*Function // by FunctionRevision name
	providers map[string]*Provider // by ProviderRevision name
	done      chan struct{}
	cancel    context.CancelFunc
}

// Function is a function the package runtime runs.
type Function struct {
	Revision string
	Image    string
	// Endpoint is the gRPC address Crossplane dials; Metrics serves Prometheus metrics.
	Endpoint, Metrics string
	// Binary is the file extracted from the package's runtime image.
	Binary string
	proc   *proc.Process
}

func newPackageRuntime(s *Stack) *packageRuntime {
	dir := filepath.Join(s.Dir, "functions")
	r := &packageRuntime{s: s, dir: dir, functions: map[string]*Function{}, providers: map[string]*Provider{}, done: make(chan struct{})}
	logPath := filepath.Join(dir, "runtime.log")
	r.logf = func(format string, args ...any) {
		_ = os.MkdirAll(dir, 0o755)
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		defer f.Close() //nolint:errcheck // Best-effort log.
		fmt.Fprintf(f, "%s %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	return r
}

// Functions returns the functions running now.
func (s *Stack) Functions() []Function {
	if s.runtime == nil {
		return nil
	}
	s.runtime.mu.Lock()
	defer s.runtime.mu.Unlock()
	out := make([]Function, 0, len(s.runtime.functions))
	for _, f := range s.runtime.functions {
		out = append(out, *f)
	}
	return out
}

// run reconciles every second until stop.
func (r *packageRuntime) run(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	defer close(r.done)
	for {
		if err := r.reconcile(ctx); err != nil && ctx.Err() == nil {
			r.logf("reconcile: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (r *packageRuntime) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.functions {
		f.proc.Stop(5 * time.Second)
	}
	for _, p := range r.providers {
		p.stop()
	}
}

// functionRevision is the part of a FunctionRevision the runtime reads.
type functionRevision struct {
	Object
	Spec struct {
		Image        string `json:"image"`
		DesiredState string `json:"desiredState"`
	} `json:"spec"`
	Status struct {
		Endpoint            string      `json:"endpoint"`
		TLSServerSecretName string      `json:"tlsServerSecretName"`
		ResolvedImage       string      `json:"resolvedImage"`
		Conditions          []Condition `json:"conditions"`
	} `json:"status"`
}

func (r *packageRuntime) reconcile(ctx context.Context) error {
	var list struct {
		Items []functionRevision `json:"items"`
	}
	if err := r.s.Get(ctx, "/apis/pkg.crossplane.io/v1/functionrevisions", &list); err != nil {
		return err
	}
	var errs []error
	active := map[string]bool{}
	for _, rev := range list.Items {
		if rev.Spec.DesiredState != "Active" {
			continue
		}
		active[rev.Metadata.Name] = true
		if err := r.reconcileRevision(ctx, rev); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", rev.Metadata.Name, err))
		}
	}
	// A function whose revision is gone or inactive (its Function deleted, as the real-kcp
	// scenario deletes its demo function) stops, as the Deployment runtime's pod would go,
	// and leaves the stack's processes: a process the runtime stopped did not die.
	r.mu.Lock()
	for name, f := range r.functions {
		if !active[name] {
			f.proc.Stop(5 * time.Second)
			r.s.forget(f.proc)
			delete(r.functions, name)
			r.logf("%s: no longer active; stopped", name)
		}
	}
	r.mu.Unlock()
	if r.s.opts.ProviderKubernetes != nil {
		errs = append(errs, r.reconcileProviders(ctx))
	}
	return errors.Join(errs...)
}

func (r *packageRuntime) reconcileRevision(ctx context.Context, rev functionRevision) error {
	name := rev.Metadata.Name
	r.mu.Lock()
	f := r.functions[name]
	r.mu.Unlock()
	if f == nil {
		image := rev.Status.ResolvedImage
		if image == "" {
			image = rev.Spec.Image
		}
		var err error
		if f, err = r.serve(ctx, name, image); err != nil {
			return err
		}
		r.mu.Lock()
		r.functions[name] = f
		r.mu.Unlock()
		r.logf("%s: serving %s (%s) at %s, metrics at %s", name, image, f.Binary, f.Endpoint, f.Metrics)
	}
	if err := f.proc.Exited(); err != nil {
		return err
	}

	secret := name + "-tls-server"
	if rev.Status.Endpoint != f.Endpoint || rev.Status.TLSServerSecretName != secret {
		patch := fmt.Sprintf(`{"status":{"endpoint":%q,"tlsServerSecretName":%q}}`, f.Endpoint, secret)
		if _, err := r.s.Kubectl(ctx, []byte(patch), "patch", "functionrevision", name, "--subresource=status", "--type=merge", "--patch-file=/dev/stdin"); err != nil {
			return err
		}
		r.logf("%s: set status.endpoint %s", name, f.Endpoint)
	}
	for _, c := range rev.Status.Conditions {
		if c.Type == "RuntimeHealthy" && c.Status == "True" {
			return nil
		}
	}
	return r.markRuntimeHealthy(ctx, "functionrevision", name, len(rev.Status.Conditions) == 0)
}

// serve extracts the image's entrypoint, writes its TLS files and the revision's TLS Secret,
// and starts it.
func (r *packageRuntime) serve(ctx context.Context, revision, image string) (*Function, error) {
	dir := filepath.Join(r.dir, revision)
	bin, user, err := extractEntrypoint(ctx, image, dir)
	if err != nil {
		return nil, fmt.Errorf("cannot extract the function from %s: %w", image, err)
	}

	data, err := r.s.SecretData(ctx, crossplaneNamespace, rootCASecret)
	if err != nil {
		return nil, err
	}
	ca, err := certs.LoadCA(data["tls.crt"], data["tls.key"])
	if err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", crossplaneNamespace, rootCASecret, err)
	}
	kp, err := ca.Issue(certs.Leaf{
		CommonName: revision, Usage: x509.ExtKeyUsageServerAuth,
		IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	})
	if err != nil {
		return nil, err
	}
	tlsDir := filepath.Join(dir, "tls")
	if err := os.MkdirAll(tlsDir, 0o700); err != nil {
		return nil, err
	}
	for file, b := range map[string][]byte{"ca.crt": ca.PEM, "tls.crt": kp.CertPEM, "tls.key": kp.KeyPEM} {
		if err := os.WriteFile(filepath.Join(tlsDir, file), b, 0o600); err != nil {
			return nil, err
		}
	}
	secret := map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": revision + "-tls-server", "namespace": crossplaneNamespace},
		"type":     "Opaque",
		"stringData": map[string]string{
			"tls.crt": string(kp.CertPEM), "tls.key": string(kp.KeyPEM), "ca.crt": string(ca.PEM),
		},
	}
	sb, _ := json.Marshal(secret)
	if err := r.s.Apply(ctx, sb); err != nil {
		return nil, err
	}

	ports, err := cluster.FreePorts(2)
	if err != nil {
		return nil, err
	}
	f := &Function{
		Revision: revision, Image: image, Binary: bin,
		Endpoint: fmt.Sprintf("127.0.0.1:%d", ports[0]),
		Metrics:  fmt.Sprintf("127.0.0.1:%d", ports[1]),
	}
	// Like the Deployment runtime: the image's entrypoint, TLS_SERVER_CERTS_DIR in the
	// environment. The address flags only bind to loopback instead of every interface.
	command := []string{bin, "--address=" + f.Endpoint, "--metrics-address=" + f.Metrics}
	if os.Geteuid() == 0 {
		uid, gid, err := numericUser(user)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", image, err)
		}
		// The TLS files are mounted for the pod's user in a cluster; here they are the
		// image user's files.
		for _, p := range []string{tlsDir, filepath.Join(tlsDir, "ca.crt"), filepath.Join(tlsDir, "tls.crt"), filepath.Join(tlsDir, "tls.key")} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
		command = Hardened(uid, gid, command...)
		r.logf("%s: runs as %d:%d with every filesystem read-only, no capabilities, no new privileges", revision, uid, gid)
	} else {
		r.logf("%s: not root, so the function runs as this user with writable filesystems", revision)
	}
	f.proc, err = r.s.start("function-"+revision, []string{"TLS_SERVER_CERTS_DIR=" + tlsDir}, command[0], command[1:]...)
	if err != nil {
		return nil, err
	}
	return f, r.s.Eventually(ctx, 30*time.Second, "function "+revision+" metrics", func(ctx context.Context) (bool, string, error) {
		return HTTPOK(ctx, "http://"+f.Metrics+"/metrics")
	})
}

// Hardened wraps a command line so that it runs as a pod with the hardened
// DeploymentRuntimeConfig of docs/reliability.md would: in a mount namespace of its own in
// which every filesystem is remounted read-only (bind remounts: the flags change for this
// namespace only), as uid:gid, with every capability dropped and no new privileges. The
// process keeps its pid through each exec. Needs root, unshare and setpriv (util-linux).
func Hardened(uid, gid int, command ...string) []string {
	return HardenedWithEtc(uid, gid, "", command...)
}

// HardenedWithEtc is Hardened with the directory etc, when not empty, bind-mounted on /etc
// (read-only too, in that namespace only): a process that resolves Service names gets the
// harness's hosts file there, which the harness can still rewrite from outside.
func HardenedWithEtc(uid, gid int, etc string, command ...string) []string {
	// Mount points with escaped characters (\040 for a space) are left alone: none of the
	// filesystems a function reads has one.
	// /etc is replaced after the remounts: awk may be an /etc/alternatives symlink.
	const readOnly = `etc=$1; shift; ` +
		`awk '{print $2}' /proc/self/mounts | grep -v '\\' | while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null || true; done; ` +
		`if [ -n "$etc" ]; then mount --bind "$etc" /etc && mount -o remount,bind,ro /etc || exit 1; fi; exec "$@"`
	return append([]string{
		"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", readOnly, "sh", etc,
		"setpriv", fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", gid), "--clear-groups",
		"--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--",
	}, command...)
}

// numericUser parses an image's numeric user, "uid" or "uid:gid".
func numericUser(user string) (uid, gid int, err error) {
	u, g, ok := strings.Cut(user, ":")
	if !ok {
		g = u
	}
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("the image's user %q is not numeric uid[:gid]", user)
	}
	return uid, gid, nil
}

// extractEntrypoint pulls image, writes the file its config names as entrypoint to dir and
// returns its path and the image's user.
func extractEntrypoint(ctx context.Context, image, dir string) (bin, user string, err error) {
	ref, err := name.ParseReference(image, name.Insecure)
	if err != nil {
		return "", "", err
	}
	// From a multi-arch index, the image of this machine's architecture, as a kubelet would
	// pull it.
	img, err := remote.Image(ref, remote.WithContext(ctx), remote.WithTransport(&http.Transport{Proxy: nil}),
		remote.WithPlatform(v1.Platform{OS: "linux", Architecture: runtime.GOARCH}))
	if err != nil {
		return "", "", err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return "", "", err
	}
	if len(cfg.Config.Entrypoint) == 0 {
		return "", "", errors.New("the image has no entrypoint")
	}
	want := strings.TrimPrefix(path.Clean(cfg.Config.Entrypoint[0]), "/")
	rc := mutate.Extract(img)
	defer rc.Close() //nolint:errcheck // Read-only.
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", "", fmt.Errorf("entrypoint %s not found in the image's layers", cfg.Config.Entrypoint[0])
		}
		if err != nil {
			return "", "", err
		}
		if strings.TrimPrefix(path.Clean(h.Name), "/") != want || h.Typeflag != tar.TypeReg {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
		out := filepath.Join(dir, path.Base(want))
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return "", "", err
		}
		if _, err := io.Copy(f, tr); err != nil {
			_ = f.Close()
			return "", "", err
		}
		return out, cfg.Config.User, f.Close()
	}
}
