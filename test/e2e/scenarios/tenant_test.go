package scenarios

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// The self-service example: a tenant's KcpInstallation in namespace team-a.
const (
	tenantNamespace    = "team-a"
	tenantUser         = "alice"
	tenantInstallation = "dev"
)

// testTenant plays a platform team offering kcp as self-service, and a tenant using it: the
// platform applies install/tenant-clusterrole.yaml, a ClusterIssuer and a namespace in which
// the user alice has only Kubernetes' edit role; alice (kubectl --as) applies the ten-line
// examples/installation/kcpinstallation.yaml and reads the kubeconfig Secret it names. The
// installation composes its per-kind XRs, which Crossplane reconciles in turn, and a managed
// etcd whose certificates cert-manager issues.
func testTenant(t *testing.T, e *env) {
	ctx := t.Context()
	ns := tenantNamespace
	golden := goldenRender(t, e, "installation")
	wantRefs, wantCerts := goldenRefs(t, golden)

	// The platform team's part.
	as := offerSelfService(ctx, t, e, ns, tenantUser)

	t.Run("TenantRights", func(t *testing.T) {
		// offerSelfService waited for the aggregated rules: the answers are final.
		for _, c := range []struct {
			verb, resource, namespace, want string
		}{
			{"create", "kcpinstallations.kcp.crossplane.io", ns, "yes"},
			{"get", "secrets", ns, "yes"},
			{"list", "rootshards.kcp.crossplane.io", ns, "yes"},
			{"create", "rootshards.kcp.crossplane.io", ns, "no"},
			{"create", "kcpinstallations.kcp.crossplane.io", "default", "no"},
			{"create", "certificates.cert-manager.io", ns, "no"},
		} {
			out, _ := e.Kubectl(ctx, nil, as("auth", "can-i", c.verb, c.resource, "-n", c.namespace)...)
			if got := strings.TrimSpace(string(out)); got != c.want {
				t.Errorf("kubectl auth can-i %s %s -n %s as %s: %q, want %q", c.verb, c.resource, c.namespace, tenantUser, got, c.want)
			}
		}
	})

	// The tenant's part: ten lines, with nothing but namespace rights.
	manifest := filepath.Join(e.root, "examples", "installation", "kcpinstallation.yaml")
	if lines := countLines(t, manifest); lines > 12 {
		t.Errorf("examples/installation/kcpinstallation.yaml has %d lines of YAML, the docs promise about ten", lines)
	}
	start := time.Now()
	if _, err := e.Kubectl(ctx, nil, as("apply", "-f", manifest)...); err != nil {
		t.Fatalf("%s cannot apply a KcpInstallation with the edit role: %v", tenantUser, err)
	}
	if err := waitCertificatesReady(ctx, e, ns, wantCerts); err != nil {
		t.Fatal(err)
	}
	e.Step("tenant: %d certificates (etcd's included) issued %.1fs after %s applied the KcpInstallation", wantCerts, time.Since(start).Seconds(), tenantUser)

	inst, err := waitInstallationReady(ctx, e, ns, tenantInstallation)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("tenant: KcpInstallation and its %d composed XRs Ready %.1fs after apply (Deployments and the etcd StatefulSet rolled out by Kubernetes onto kwok fake nodes, which stand in for kubelets)", len(wantRefs)-1, time.Since(start).Seconds())

	t.Run("ComposedAsRendered", func(t *testing.T) {
		for key, want := range wantRefs {
			kind, name, _ := strings.Cut(key, "/")
			x, err := getXR(ctx, e, kind, ns, name)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			if got := x.refs(); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s composed %v, the golden render has %v", key, got, want)
			}
		}
	})
	t.Run("StatusForTheTenant", func(t *testing.T) {
		if inst.Status["kubeconfigSecret"] != "dev-admin-kubeconfig" || inst.Status["url"] != "https://kcp.team-a.example.com:6443" || inst.Status["phase"] != "Running" {
			t.Errorf("status %v, want kubeconfigSecret dev-admin-kubeconfig, url https://kcp.team-a.example.com:6443, phase Running", inst.Status)
		}
	})
	t.Run("KubeconfigChainsVerify", func(t *testing.T) {
		// The tenant reads the Secret with their own rights.
		out, err := e.Kubectl(ctx, nil, as("get", "secret", "-n", ns, "dev-admin-kubeconfig", "-o", "jsonpath={.data.kubeconfig}")...)
		if err != nil || len(out) == 0 {
			t.Fatalf("%s cannot read the kubeconfig Secret: %v", tenantUser, err)
		}
		u, _ := checkKubeconfigTrust(ctx, t, e, ns, tenantInstallation, "dev-admin-kubeconfig", "dev-dev-public-server")
		if u.Host != "kcp.team-a.example.com:6443" {
			t.Errorf("kubeconfig server %s, want host kcp.team-a.example.com:6443", u)
		}
	})
	t.Run("PodSecurityRestricted", func(t *testing.T) { checkPodSecurity(ctx, t, e, ns) })
	t.Run("ManagedEtcd", func(t *testing.T) { checkManagedEtcd(ctx, t, e, ns, tenantInstallation, tenantInstallation, 1) })
	t.Run("EtcdStartsWithComposedArgs", func(t *testing.T) { checkEtcdStarts(ctx, t, e, ns, tenantInstallation) })
	t.Run("DeletedAndCreatedAgainKeepsCAsAndEtcdVolumes", func(t *testing.T) {
		testCreatedAgain(t, e, ns, manifest, as)
	})
	t.Run("TenantDeletes", func(t *testing.T) {
		if err := tenantDeletes(ctx, e, ns, as); err != nil {
			t.Fatal(err)
		}
	})
}

