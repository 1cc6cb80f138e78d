package scenarios

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// testRealKCPInKCP checks, against real kcp (testRealKCP's processes, provider-kubernetes
// reaching root-proxy with the RootShard's credentials), what InKCP checks on the stand-in:
// a Workspace XR makes a kcp workspace that kcp reports Ready and binds its roles there; a
// Kubeconfig is denied without spec.authorization, allowed with it and denied again once it
// is removed, through the front-proxy with the kubeconfig the XR wrote; deleting the Workspace
// (Retain) keeps the workspace; deleting a Shard XR removes kcp's Shard object. Every XR it
// makes is deleted again, so the scenarios after Basic find the installation as it was.
func testRealKCPInKCP(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, proxy *realkcp.Pod, admin kubectlFunc) {
	const ns = basicNamespace
	in := func(path string, args ...string) []string {
		return append([]string{"--server=https://api.example.com:6443/clusters/" + path}, args...)
	}

	// Workspace team-a, made by kcp itself through provider-kubernetes.
	if _, err := e.ApplyFiles(ctx, e.root+"/examples/workspace/workspace.yaml"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "workspaces", ns, "team-a") })
	nudge(ctx, t, e, "rootshard", ns, "root")
	start := time.Now()
	if err := e.Eventually(ctx, timeout, "workspace team-a Ready in kcp", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspace", "team-a", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Ready", out, nil
	}); err != nil {
		t.Fatal(err)
	}
	// The RootShard gives credentials for root:team-a; the Workspace reads kcp's answer.
	x, err := waitXRNudging(ctx, t, e, "Workspace", ns, "team-a", "Ready", "True", "rootshard/root", "workspace/team-a")
	if err != nil {
		t.Fatal(err)
	}
	if x.Status["phase"] != "Ready" || x.Status["path"] != "root:team-a" || x.Status["url"] != "https://api.example.com:6443/clusters/root:team-a" {
		t.Errorf("Workspace status phase %v path %v url %v, want Ready root:team-a https://api.example.com:6443/clusters/root:team-a", x.Status["phase"], x.Status["path"], x.Status["url"])
	}
	if cluster, err := admin(ctx, "", "get", "workspace", "team-a", "-o", "jsonpath={.spec.cluster}"); err != nil || x.Status["cluster"] != cluster {
		t.Errorf("Workspace status.cluster %v, kcp's workspace is logical cluster %q (%v)", x.Status["cluster"], cluster, err)
	}
	out, err := admin(ctx, "", in("root:team-a", "get", "clusterrolebinding", "kcp.crossplane.io:cluster-admin", "-o", "jsonpath={.roleRef.name} {.subjects[*].kind}/{.subjects[*].name}")...)
	if err != nil || out != "cluster-admin Group/team-a" {
		t.Errorf("binding kcp.crossplane.io:cluster-admin in root:team-a: %v: %q, want cluster-admin Group/team-a", err, out)
	}
	// The documented binding grants for real: a member of group team-a reads the workspace,
	// someone outside it is refused.
	if err := e.Eventually(ctx, timeout, "group team-a reads root:team-a", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", in("root:team-a", "get", "configmaps", "-n", "default", "--as=bob", "--as-group=team-a", "-o", "name")...)
		return err == nil, fmt.Sprint(out, err), nil
	}); err != nil {
		t.Error(err)
	}
	if out, err := admin(ctx, "", in("root:team-a", "get", "configmaps", "-n", "default", "--as=bob", "--as-group=team-b", "-o", "name")...); err == nil || !strings.Contains(strings.ToLower(out+err.Error()), "forbidden") {
		t.Errorf("a user outside group team-a must be refused root:team-a: %v %q", err, out)
	}
	e.Step("RealKCP: Workspace team-a Ready %.1fs after apply: kcp made workspace root:team-a; its binding lets group team-a list configmaps there and refuses others", time.Since(start).Seconds())

	// A Kubeconfig for team-a: denied without spec.authorization, allowed with, denied again.
	var kc map[string]any
	b, err := os.ReadFile(e.root + "/examples/workspace/kubeconfig.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &kc); err != nil {
		t.Fatal(err)
	}
	delete(kc["spec"].(map[string]any), "authorization")
	bare, err := yaml.Marshal(kc)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(ctx, bare); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "kubeconfigs", ns, "team-a-admin") })
	if _, err := waitXR(ctx, e, "Kubeconfig", ns, "team-a-admin", "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	team := podKubectl(t, c, proxy, "team-a-admin", secretKey(ctx, t, e, ns, "team-a-admin-kubeconfig", "kubeconfig"))
	access := func(ctx context.Context) (allowed bool, out string) {
		out, err := team(ctx, "", "get", "configmaps", "-n", "default")
		return err == nil, strings.TrimSpace(out)
	}
	waitAccess := func(want bool, what string) {
		t.Helper()
		if err := e.Eventually(ctx, timeout, what, func(ctx context.Context) (bool, string, error) {
			allowed, out := access(ctx)
			if !allowed && !strings.Contains(out, "forbidden") {
				return false, out, nil // not an authorization answer (yet)
			}
			return allowed == want, out, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	waitAccess(false, "team-a-admin denied in root:team-a without spec.authorization")
	setRoles(ctx, t, e, ns, "team-a-admin", "cluster-admin")
	start = time.Now()
	waitAccess(true, "team-a-admin allowed in root:team-a with cluster-admin bound")
	e.Step("RealKCP: Kubeconfig team-a-admin denied by kcp without spec.authorization, allowed %.1fs after cluster-admin was set", time.Since(start).Seconds())
	if _, err := e.Kubectl(ctx, nil, "patch", "kubeconfigs.kcp.crossplane.io", "-n", ns, "team-a-admin", "--type=json", "-p", `[{"op":"remove","path":"/spec/authorization"}]`); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	waitAccess(false, "team-a-admin denied again in root:team-a once spec.authorization is removed")
	e.Step("RealKCP: removing spec.authorization revoked it: denied again after %.1fs", time.Since(start).Seconds())

	// Deleting the Workspace (deletionPolicy Retain) keeps kcp's workspace.
	deleteXR(ctx, t, e, "workspaces", ns, "team-a")
	if out, err := admin(ctx, "", "get", "workspace", "team-a", "-o", "jsonpath={.status.phase}"); err != nil || out != "Ready" {
		t.Errorf("deleting a Workspace with deletionPolicy Retain must keep the workspace: %v %q", err, out)
	}
	e.Step("RealKCP: deleting Workspace team-a kept kcp's workspace root:team-a")

	testRealKCPNestedWorkspace(ctx, t, e, admin)

	// A second shard, run from its Shard XR's Deployment, registers itself with the root
	// shard; deleting the XR removes it from kcp. Last, so that kcp schedules no workspace of
	// this test onto it.
	shardXR := `apiVersion: kcp.crossplane.io/v1alpha1
kind: Shard
metadata: {name: shard-x, namespace: ` + ns + `}
spec:
  rootShard: {ref: {name: root}}
  etcd: {endpoints: ["http://etcd.kcp.svc.cluster.local:2379"], prefix: /shard-x}
`
	if err := e.Apply(ctx, []byte(shardXR)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "shards", ns, "shard-x") })
	if _, err := waitXR(ctx, e, "Shard", ns, "shard-x", "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	shardPod := runDeployments(ctx, t, c, ns, "shard-x-shard-kcp")["shard-x-shard-kcp"]
	start = time.Now()
	if err := e.Eventually(ctx, 3*time.Minute, "shard shard-x registered in kcp", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "shards", "-o", "name")
		return err == nil && strings.Contains(out, "shard.core.kcp.io/shard-x"), out, shardPod.Exited()
	}); err != nil {
		t.Fatal(err)
	}
	out, _ = admin(ctx, "", "get", "shards", "-o", "name")
	e.Step("RealKCP: shard shard-x registered itself with kcp %.1fs after start (kcp's shards: %s)", time.Since(start).Seconds(), strings.Join(strings.Fields(out), " "))
	if _, err := waitXRNudging(ctx, t, e, "Shard", ns, "shard-x", "Registered", "True", "rootshard/root", "shard/shard-x"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Kubectl(ctx, nil, "delete", "shards.kcp.crossplane.io", "-n", ns, "shard-x", "--wait=true", "--timeout=3m"); err != nil {
		t.Fatal(err)
	}
	shardPod.Stop() // its Deployment is gone with the XR
	start = time.Now()
	var nudged time.Time
	if err := e.Eventually(ctx, timeout, "kcp's Shard shard-x deregistered", func(ctx context.Context) (bool, string, error) {
		if time.Since(nudged) > 15*time.Second {
			nudge(ctx, t, e, "rootshard", ns, "root")
			nudged = time.Now()
		}
		out, err := admin(ctx, "", "get", "shards", "-o", "name")
		return err == nil && !strings.Contains(out, "shard-x"), out, nil
	}); err != nil {
		t.Fatal(err)
	}
	out, _ = admin(ctx, "", "get", "shards", "-o", "name")
	e.Step("RealKCP: Shard shard-x reported Registered; deleting the XR removed kcp's Shard object %.1fs later (kcp's shards now: %s)", time.Since(start).Seconds(), strings.Join(strings.Fields(out), " "))

	// Leave the installation as Basic made it, while kcp still answers: every XR this test
	// added gone, and with them every Object they composed inside kcp.
	deleteXR(ctx, t, e, "kubeconfigs", ns, "team-a-admin")
	if err := e.Eventually(ctx, timeout, "no provider-kubernetes Object left in namespace "+ns, func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, "get", "objects.kubernetes.m.crossplane.io", "-n", ns, "-o",
			`jsonpath={range .items[*]}{.metadata.name} policies={.spec.managementPolicies} deleting={.metadata.deletionTimestamp} synced={.status.conditions[?(@.type=="Synced")].message}; {end}`)
		return err == nil && len(strings.TrimSpace(string(out))) == 0, string(out), nil
	}); err != nil {
		t.Fatal(err)
	}
}

