package scenarios

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// testInstallationRealKCP runs every pod a KcpInstallation composed in its namespace as real
// kcp (package realkcp): the managed etcd's members, the root shard and its proxy, every
// shard, every front-proxy, each with exactly its rendered command and args. Each
// front-proxy's public hostname resolves to its pod, on the Service's port. With the
// installation's admin kubeconfig (status.kubeconfigSecret), through the front-proxy it names:
// every shard has registered with the root shard, and a workspace placed on each shard is
// Ready, served through the front-proxy and lives on that shard.
func testInstallationRealKCP(ctx context.Context, t *testing.T, e *env, binDir, ns, installation string) {
	c := startRealKCP(ctx, t, e, binDir, ns)
	pods := runNamespace(ctx, t, e, c, ns)
	exited := func() error {
		for _, p := range pods {
			if err := p.Exited(); err != nil {
				return err
			}
		}
		return nil
	}

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
	for _, fp := range fps.Items {
		p := pods[fp.Metadata.Name+"-front-proxy"]
		if p == nil || fp.Spec.External.Hostname == "" {
			t.Fatalf("FrontProxy %s: no pod %s-front-proxy or no spec.external.hostname", fp.Metadata.Name, fp.Metadata.Name)
		}
		if err := c.Host(fp.Spec.External.Hostname, p.IP); err != nil {
			t.Fatal(err)
		}
		proxy = p
		e.Step("RealKCP %s: %s -> front-proxy %s (%s)", ns, fp.Spec.External.Hostname, p.Name, p.IP)
	}

	x, err := getXR(ctx, e, "KcpInstallation", ns, installation)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := x.Status["kubeconfigSecret"].(string)
	admin := podKubectl(t, c, proxy, installation+"-admin", secretKey(ctx, t, e, ns, secret, "kubeconfig"))
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