// tenantDeletes deletes the tenant's KcpInstallation with the tenant's rights and waits until
// everything composed for it is gone.
func tenantDeletes(ctx context.Context, e *env, ns string, as func(args ...string) []string) error {
	if _, err := e.Kubectl(ctx, nil, as("delete", "kcpinstallation", "-n", ns, tenantInstallation, "--wait=false")...); err != nil {
		return err
	}
	return waitInstallationGone(ctx, e, ns)
}

// waitInstallationReady waits until a KcpInstallation is Ready, reporting its components'
// progress meanwhile.
func waitInstallationReady(ctx context.Context, e *env, ns, name string) (xr, error) {
	var inst xr
	err := e.Eventually(ctx, 2*timeout, "KcpInstallation "+ns+"/"+name+" Ready", func(ctx context.Context) (bool, string, error) {
		x, err := getXR(ctx, e, "KcpInstallation", ns, name)
		if err != nil {
			return false, "", err
		}
		inst = x
		b, _ := json.Marshal(x.Status["components"])
		return x.conditions()["Ready"].Status == "True", "components " + string(b), nil
	})
	return inst, err
}

// testCreatedAgain deletes the tenant's KcpInstallation and applies it again, as a tenant
// who deleted it by mistake would: once everything Crossplane composed is gone, the Secrets
// cert-manager wrote must still be there, and the installation created again must be Ready
// with every one of them holding the certificate and key it held (the CAs, so every client's
// kubeconfig and etcd's peers still trust it), and with a managed etcd StatefulSet of the
// same name, volume claim templates and Retain policy, which is what makes Kubernetes'
// StatefulSet controller mount the PersistentVolumeClaims, and so the data, it left behind:
// the claims are the same objects (UIDs) before and after, Bound to the same volumes.
func testCreatedAgain(t *testing.T, e *env, ns, manifest string, as func(args ...string) []string) {
	ctx := t.Context()
	issuedBefore, err := issuedSecrets(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	volumesBefore, err := etcdVolumes(ctx, e, ns, tenantInstallation)
	if err != nil {
		t.Fatal(err)
	}
	if len(volumesBefore.claims) == 0 || volumesBefore.whenDeleted != "Retain" {
		t.Fatalf("managed etcd's StatefulSet mounts %s: want volume claims, kept when deleted (Retain)", volumesBefore)
	}
	claimsBefore, err := boundClaims(ctx, e, ns, volumesBefore.claims)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := tenantDeletes(ctx, e, ns, as); err != nil {
		t.Fatal(err)
	}
	left, err := issuedSecrets(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	// What an XR composed goes with it: a Kubeconfig's client certificate Secret, which
	// cert-manager issues anew from the same CA when the installation comes back.
	composedByAnXR := func(s issued) bool { return s.composite != "" }
	kept, _ := checkSameKeys(t, issuedBefore, left, "the installation was deleted", composedByAnXR)
	e.Step("tenant: installation deleted %.1fs after the delete; %d Secrets cert-manager wrote left, %d composed by its XRs (client certificates) deleted with them",
		time.Since(start).Seconds(), kept, len(issuedBefore)-kept)

	start = time.Now()
	if _, err := e.Kubectl(ctx, nil, as("apply", "-f", manifest)...); err != nil {
		t.Fatal(err)
	}
	if _, err := waitInstallationReady(ctx, e, ns, tenantInstallation); err != nil {
		t.Fatal(err)
	}
	issuedAfter, err := issuedSecrets(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	n, cas := checkSameKeys(t, issuedBefore, issuedAfter, "the installation was created again", composedByAnXR)
	volumesAfter, err := etcdVolumes(ctx, e, ns, tenantInstallation)
	if err != nil {
		t.Fatal(err)
	}
	if volumesAfter.String() != volumesBefore.String() {
		t.Errorf("managed etcd's volumes changed when the installation was created again: %s, before %s", volumesAfter, volumesBefore)
	}
	claimsAfter, err := boundClaims(ctx, e, ns, volumesAfter.claims)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(claimsAfter, claimsBefore) {
		t.Errorf("managed etcd's claims (UID and volume) %v after the installation was created again, %v before: the data would be lost", claimsAfter, claimsBefore)
	}
	e.Step("tenant: installation created again, Ready %.1fs after apply; %d Secrets cert-manager wrote (%d CAs) hold the same keys; etcd's StatefulSet re-mounts %s, claims (UID on volume) %v before and %v after",
		time.Since(start).Seconds(), n, cas, volumesAfter, claimsBefore, claimsAfter)
}

// boundClaims waits until each named claim in ns is Bound and returns "<uid> on <volume>"
// for each, by name.
func boundClaims(ctx context.Context, e *env, ns string, names []string) (map[string]string, error) {
	out := map[string]string{}
	err := e.Eventually(ctx, timeout, "claims "+strings.Join(names, ", ")+" Bound", func(ctx context.Context) (bool, string, error) {
		for _, n := range names {
			var pvc struct {
				stack.Object
				Spec struct {
					VolumeName string `json:"volumeName"`
				} `json:"spec"`
				Status struct {
					Phase string `json:"phase"`
				} `json:"status"`
			}
			if err := e.Get(ctx, "/api/v1/namespaces/"+ns+"/persistentvolumeclaims/"+n, &pvc); err != nil {
				return false, "", err
			}
			if pvc.Status.Phase != "Bound" {
				return false, n + " is " + pvc.Status.Phase, nil
			}
			out[n] = pvc.Metadata.UID + " on " + pvc.Spec.VolumeName
		}
		return true, "", nil
	})
	return out, err
}

// volumes are the PersistentVolumeClaims a managed etcd's StatefulSet mounts: the claims'
// names, which follow from the StatefulSet's and its templates' names, and the policy that
// keeps them when the StatefulSet is deleted.
type volumes struct {
	replicas    int64
	claims      []string
	whenDeleted string
}

func (v volumes) String() string {
	return fmt.Sprintf("claims %s (when deleted: %s)", strings.Join(v.claims, ", "), v.whenDeleted)
}

// etcdVolumes reads the volumes of an installation's managed etcd.
func etcdVolumes(ctx context.Context, e *env, ns, installation string) (volumes, error) {
	var sts struct {
		stack.Object
		Spec struct {
			Replicas  int64 `json:"replicas"`
			Templates []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"volumeClaimTemplates"`
			Retention struct {
				WhenDeleted string `json:"whenDeleted"`
			} `json:"persistentVolumeClaimRetentionPolicy"`
		} `json:"spec"`
	}
	if err := e.GetJSON(ctx, &sts, "statefulset", "-n", ns, installation+"-etcd"); err != nil {
		return volumes{}, err
	}
	v := volumes{replicas: sts.Spec.Replicas, whenDeleted: sts.Spec.Retention.WhenDeleted}
	for _, tpl := range sts.Spec.Templates {
		for i := range sts.Spec.Replicas {
			v.claims = append(v.claims, fmt.Sprintf("%s-%s-%d", tpl.Metadata.Name, sts.Metadata.Name, i))
		}
	}
	return v, nil
}

// checkManagedEtcd checks the etcd a KcpInstallation composed, as kcp and etcd use it: the
// StatefulSet keeps its volumes when deleted, the server certificate verifies against the CA
// kcp is given (ca.crt next to its client certificate) for the client Service's name, the
// client certificate against the CA etcd trusts, and the peer certificate against the peer
// CA for every member's name. cluster is the installation's name for its own etcd, or
// <installation>-<shard> for a shard's (shards[].managedEtcd).
func checkManagedEtcd(ctx context.Context, t *testing.T, e *env, ns, installation, cluster string, replicas int64) {
	t.Helper()
	name := cluster + "-etcd"
	v, err := etcdVolumes(ctx, e, ns, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if v.replicas != replicas || v.whenDeleted != "Retain" {
		t.Errorf("StatefulSet %s: replicas %d, volumes when deleted %q; want %d and Retain", name, v.replicas, v.whenDeleted, replicas)
	}
	secret := func(n string) map[string][]byte {
		d, err := e.SecretData(ctx, ns, n)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	server, client, peer := secret(name+"-server"), secret(name+"-client"), secret(name+"-peer")
	verify := func(what string, certPEM, roots []byte, dns string, usage x509.ExtKeyUsage) {
		c, err := leaf(certPEM)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Verify(x509.VerifyOptions{DNSName: dns, Roots: pool(roots), Intermediates: chain(certPEM), KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	clientService := fmt.Sprintf("%s.%s.svc.cluster.local", name, ns)
	verify("etcd's serving certificate against kcp's etcd CA (ca.crt of "+name+"-client)", server["tls.crt"], client["ca.crt"], clientService, x509.ExtKeyUsageServerAuth)
	verify("kcp's etcd client certificate against the CA etcd trusts (--trusted-ca-file)", client["tls.crt"], server["ca.crt"], "", x509.ExtKeyUsageClientAuth)
	for i := range replicas {
		member := fmt.Sprintf("%s-%d.%s-members.%s.svc.cluster.local", name, i, name, ns)
		verify("the peer certificate against the peer CA (--peer-trusted-ca-file), as server for "+member, peer["tls.crt"], peer["ca.crt"], member, x509.ExtKeyUsageServerAuth)
		verify("etcd's serving certificate for "+member, server["tls.crt"], client["ca.crt"], member, x509.ExtKeyUsageServerAuth)
	}
	verify("the peer certificate against the peer CA, as client", peer["tls.crt"], peer["ca.crt"], "", x509.ExtKeyUsageClientAuth)
	if string(peer["ca.crt"]) == string(server["ca.crt"]) {
		t.Errorf("etcd's peer CA is its client CA: they must be dedicated CAs")
	}
	// No other certificate of the installation is an etcd client: not even the admin's.
	admin := adminClientCert(ctx, t, e, ns, installation)
	if _, err := admin.Leaf.Verify(x509.VerifyOptions{Roots: pool(server["ca.crt"]), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Errorf("the admin kubeconfig's client certificate verifies against the CA etcd trusts: a tenant admin could read etcd")
	}
}

// countLines counts the lines of a manifest that are YAML, not comments or blank.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// checkEtcdStarts runs a real etcd (bin/etcd, the e2e's own) with the composed StatefulSet's
// command line and the certificates cert-manager issued for it, as member 0 would run: only
// $(POD_NAME), the mount paths and the listen addresses (127.0.0.1 and free ports instead of
// 0.0.0.0 and etcd's ports) are substituted. kcp's client certificate, with the ca.crt next to
// it, must write and read a key; a certificate from the installation's own CA (the admin's)
// must be refused.
func checkEtcdStarts(ctx context.Context, t *testing.T, e *env, ns, installation string) {
	t.Helper()
	bin, err := stack.BinariesFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	name := installation + "-etcd"
	var sts struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `json:"args"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := e.GetJSON(ctx, &sts, "statefulset", "-n", ns, name); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for mount, secret := range map[string]string{"server": name + "-server", "peer": name + "-peer"} {
		data, err := e.SecretData(ctx, ns, secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "tls", mount), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
			if err := os.WriteFile(filepath.Join(dir, "tls", mount, k), data[k], 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	ports, err := cluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer(
		"$(POD_NAME)", name+"-0",
		"/etc/etcd/tls", filepath.Join(dir, "tls"),
		"/var/lib/etcd", filepath.Join(dir, "data"),
		"https://0.0.0.0:2379", fmt.Sprintf("https://127.0.0.1:%d", ports[0]),
		"https://0.0.0.0:2380", fmt.Sprintf("https://127.0.0.1:%d", ports[1]),
		"http://0.0.0.0:8080", fmt.Sprintf("http://127.0.0.1:%d", ports[2]),
	)
	var args []string
	for _, a := range sts.Spec.Template.Spec.Containers[0].Args {
		args = append(args, r.Replace(a))
	}
	p, err := proc.Start(filepath.Join(cluster.OutputDir(t), "managed-etcd.log"), nil, bin.Etcd, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(5 * time.Second)

	client, err := e.SecretData(ctx, ns, name+"-client")
	if err != nil {
		t.Fatal(err)
	}
	kcp, err := tls.X509KeyPair(client["tls.crt"], client["tls.key"])
	if err != nil {
		t.Fatal(err)
	}
	// etcd's gRPC gateway, as JSON over HTTPS on the client port, trusting what kcp trusts.
	call := func(cert tls.Certificate, path, body string) (string, error) {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: pool(client["ca.crt"]), Certificates: []tls.Certificate{cert}, ServerName: "localhost",
		}}}
		resp, err := c.Post(fmt.Sprintf("https://127.0.0.1:%d%s", ports[0], path), "application/json", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close() //nolint:errcheck // Read-only.
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("%s: %s", resp.Status, b)
		}
		return string(b), nil
	}
	key, value := base64.StdEncoding.EncodeToString([]byte("/registry/e2e")), base64.StdEncoding.EncodeToString([]byte("managed"))
	err = e.Eventually(ctx, time.Minute, "etcd with the composed flags serves kcp's client certificate", func(context.Context) (bool, string, error) {
		if err := p.Exited(); err != nil {
			return false, "", fmt.Errorf("etcd exited (log managed-etcd.log): %w", err)
		}
		if _, err := call(kcp, "/v3/kv/put", fmt.Sprintf(`{"key":%q,"value":%q}`, key, value)); err != nil {
			return false, err.Error(), nil
		}
		got, err := call(kcp, "/v3/kv/range", fmt.Sprintf(`{"key":%q}`, key))
		return err == nil && strings.Contains(got, value), got, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	admin := adminClientCert(ctx, t, e, ns, installation)
	if _, err := call(admin, "/v3/kv/range", fmt.Sprintf(`{"key":%q}`, key)); err == nil {
		t.Errorf("etcd served the admin kubeconfig's client certificate: it must accept only its client CA's")
	}
}
