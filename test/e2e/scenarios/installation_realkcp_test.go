package scenarios

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// testInstallationRealKCP runs every pod a KcpInstallation composed in its namespace as real
// kcp (package realkcp): the managed etcd's members, the root shard and its proxy, every
// shard, every front-proxy, each with exactly its rendered command and args. Each
// front-proxy's public hostname resolves to its pod, on the Service's port. With the
// installation's admin kubeconfig (status.kubeconfigSecret), through the front-proxy it names:
// every shard has registered with the root shard, and a workspace placed on each shard is
// Ready, served through the front-proxy and lives on that shard.
//
// Each public shard name resolves to its shard's pod too: a client that trusts only
// publicRoots (nil: the installation's CA) reaches the shard there, and kcp's Shard
// advertises it as its virtual workspace URL. Every other front-proxy serves the admin too.
func testInstallationRealKCP(ctx context.Context, t *testing.T, e *env, binDir string, tp topology, publicRoots []byte) {
	ns := tp.namespace
	c := startRealKCP(ctx, t, e, binDir, ns)
	if tp.etcdReplicas == 0 && !tp.embeddedEtcd {
		// The per-kind examples point at an etcd of the user's: run one at that address.
		if _, err := c.RunEtcd(ctx, "etcd."+ns+".svc.cluster.local"); err != nil {
			t.Fatal(err)
		}
	}
	if tp.auth != nil {
		tp.auth.serve(ctx, t, e, c)
	}
	pods := runNamespace(ctx, t, e, c, ns)
	exited := anyExited(pods)

	var fps struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Spec     struct {
				External struct{ Hostname string } `json:"external"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &fps, "frontproxies.kcp.crossplane.io", "-n", ns); err != nil {
		t.Fatal(err)
	}
	var proxy *realkcp.Pod
	var proxies []string
	for _, fp := range fps.Items {
		p := pods[fp.Metadata.Name+"-front-proxy"]
		if p == nil || fp.Spec.External.Hostname == "" {
			t.Fatalf("FrontProxy %s: no pod %s-front-proxy or no spec.external.hostname", fp.Metadata.Name, fp.Metadata.Name)
		}
		if err := c.Host(fp.Spec.External.Hostname, p.IP); err != nil {
			t.Fatal(err)
		}
		proxy = p
		proxies = append(proxies, fp.Spec.External.Hostname)
		e.Step("RealKCP %s: %s -> front-proxy %s (%s)", ns, fp.Spec.External.Hostname, p.Name, p.IP)
	}
	w := readWorld(ctx, t, e, ns)
	for host, pub := range w.public {
		if strings.HasSuffix(pub.deployment, "-front-proxy") {
			continue
		}
		p := pods[pub.deployment]
		if p == nil {
			t.Fatalf("public name %s: no pod of Deployment %s", host, pub.deployment)
		}
		if err := c.Host(host, p.IP); err != nil {
			t.Fatal(err)
		}
		e.Step("RealKCP %s: %s -> shard %s (%s)", ns, host, p.Name, p.IP)
	}

	secret := adminKubeconfigSecret(ctx, t, e, tp)
	admin := podKubectl(t, c, proxy, tp.rootShard()+"-admin", secretKey(ctx, t, e, ns, secret, "kubeconfig"))
	start := time.Now()
	if err := e.Eventually(ctx, 4*time.Minute, "kcp serves workspace root through the front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspaces")
		return err == nil, out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP %s: kcp answered at %s %.1fs after start, with the admin kubeconfig of Secret %s", ns, serverOf(ctx, t, admin), time.Since(start).Seconds(), secret)

	var shards struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &shards, "shards.kcp.crossplane.io", "-n", ns); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range shards.Items {
		names = append(names, s.Metadata.Name)
	}
	if err := e.Eventually(ctx, 4*time.Minute, "every shard registered with the root shard", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "shards", "-o", "name")
		registered := strings.Fields(out)
		missing := slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(registered, "shard.core.kcp.io/"+n) })
		return err == nil && !missing, out, exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP %s: shards %v registered with the root shard %.1fs after start", ns, names, time.Since(start).Seconds())
	workspaceOnEachShard(ctx, t, e, admin, ns, exited, names...)
	if tp.embeddedEtcd {
		// No shards: a workspace on the root shard proves kcp stores in its embedded etcd.
		workspaceOnShards(ctx, t, e, admin, ns, exited, map[string]string{"root": tp.rootShard() + "-kcp"})
	}
	checkServerFeaturesOnRealKCP(ctx, t, e, c, pods, admin, ns)
	checkReplicasOnRealKCP(ctx, t, e, c, pods, admin, ns)

	adminKubeconfig := secretKey(ctx, t, e, ns, secret, "kubeconfig")
	if tp.auth != nil {
		url := func(host string) string { return "https://" + host + ":" + portOf(t, w, host) }
		ext := ""
		if slices.Contains(proxies, authExtensionsHost) {
			ext = url(authExtensionsHost)
		}
		sso := ""
		if pods[authStructuredShard+"-shard-kcp"] != nil {
			sso = "https://" + authStructuredShard + "-shard-kcp." + ns + ".svc.cluster.local:6443"
		}
		tp.auth.check(ctx, t, e, c, proxy, pods[tp.rootShard()+"-kcp"], adminKubeconfig, url(authFrontProxyHost), ext,
			"https://"+tp.rootShard()+"-kcp."+ns+".svc.cluster.local:6443", sso)
	}
	for _, host := range proxies {
		fpURL := "https://" + host + ":" + portOf(t, w, host)
		k := podKubectl(t, c, proxy, "via-"+host, withServer(t, adminKubeconfig, fpURL, nil))
		out, err := k(ctx, "", "get", "workspaces", "-o", "name")
		if err != nil {
			t.Errorf("through front-proxy %s: %v\n%s", fpURL, err, out)
			continue
		}
		e.Step("RealKCP %s: through front-proxy %s the admin lists %s", ns, fpURL, strings.Join(strings.Fields(out), " "))
	}
	for host, pub := range w.public {
		if strings.HasSuffix(pub.deployment, "-front-proxy") {
			continue
		}
		roots := publicRoots
		if !pub.ownCertificate || roots == nil {
			roots = w.secrets[tp.rootShard()+"-ca"]["tls.crt"]
		}
		shardURL := "https://" + host + ":6443"
		k := podKubectl(t, c, proxy, "public-"+host, withServer(t, adminKubeconfig, shardURL, roots))
		if out, err := k(ctx, "", "get", "--raw", "/readyz"); err != nil || strings.TrimSpace(out) != "ok" {
			t.Errorf("a client trusting only the public CA cannot reach %s: %v\n%s", shardURL, err, out)
		} else {
			e.Step("RealKCP %s: %s answers /readyz to a client that trusts only the public CA (certificate from TLS SNI)", ns, shardURL)
		}
		kcpShard := strings.TrimSuffix(strings.TrimSuffix(pub.deployment, "-shard-kcp"), "-kcp")
		if pub.deployment == tp.rootShard()+"-kcp" {
			kcpShard = "root"
		}
		out, err := admin(ctx, "", "get", "shard", kcpShard, "-o", "jsonpath={.spec.baseURL} {.spec.virtualWorkspaceURL}")
		if err != nil || !strings.HasSuffix(out, " "+shardURL) || strings.Contains(strings.Fields(out)[0], host) {
			t.Errorf("kcp's Shard %s: baseURL and virtualWorkspaceURL %q, want the in-cluster Service and %s: %v", kcpShard, out, shardURL, err)
		} else {
			e.Step("RealKCP %s: kcp's Shard %s: baseURL %s, virtualWorkspaceURL %s", ns, kcpShard, strings.Fields(out)[0], shardURL)
		}
	}
}

// portOf is the port of a front-proxy's public name: its Service's.
func portOf(t *testing.T, w trustWorld, host string) string {
	t.Helper()
	p, ok := w.servicePorts[w.public[host].deployment]
	if !ok {
		t.Fatalf("no Service for the public name %s", host)
	}
	return fmt.Sprint(p)
}

// withServer is a kubeconfig whose cluster's server is at another scheme, host and port
// (the path, a workspace's, is kept), trusting roots instead when set.
func withServer(t *testing.T, kubeconfig []byte, server string, roots []byte) []byte {
	t.Helper()
	return replaceServer(t, kubeconfig, server, true, roots)
}

// replaceServer replaces the server of a kubeconfig's clusters, keeping their path or not.
func replaceServer(t *testing.T, kubeconfig []byte, server string, keepPath bool, roots []byte) []byte {
	t.Helper()
	var kc map[string]any
	if err := yaml.Unmarshal(kubeconfig, &kc); err != nil {
		t.Fatal(err)
	}
	for _, c := range kc["clusters"].([]any) {
		cl := c.(map[string]any)["cluster"].(map[string]any)
		old, err := url.Parse(fmt.Sprint(cl["server"]))
		if err != nil {
			t.Fatal(err)
		}
		if keepPath {
			server += old.Path
		}
		cl["server"] = server
		if roots != nil {
			cl["certificate-authority-data"] = base64.StdEncoding.EncodeToString(roots)
		}
	}
	out, err := yaml.Marshal(kc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runNamespace runs every StatefulSet's pods, then one pod of every Deployment, of the
// namespace, by name.
func runNamespace(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, ns string) map[string]*realkcp.Pod {
	t.Helper()
	var list struct {
		Items []struct {
			Kind     string                `json:"kind"`
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	pods := map[string]*realkcp.Pod{}
	if err := e.GetJSON(ctx, &list, "statefulsets", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Items {
		ps, err := c.RunStatefulSet(ctx, ns, s.Metadata.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			pods[p.Name] = p
		}
	}
	if err := e.GetJSON(ctx, &list, "deployments", "-n", ns); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range list.Items {
		names = append(names, d.Metadata.Name)
	}
	for n, p := range runDeployments(ctx, t, c, ns, names...) {
		pods[n] = p
	}
	return pods
}

// kcpServerDeployments are the Deployments of ns that run kcp servers (`kcp start`): the root
// shard's and every shard's.
func kcpServerDeployments(ctx context.Context, t *testing.T, e *env, ns string) []appsv1.Deployment {
	t.Helper()
	var list appsv1.DeploymentList
	if err := e.GetJSON(ctx, &list, "deployments", "-n", ns); err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(list.Items, func(d appsv1.Deployment) bool {
		cs := d.Spec.Template.Spec.Containers
		return len(cs) == 0 || !slices.Equal(cs[0].Command, []string{"/kcp", "start"})
	})
}
