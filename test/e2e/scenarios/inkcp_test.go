package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// testInKCP checks what the function composes inside kcp, on the sharded installation of
// namespace kcp (Sharded, KeepsWhatRuns), with real provider-kubernetes acting through the
// RootShard's own ProviderConfigs and credentials on the kcp stand-in (KCPStandIn: not kcp)
// that serves root-proxy.kcp.svc.cluster.local with the proxy's issued serving certificate and
// trusts the RootShard's client CA.
//
// The stand-in runs no kcp controller: the scenario registers shard-1 itself (as a shard does
// when it starts) and reports the workspace Ready (as kcp does once it is scheduled). The
// RootShard reads the Objects it must give credentials to, and its Shards, on Crossplane's poll
// interval; the scenario annotates it to reconcile now rather than wait up to a minute (nudge).
func testInKCP(t *testing.T, e *env) {
	ctx := t.Context()
	const ns = "kcp"
	kcp, err := e.KCPStandInFromSecrets(ctx, ns, "root")
	if err != nil {
		t.Fatal(err)
	}
	defer e.CloseKCPStandIn(ns, "root")
	root := standInWorkspace(ctx, t, kcp.Dynamic, "root")

	// Before shard-1 registers, the RootShard's Object for its kcp Shard finds none and
	// creates none: it observes only (rootshard's registrationPolicies).
	noShardCreated(ctx, t, e, root, ns, "root-registration-shard-1", "shard-1")
	e.Step("InKCP: the Object for shard-1's kcp Shard reached kcp, found no Shard and created none")

	// Registration: kcp gets shard-1's Shard object; the Shard XR reports it.
	shard := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard",
		"metadata": map[string]any{"name": "shard-1"}, "spec": map[string]any{"baseURL": "https://shard-1-shard-kcp.kcp.svc.cluster.local:6443"}}}
	if _, err := root.Resource(kcpShards).Create(ctx, shard, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := waitXRNudging(ctx, t, e, "Shard", ns, "shard-1", "Registered", "True", "rootshard/root", "shard/shard-1"); err != nil {
		t.Fatal(err)
	}
	e.Step("InKCP: Shard shard-1 reports Registered once kcp has its Shard object")

	// A Workspace and a Kubeconfig bound inside it (examples/workspace on this installation).
	if _, err := e.ApplyFiles(ctx, e.root+"/examples/workspace/workspace.yaml", e.root+"/examples/workspace/kubeconfig.yaml"); err != nil {
		t.Fatal(err)
	}
	waitInKCP(ctx, t, e, root, kcpWorkspaces, "team-a")
	nudge(ctx, t, e, "rootshard", ns, "root") // credentials for root:team-a
	markWorkspaceReady(ctx, t, root, "team-a")
	if _, err := waitXR(ctx, e, "Workspace", ns, "team-a", "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	team := standInWorkspace(ctx, t, kcp.Dynamic, "root:team-a")
	if got := subjects(ctx, t, team, "kcp.crossplane.io:cluster-admin"); got != "Group/team-a" {
		t.Errorf("the Workspace's binding of cluster-admin has subjects %q, want Group/team-a", got)
	}
	kc, err := waitXR(ctx, e, "Kubeconfig", ns, "team-a-admin", "BindingsReady", "True")
	if err != nil {
		t.Fatal(err)
	}
	uid := kubeconfigUID(ctx, t, e, ns, "team-a-admin")
	if got := subjects(ctx, t, team, uid+":cluster-admin"); got != "Group/kubeconfig:team-a-admin" {
		t.Errorf("the Kubeconfig's binding of cluster-admin has subjects %q, want Group/kubeconfig:team-a-admin", got)
	}
	if got := fmt.Sprint(kc.Status["authorization"]); got != "map[provisionedCluster:root:team-a]" {
		t.Errorf("status.authorization = %s, want provisionedCluster root:team-a", got)
	}
	e.Step("InKCP: Workspace team-a Ready; view bound to group team-a and cluster-admin to the Kubeconfig's group in root:team-a")

	// Changing the roles changes the bindings.
	setRoles(ctx, t, e, ns, "team-a-admin", "view")
	waitBindings(ctx, t, e, team, uid, "view")
	// The XR reports the change once provider-kubernetes' Object for view is Ready, which
	// can follow the binding in kcp by a moment: wait for it, or its BindingsReady=False of
	// this change would be taken below for the next one's.
	if _, err := waitXR(ctx, e, "Kubeconfig", ns, "team-a-admin", "BindingsReady", "True"); err != nil {
		t.Fatal(err)
	}
	e.Step("InKCP: clusterRoles [view] replaced the cluster-admin binding")

	// kcp unreachable: a new role waits, and nothing composed is dropped.
	before := objectUIDs(ctx, t, e, ns)
	kcp.StopFront()
	setRoles(ctx, t, e, ns, "team-a-admin", "view", "edit")
	if err := e.Eventually(ctx, timeout, "BindingsReady=False saying why edit is not bound", func(ctx context.Context) (bool, string, error) {
		x, err := getXR(ctx, e, "Kubeconfig", ns, "team-a-admin")
		c := x.conditions()["BindingsReady"]
		return err == nil && c.Status == "False" && strings.Contains(c.Message, "edit:"), c.Status + ": " + c.Message, err
	}); err != nil {
		t.Fatal(err)
	}
	nudge(ctx, t, e, "rootshard", ns, "root")
	nudge(ctx, t, e, "workspace", ns, "team-a")
	time.Sleep(15 * time.Second)
	after := objectUIDs(ctx, t, e, ns)
	for name, u := range before {
		if after[name] != u {
			t.Errorf("%s was deleted or re-created while kcp was unreachable (UID %s, now %q)", name, u, after[name])
		}
	}
	waitBindings(ctx, t, e, team, uid, "view") // still there
	if err := kcp.StartFront(); err != nil {
		t.Fatal(err)
	}
	waitBindings(ctx, t, e, team, uid, "edit", "view")
	if _, err := waitXR(ctx, e, "Kubeconfig", ns, "team-a-admin", "BindingsReady", "True"); err != nil {
		t.Fatal(err)
	}
	e.Step("InKCP: with kcp unreachable every Object and ProviderConfig stayed (%d), and edit was bound once it answered", len(before))

	// Removing spec.authorization removes the bindings.
	if _, err := e.Kubectl(ctx, nil, "patch", "kubeconfigs.kcp.crossplane.io", "-n", ns, "team-a-admin", "--type=json", "-p", `[{"op":"remove","path":"/spec/authorization"}]`); err != nil {
		t.Fatal(err)
	}
	waitBindings(ctx, t, e, team, uid)
	e.Step("InKCP: removing spec.authorization removed the Kubeconfig's bindings")

	// Deleting the Workspace (deletionPolicy Retain) keeps the workspace, and removes its bindings.
	if _, err := e.Kubectl(ctx, nil, "delete", "workspaces.kcp.crossplane.io", "-n", ns, "team-a", "--wait=true", "--timeout=3m"); err != nil {
		t.Fatal(err)
	}
	if err := e.Eventually(ctx, timeout, "the Workspace's binding gone", func(ctx context.Context) (bool, string, error) {
		_, err := team.Resource(clusterRoleBindings).Get(ctx, "kcp.crossplane.io:cluster-admin", metav1.GetOptions{})
		return kerrors.IsNotFound(err), fmt.Sprint(err), nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Resource(kcpWorkspaces).Get(ctx, "team-a", metav1.GetOptions{}); err != nil {
		t.Errorf("deleting a Workspace with deletionPolicy Retain must keep the workspace: %v", err)
	}
	e.Step("InKCP: deleting the Workspace kept workspace team-a and removed its binding")

	// Deleting a Shard deregisters it.
	if _, err := e.Kubectl(ctx, nil, "delete", "shards.kcp.crossplane.io", "-n", ns, "shard-1", "--wait=true", "--timeout=3m"); err != nil {
		t.Fatal(err)
	}
	// Deregistering takes the RootShard two reconciles (the Delete policy, then leaving the
	// Object out): nudge it every 15 s, not on every check, or its circuit breaker opens.
	var nudged time.Time
	if err := e.Eventually(ctx, timeout, "kcp's Shard shard-1 deregistered", func(ctx context.Context) (bool, string, error) {
		if time.Since(nudged) > 15*time.Second {
			nudge(ctx, t, e, "rootshard", ns, "root")
			nudged = time.Now()
		}
		_, err := root.Resource(kcpShards).Get(ctx, "shard-1", metav1.GetOptions{})
		return kerrors.IsNotFound(err), fmt.Sprint(err), nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("InKCP: deleting Shard shard-1 removed its Shard object from kcp's root workspace")
}

// standInWorkspace is a client of one workspace of the stand-in, straight to its backend.
func standInWorkspace(ctx context.Context, t *testing.T, client func(context.Context, string) (dynamic.Interface, error), path string) dynamic.Interface {
	t.Helper()
	d, err := client(ctx, path)
	if err != nil {
		t.Fatalf("workspace %s of the kcp stand-in: %v", path, err)
	}
	return d
}

// nudge annotates an XR so Crossplane reconciles it now, instead of on its poll interval.
func nudge(ctx context.Context, t *testing.T, e *env, kind, ns, name string) {
	t.Helper()
	if _, err := e.Kubectl(ctx, nil, "annotate", kind+".kcp.crossplane.io", "-n", ns, name, "--overwrite",
		"e2e.kcp.crossplane.io/nudge="+time.Now().Format(time.RFC3339Nano)); err != nil {
		t.Fatal(err)
	}
}

// waitXRNudging is waitXR, nudging the XRs ("<kind>/<name>", in namespace ns) every 15 s
// meanwhile: what the XR waits for arrives through a provider-kubernetes Object, which
// Crossplane does not watch for it. Not on every check, or the XRs' circuit breakers open.
func waitXRNudging(ctx context.Context, t *testing.T, e *env, kind, ns, name, condition, status string, nudged ...string) (xr, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			for _, n := range nudged {
				k, name, _ := strings.Cut(n, "/")
				_, _ = e.Kubectl(ctx, nil, "annotate", k+".kcp.crossplane.io", "-n", ns, name, "--overwrite",
					"e2e.kcp.crossplane.io/nudge="+time.Now().Format(time.RFC3339Nano))
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(15 * time.Second):
			}
		}
	}()
	return waitXR(ctx, e, kind, ns, name, condition, status)
}

// waitInKCP waits until the stand-in holds the cluster-scoped object.
func waitInKCP(ctx context.Context, t *testing.T, e *env, d dynamic.Interface, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	if err := e.Eventually(ctx, timeout, gvr.Resource+"/"+name+" in the kcp stand-in", func(ctx context.Context) (bool, string, error) {
		_, err := d.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err), nil
	}); err != nil {
		t.Fatal(err)
	}
}

// markWorkspaceReady reports the workspace Ready, as kcp does once it is scheduled and
// initialized (the stand-in runs no kcp controller).
func markWorkspaceReady(ctx context.Context, t *testing.T, d dynamic.Interface, name string) {
	t.Helper()
	ws, err := d.Resource(kcpWorkspaces).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ws.Object["status"] = map[string]any{"phase": "Ready"}
	if _, err := d.Resource(kcpWorkspaces).UpdateStatus(ctx, ws, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// subjects is "Kind/name,..." of a ClusterRoleBinding in the workspace, "" when it is absent.
func subjects(ctx context.Context, t *testing.T, d dynamic.Interface, name string) string {
	t.Helper()
	var crb *unstructured.Unstructured
	var err error
	for range 60 {
		if crb, err = d.Resource(clusterRoleBindings).Get(ctx, name, metav1.GetOptions{}); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		return ""
	}
	subs, _, _ := unstructured.NestedSlice(crb.Object, "subjects")
	var out []string
	for _, s := range subs {
		m := s.(map[string]any)
		out = append(out, fmt.Sprint(m["kind"], "/", m["name"]))
	}
	return strings.Join(out, ",")
}

// kubeconfigUID is the Kubeconfig XR's UID, which names its bindings in kcp.
func kubeconfigUID(ctx context.Context, t *testing.T, e *env, ns, name string) string {
	t.Helper()
	var o struct {
		Metadata struct{ UID string } `json:"metadata"`
	}
	if err := e.GetJSON(ctx, &o, "kubeconfigs.kcp.crossplane.io", "-n", ns, name); err != nil {
		t.Fatal(err)
	}
	return o.Metadata.UID
}

// setRoles sets the Kubeconfig's spec.authorization.clusterRoleBindings.clusterRoles.
func setRoles(ctx context.Context, t *testing.T, e *env, ns, name string, roles ...string) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"authorization":{"clusterRoleBindings":{"clusterRoles":["%s"]}}}}`, strings.Join(roles, `","`))
	if _, err := e.Kubectl(ctx, nil, "patch", "kubeconfigs.kcp.crossplane.io", "-n", ns, name, "--type=merge", "-p", patch); err != nil {
		t.Fatal(err)
	}
}

// waitBindings waits until the workspace holds exactly the Kubeconfig's bindings of roles.
func waitBindings(ctx context.Context, t *testing.T, e *env, d dynamic.Interface, uid string, roles ...string) {
	t.Helper()
	want := make([]string, len(roles))
	for i, r := range roles {
		want[i] = uid + ":" + r
	}
	slices.Sort(want)
	if err := e.Eventually(ctx, timeout, fmt.Sprintf("bindings %v in the workspace", want), func(ctx context.Context) (bool, string, error) {
		l, err := d.Resource(clusterRoleBindings).List(ctx, metav1.ListOptions{LabelSelector: "operator.kcp.io/kubeconfig=" + uid})
		if err != nil {
			return false, err.Error(), nil
		}
		var got []string
		for _, i := range l.Items {
			got = append(got, i.GetName())
		}
		slices.Sort(got)
		return slices.Equal(got, want), fmt.Sprint(got), nil
	}); err != nil {
		t.Fatal(err)
	}
}

// objectUIDs maps every provider-kubernetes Object and ProviderConfig in the namespace that is
// not being deleted to its UID.
func objectUIDs(ctx context.Context, t *testing.T, e *env, ns string) map[string]string {
	t.Helper()
	var l struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name              string `json:"name"`
				UID               string `json:"uid"`
				DeletionTimestamp string `json:"deletionTimestamp"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &l, "objects.kubernetes.m.crossplane.io,providerconfigs.kubernetes.m.crossplane.io", "-n", ns); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, i := range l.Items {
		// An Object already being deleted (a binding of the role just replaced, waiting on
		// provider-kubernetes' finalizer) was let go before kcp stopped: not one to keep.
		if i.Metadata.DeletionTimestamp != "" {
			continue
		}
		out[i.Kind+"/"+i.Metadata.Name] = i.Metadata.UID
	}
	return out
}