// deleteXR deletes an XR of the kind (plural) and waits until it and what it composed are gone
// (foreground): an Object in kcp is deleted while kcp still runs, and no provider finalizer is
// left for a later scenario's namespace delete to wait on. Absent is fine.
func deleteXR(ctx context.Context, t *testing.T, e *env, plural, ns, name string) {
	t.Helper()
	if out, err := e.Kubectl(ctx, nil, "delete", plural+".kcp.crossplane.io", "-n", ns, name, "--ignore-not-found", "--cascade=foreground", "--wait=true", "--timeout=3m"); err != nil {
		t.Errorf("delete %s %s/%s: %v\n%s", plural, ns, name, err, out)
	}
}

// testRealKCPNestedWorkspace checks a Workspace XR with a parent, a type and deletionPolicy
// Delete against real kcp: kcp makes workspace root:team-a:apps of that type, Ready, and
// deleting the XR deletes it in kcp too.
func testRealKCPNestedWorkspace(ctx context.Context, t *testing.T, e *env, admin kubectlFunc) {
	t.Helper()
	const ns = basicNamespace
	in := []string{"--server=https://api.example.com:6443/clusters/root:team-a"}
	ws := `apiVersion: kcp.crossplane.io/v1alpha1
kind: Workspace
metadata: {name: team-a-apps, namespace: ` + ns + `}
spec:
  rootShard: {ref: {name: root}}
  parent: root:team-a
  name: apps
  type: {name: universal, path: root}
  deletionPolicy: Delete
`
	if err := e.Apply(ctx, []byte(ws)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "workspaces", ns, "team-a-apps") })
	start := time.Now()
	if _, err := waitXRNudging(ctx, t, e, "Workspace", ns, "team-a-apps", "Ready", "True", "rootshard/root", "workspace/team-a-apps"); err != nil {
		t.Fatal(err)
	}
	out, err := admin(ctx, "", append(in, "get", "workspace", "apps", "-o", "jsonpath={.status.phase} {.spec.type.name} {.spec.type.path}")...)
	if err != nil || out != "Ready universal root" {
		t.Errorf("kcp's workspace root:team-a:apps: %v %q, want Ready of type universal (path root)", err, out)
	}
	e.Step("RealKCP: Workspace team-a-apps (parent root:team-a, type universal) Ready %.1fs after apply: kcp made root:team-a:apps of that type", time.Since(start).Seconds())

	deleteXR(ctx, t, e, "workspaces", ns, "team-a-apps")
	start = time.Now()
	if err := e.Eventually(ctx, timeout, "kcp's workspace root:team-a:apps deleted with its Workspace (deletionPolicy Delete)", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", append(in, "get", "workspace", "apps", "-o", "name")...)
		return err != nil && strings.Contains(out, "NotFound"), out, nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP: deleting Workspace team-a-apps (deletionPolicy Delete) deleted kcp's workspace root:team-a:apps %.1fs later", time.Since(start).Seconds())
}
