package scenarios

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// topology is one of kcp's three production topologies, as an example a platform team
// applies: a KcpInstallation, or the per-kind XRs it would compose.
type topology struct {
	example, namespace string
	// installation is the KcpInstallation's name; "" for the per-kind XRs, whose root shard
	// is root and whose admin kubeconfig is the Secret admin-kubeconfig.
	installation string
	// etcdReplicas is the managed etcd's size; 0 when the example points at an etcd of the
	// user's (the RealKCP part runs one at that address) or runs kcp's embedded etcd.
	etcdReplicas int64
	// embeddedEtcd: the root shard keeps its data in kcp's embedded etcd; nothing to run.
	embeddedEtcd bool
	// publicCA, when set, stands in for a public CA the example names and that cannot be
	// reached from here: its ClusterIssuer and the Secret holding its root are replaced
	// before the example is applied.
	publicCA *publicCAStandIn
	// adminSecret overrides the per-kind examples' admin kubeconfig Secret, admin-kubeconfig.
	adminSecret string
	// auth, when set, stands in for the identity provider and webhooks the example names:
	// its Secrets are applied with the example, and with RealKCP it serves kcp.
	auth *authStandIn
	// customCA, when set, stands in for the PKI, etcd and identity provider examples/custom-ca
	// names: its Secrets are applied with the example, and with RealKCP it serves kcp.
	customCA *customCAStandIn
	// realKCP overrides how kcp itself is run and checked (testInstallationRealKCP).
	realKCP func(ctx context.Context, t *testing.T, e *env, binDir string, tp topology)
}

// rootShard is the name of the topology's RootShard.
func (tp topology) rootShard() string {
	if tp.installation != "" {
		return tp.installation
	}
	return "root"
}

// letsEncryptStandIn is one stand-in for both public-shards examples, which name one
// ClusterIssuer.
var letsEncryptStandIn = &publicCAStandIn{issuer: "letsencrypt-prod", rootsSecret: "letsencrypt-roots"}

var topologies = []topology{
	{example: "topology-self-signed", namespace: "kcp-dekker", installation: "dekker", etcdReplicas: 3},
	{example: "topology-public-shards", namespace: "kcp-vespucci", installation: "vespucci", etcdReplicas: 3, publicCA: letsEncryptStandIn},
	{example: "topology-dual-front-proxy", namespace: "kcp-comer", installation: "comer", etcdReplicas: 1},
	{example: "server-features", namespace: "kcp-features", installation: "features", etcdReplicas: 1},
	{example: "authentication", namespace: "kcp-auth", installation: "auth", etcdReplicas: 1, auth: authStandInOfExample},
	{example: "development", namespace: "kcp-dev", installation: "sandbox", embeddedEtcd: true},
	{example: "topology-self-signed-xrs", namespace: "dekker"},
	{example: "topology-public-shards-xrs", namespace: "vespucci", publicCA: letsEncryptStandIn},
	{example: "topology-dual-front-proxy-xrs", namespace: "comer"},
	{example: "external-virtual-workspace", namespace: "kcp-vw", adminSecret: "root-shard-admin-kubeconfig", realKCP: testVirtualWorkspaceRealKCP},
	{example: "custom-ca", namespace: "kcp-custom-ca", adminSecret: "kcp-admin-kubeconfig", customCA: customCAStandInOfExample, realKCP: testCustomCARealKCP},
}