// noShardCreated waits until provider-kubernetes reconciled Object object against the kcp
// stand-in and found no Shard shard there (Synced=False, the external resource does not
// exist), annotating the Object so it need not wait out its backoff, and fails if the Object
// created the Shard meanwhile.
func noShardCreated(ctx context.Context, t *testing.T, e *env, root dynamic.Interface, ns, object, shard string) {
	t.Helper()
	var created bool
	var nudged time.Time
	err := e.Eventually(ctx, timeout, "Object "+object+" reports kcp has no Shard "+shard, func(ctx context.Context) (bool, string, error) {
		if _, err := root.Resource(kcpShards).Get(ctx, shard, metav1.GetOptions{}); !kerrors.IsNotFound(err) {
			created = err == nil
			return created, fmt.Sprintf("kcp's Shard %s: %v", shard, err), nil
		}
		var o struct {
			Spec struct {
				ManagementPolicies []string `json:"managementPolicies"`
			} `json:"spec"`
			Status struct {
				Conditions []struct{ Type, Status, Message string } `json:"conditions"`
			} `json:"status"`
		}
		if err := e.GetJSON(ctx, &o, "objects.kubernetes.m.crossplane.io", "-n", ns, object); err != nil {
			return false, err.Error(), nil
		}
		for _, c := range o.Status.Conditions {
			if c.Type == "Synced" && c.Status == "False" && strings.Contains(c.Message, "does not exist") {
				return true, "", nil
			}
		}
		if time.Since(nudged) > 10*time.Second {
			nudged = time.Now()
			if _, err := e.Kubectl(ctx, nil, "annotate", "objects.kubernetes.m.crossplane.io", "-n", ns, object, "--overwrite",
				"e2e.kcp.crossplane.io/nudge="+nudged.Format(time.RFC3339Nano)); err != nil {
				return false, err.Error(), nil
			}
		}
		return false, fmt.Sprintf("policies %v, conditions %+v", o.Spec.ManagementPolicies, o.Status.Conditions), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if created {
		t.Fatalf("kcp has a Shard %s before the shard registered: Object %s created it", shard, object)
	}
}