// testTopology installs each topology example side by side, each in its own namespace, as a
// platform team would, and checks that it converges to its golden render and that every
// connection a component makes would be trusted.
//
// Each example's policy.yaml is the whole of the cluster's one policy object (EnvironmentConfig
// kcp-self-service), as for a platform that runs that topology alone: side by side, the
// policies are merged into one, as a platform team running all three would write it.
func testTopology(t *testing.T, e *env) {
	applyMergedPolicy(t.Context(), t, e)
	installPodMonitorCRD(t.Context(), t, e) // examples/server-features monitors kcp and its etcd
	// Two waves: the three installations, then the per-kind XRs (the topologies' twins and
	// the external virtual workspace). All at once, cert-manager would issue some 200
	// RSA-4096 certificates together, more than two cores do within the scenarios' timeouts.
	for _, wave := range []struct {
		name     string
		installs bool
	}{{"KcpInstallation", true}, {"PerKindXRs", false}} {
		t.Run(wave.name, func(t *testing.T) {
			for _, tp := range topologies {
				if (tp.installation != "") != wave.installs {
					continue
				}
				t.Run(tp.example, func(t *testing.T) {
					t.Parallel()
					testOneTopology(t, e, tp)
				})
			}
		})
	}
}

func testOneTopology(t *testing.T, e *env, tp topology) {
	ctx := t.Context()
	ns := tp.namespace
	golden := goldenRender(t, e, tp.example)
	wantRefs, wantCerts := goldenRefs(t, golden)

	start := time.Now()
	skip := isPolicy
	var standIns []byte
	if p := tp.publicCA; p != nil {
		standIns = p.manifests(t, ns)
		skip = func(o stack.Object) bool { return isPolicy(o) || p.replaces(o) }
	}
	if tp.auth != nil {
		if len(standIns) > 0 {
			standIns = append(standIns, "---\n"...)
		}
		standIns = append(standIns, tp.auth.manifests(t, ns)...)
	}
	if tp.customCA != nil {
		if len(standIns) > 0 {
			standIns = append(standIns, "---\n"...)
		}
		standIns = append(standIns, tp.customCA.manifests(t, ns)...)
	}
	applyExampleExcept(ctx, t, e, tp.example, skip, standIns)
	// Three topologies' certificates are issued side by side: allow twice the usual time.
	if err := waitCertificatesReadyWithin(ctx, e, ns, wantCerts, 2*timeout); err != nil {
		t.Fatal(err)
	}
	e.Step("%s: %d certificates issued %.1fs after apply", tp.example, wantCerts, time.Since(start).Seconds())
	if err := e.Eventually(ctx, 2*timeout, "every XR of "+ns+" Ready", func(ctx context.Context) (bool, string, error) {
		var waiting []string
		for key := range wantRefs {
			kind, xrName, _ := strings.Cut(key, "/")
			x, err := getXR(ctx, e, kind, ns, xrName)
			if err != nil {
				return false, "", err
			}
			if x.conditions()["Ready"].Status != "True" {
				waiting = append(waiting, key)
			}
		}
		sort.Strings(waiting)
		return len(waiting) == 0, "not Ready: " + strings.Join(waiting, ", "), nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("%s: %d XRs Ready %.1fs after apply (kwok fake nodes stand in for kubelets)", tp.example, len(wantRefs), time.Since(start).Seconds())

	t.Run("PodSecurityRestricted", func(t *testing.T) {
		// The namespace comes from the example; enforce restricted now: admission judges
		// new pods, which is what the dry runs create.
		if _, err := e.Kubectl(ctx, nil, append([]string{"label", "namespace", ns}, restrictedLabels...)...); err != nil {
			t.Fatal(err)
		}
		checkPodSecurity(ctx, t, e, ns)
	})
	t.Run("ComposedAsRendered", func(t *testing.T) {
		for key, want := range wantRefs {
			kind, xrName, _ := strings.Cut(key, "/")
			x, err := getXR(ctx, e, kind, ns, xrName)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			if got := x.refs(); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s composed %v, the golden render has %v", key, got, want)
			}
		}
	})
	t.Run("DeploymentsAsRendered", func(t *testing.T) { checkDeployments(ctx, t, e, ns, golden) })
	if tp.etcdReplicas > 0 {
		t.Run("ManagedEtcd", func(t *testing.T) { checkManagedEtcd(ctx, t, e, ns, tp.installation, tp.installation, tp.etcdReplicas) })
	}
	t.Run("EveryConnectionTrusted", func(t *testing.T) {
		var roots []byte
		if tp.publicCA != nil {
			roots = tp.publicCA.rootPEM
		}
		n := checkTrust(ctx, t, e, ns, tp.rootShard(), adminKubeconfigSecret(ctx, t, e, tp), roots)
		e.Step("%s: %d connections checked: each name a component dials is served a certificate that verifies against the CA the dialer trusts", tp.example, n)
	})
	t.Run("RealKCP", func(t *testing.T) {
		dir := os.Getenv("KCP_BIN")
		if dir == "" {
			t.Skip("KCP_BIN is not set: kcp itself is not run (set KCP_BIN to a directory holding kcp, kcp-front-proxy and cache-server to run the composed containers as processes)")
		}
		var roots []byte
		if tp.publicCA != nil {
			roots = tp.publicCA.rootPEM
		}
		if tp.realKCP != nil {
			tp.realKCP(ctx, t, e, dir, tp)
			return
		}
		testInstallationRealKCP(ctx, t, e, dir, tp, roots)
	})
	t.Run("Deleted", func(t *testing.T) {
		// An installation is deleted as one object; per-kind XRs are deleted together.
		what := []string{"kcpinstallation", "-n", ns, tp.installation}
		if tp.installation == "" {
			what = []string{"rootshards.kcp.crossplane.io,shards.kcp.crossplane.io,frontproxies.kcp.crossplane.io,virtualworkspaces.kcp.crossplane.io,kubeconfigs.kcp.crossplane.io", "-n", ns, "--all"}
		}
		if _, err := e.Kubectl(ctx, nil, append(append([]string{"delete"}, what...), "--wait=false")...); err != nil {
			t.Fatal(err)
		}
		if tp.installation != "" {
			// XRs the example applies beside its installation (examples/authentication's
			// FrontProxy): outside the installation's tree, whose every object Crossplane
			// labels crossplane.io/composite=<installation>, an XR carries its own name there.
			if _, err := e.Kubectl(ctx, nil, "delete", "rootshards.kcp.crossplane.io,shards.kcp.crossplane.io,frontproxies.kcp.crossplane.io,virtualworkspaces.kcp.crossplane.io,kubeconfigs.kcp.crossplane.io",
				"-n", ns, "-l", "crossplane.io/composite!="+tp.installation, "--wait=false"); err != nil {
				t.Fatal(err)
			}
		}
		if err := waitInstallationGone(ctx, e, ns); err != nil {
			t.Error(err)
		}
	})
}

// adminKubeconfigSecret is the Secret holding the topology's admin kubeconfig: the one the
// KcpInstallation's status names, or the admin Kubeconfig XR's.
func adminKubeconfigSecret(ctx context.Context, t *testing.T, e *env, tp topology) string {
	t.Helper()
	if tp.adminSecret != "" {
		return tp.adminSecret
	}
	if tp.installation == "" {
		return "admin-kubeconfig"
	}
	x, err := getXR(ctx, e, "KcpInstallation", tp.namespace, tp.installation)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := x.Status["kubeconfigSecret"].(string)
	return s
}

// publicCAStandIn replaces a public ACME issuer, which cannot be reached from here, with a
// CA ClusterIssuer of the same name whose root the test makes: a stand-in, named as such.
// The installation composes exactly what it composes with the real issuer (the same
// issuerRef); only who signs differs.
type publicCAStandIn struct {
	issuer, rootsSecret string
	once                sync.Once
	rootPEM, keyPEM     []byte
}

// replaces reports whether the stand-in replaces an object of the example.
func (p *publicCAStandIn) replaces(o stack.Object) bool {
	return (o.Kind == "ClusterIssuer" && o.Metadata.Name == p.issuer) || (o.Kind == "Secret" && o.Metadata.Name == p.rootsSecret)
}

// manifests are the stand-in ClusterIssuer, its CA Secret, and the roots Secret in ns.
func (p *publicCAStandIn) manifests(t *testing.T, ns string) []byte {
	t.Helper()
	p.once.Do(func() { p.rootPEM, p.keyPEM = standInCA(t, "Public CA stand-in (for "+p.issuer+")") })
	certPEM, keyPEM := p.rootPEM, p.keyPEM
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: %[1]s-standin-ca, namespace: cert-manager}
type: kubernetes.io/tls
data: {tls.crt: %[2]s, tls.key: %[3]s}
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: %[1]s}
spec: {ca: {secretName: %[1]s-standin-ca}}
---
apiVersion: v1
kind: Secret
metadata: {name: %[4]s, namespace: %[5]s}
data: {tls.crt: %[2]s}
`, p.issuer, b64(certPEM), b64(keyPEM), p.rootsSecret, ns))
}

// isPolicy reports whether o is the platform's policy for self-service installations.
func isPolicy(o stack.Object) bool {
	return o.Kind == "EnvironmentConfig" && o.Metadata.Name == "kcp-self-service"
}

// exampleDocs are the manifests of an example, in file order.
func exampleDocs(t *testing.T, e *env, example string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(e.root, "examples", example, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in examples/%s: %v", example, err)
	}
	sort.Strings(files)
	docs, err := stack.ReadManifests(files...)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// applyExampleExcept applies an example without the objects skip selects: its Namespaces
// first, then extra, then the rest.
func applyExampleExcept(ctx context.Context, t *testing.T, e *env, example string, skip func(stack.Object) bool, extra []byte) {
	t.Helper()
	var namespaces, rest [][]byte
	var skipped []string
	for _, d := range exampleDocs(t, e, example) {
		var o stack.Object
		if err := yaml.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		switch {
		case skip(o):
			skipped = append(skipped, o.Kind+" "+o.Metadata.Name)
		case o.Kind == "Namespace":
			namespaces = append(namespaces, d)
		default:
			rest = append(rest, d)
		}
	}
	keep := append(namespaces, rest...)
	if extra != nil {
		rest = append([][]byte{extra}, rest...)
	}
	for _, d := range append(namespaces, rest...) {
		if err := e.Apply(ctx, d); err != nil {
			t.Fatalf("apply examples/%s: %v", example, err)
		}
	}
	t.Logf("applied examples/%s (%d objects) without %s", example, len(keep), strings.Join(skipped, ", "))
}

// applyMergedPolicy applies one policy allowing every issuer each topology's policy allows.
func applyMergedPolicy(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	type issuer struct {
		Group      string   `json:"group,omitempty"`
		Kind       string   `json:"kind"`
		Name       string   `json:"name"`
		Namespaces []string `json:"namespaces"`
	}
	var all []issuer
	features := map[string][]string{}
	for _, tp := range topologies {
		for _, d := range exampleDocs(t, e, tp.example) {
			var o struct {
				stack.Object
				Data struct {
					Issuers  []issuer            `json:"issuers"`
					Features map[string][]string `json:"features"`
				} `json:"data"`
			}
			if err := yaml.Unmarshal(d, &o); err != nil {
				t.Fatal(err)
			}
			if isPolicy(o.Object) {
				all = append(all, o.Data.Issuers...)
				for f, namespaces := range o.Data.Features {
					features[f] = append(features[f], namespaces...)
				}
			}
		}
	}
	policy, err := yaml.Marshal(map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
		"metadata": map[string]any{"name": "kcp-self-service"}, "data": map[string]any{"issuers": all, "features": features},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(ctx, policy); err != nil {
		t.Fatal(err)
	}
	t.Logf("applied the policy of the topologies, merged: %d issuers, features %v", len(all), features)
}

// standInCA makes a self-signed CA certificate and key, PEM-encoded.
func standInCA(t *testing.T, cn string) ([]byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
