package scenarios

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/kcpstandin"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// The StandIn scenario's namespace and the RootShard name its kcp stand-in stands in for (no
// RootShard XR exists: only the Service name, root-proxy.standin.svc.cluster.local, matters).
const (
	standInNamespace = "standin"
	standInRootShard = "root"
)

var (
	clusterRoleBindings = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}
	kcpShards           = schema.GroupVersionResource{Group: "core.kcp.io", Version: "v1alpha1", Resource: "shards"}
	kcpWorkspaces       = schema.GroupVersionResource{Group: "tenancy.kcp.io", Version: "v1alpha1", Resource: "workspaces"}
)

// creationGrace is crossplane-runtime's creation grace period: for 30s after creating an
// external resource, a managed resource that no longer observes it waits for it to appear
// (eventual consistency), with growing back-off, instead of finishing a deletion. Objects
// deleted sooner after their creation take up to a minute to go; the scenario waits the
// grace period out first (checking the refused ProviderConfig meanwhile).
const creationGrace = 30 * time.Second

// testStandIn proves the e2e can test what the function will compose inside kcp: real
// provider-kubernetes (stack.ProviderKubernetesVersion), installed as the Configuration's dependency (InstallProviderKubernetes
// waits for it, or applies a Provider naming its public package), acting through namespaced ProviderConfigs and
// kubeconfig Secrets on a kcp stand-in (KCPStandIn: not kcp, see package kcpstandin) at
// https://root-proxy.standin.svc.cluster.local:6443/clusters/root, with throwaway
// certificates.
//
// With an admin client certificate (Organization system:kcp:admin), Objects create two
// ClusterRoleBindings, a core.kcp.io Shard and a tenancy.kcp.io Workspace in workspace root.
// A ProviderConfig whose certificate lacks the admin group is refused (Synced=False, nothing
// created). With the stand-in's front stopped (kcp unreachable), deleting one binding's Object
// is blocked: the binding and the Object stay and the Object says why; once the front is
// started again that deletion completes, and deleting the other Object deletes its binding.
func testStandIn(t *testing.T, e *env) {
	ctx := t.Context()
	const ns = standInNamespace
	host := stack.KCPProxyHost(ns, standInRootShard)

	serverCA, err := certs.NewCA("standin-server-ca")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := serverCA.Issue(certs.Leaf{CommonName: host, DNSNames: []string{host}, Usage: x509.ExtKeyUsageServerAuth})
	if err != nil {
		t.Fatal(err)
	}
	clientCA, err := certs.NewCA("standin-client-ca")
	if err != nil {
		t.Fatal(err)
	}
	admin, err := clientCA.Issue(certs.Leaf{CommonName: "kcp-admin", Organization: []string{kcpstandin.AdminGroup}, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		t.Fatal(err)
	}
	developer, err := clientCA.Issue(certs.Leaf{CommonName: "developer", Organization: []string{"kcp-developers"}, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		t.Fatal(err)
	}
	kcp, err := e.KCPStandIn(stack.KCPStandInOptions{
		Namespace: ns, RootShard: standInRootShard,
		ServingCert: serving.CertPEM, ServingKey: serving.KeyPEM, ClientCA: clientCA.PEM,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.CloseKCPStandIn(ns, standInRootShard)
	// Workspace root's backend starts while the provider installs.
	rootc := make(chan dynamic.Interface, 1)
	go func() {
		d, err := kcp.Dynamic(ctx, "root")
		if err != nil {
			t.Errorf("workspace root of the kcp stand-in: %v", err)
		}
		rootc <- d
	}()
	if err := e.InstallProviderKubernetes(ctx); err != nil {
		t.Fatal(err)
	}
	root := <-rootc
	if root == nil {
		t.FailNow()
	}

	server := stack.KCPProxyURL(ns, standInRootShard, "root")
	items := []any{map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	for name, kp := range map[string]certs.KeyPair{"kcp-root": admin, "kcp-root-developer": developer} {
		items = append(items,
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name + "-kubeconfig", "namespace": ns},
				"stringData": map[string]string{"kubeconfig": string(kcpstandin.Kubeconfig(server, serverCA.PEM, kp.CertPEM, kp.KeyPEM))}},
			map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "ProviderConfig",
				"metadata": map[string]any{"name": name, "namespace": ns},
				"spec": map[string]any{"credentials": map[string]any{"source": "Secret",
					"secretRef": map[string]string{"name": name + "-kubeconfig", "namespace": ns, "key": "kubeconfig"}}}})
	}
	setup, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err := e.Apply(ctx, setup); err != nil {
		t.Fatal(err)
	}

	// What the function will compose inside kcp: RBAC, a Shard, a Workspace.
	objects := []struct {
		name string
		gvr  schema.GroupVersionResource
		// inRoot is the object's name in workspace root.
		inRoot   string
		manifest map[string]any
		// watch: the provider watches what the Object created (spec.watch), through the front.
		watch bool
	}{
		{"standin-a", clusterRoleBindings, "standin-a", bindingManifest("standin-a"), true},
		{"standin-b", clusterRoleBindings, "standin-b", bindingManifest("standin-b"), false},
		{"standin-shard", kcpShards, "standin", map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard",
			"metadata": map[string]any{"name": "standin"}, "spec": map[string]any{"baseURL": "https://standin-shard.standin.svc.cluster.local:6443"}}, false},
		{"standin-workspace", kcpWorkspaces, "team-a", map[string]any{"apiVersion": "tenancy.kcp.io/v1alpha1", "kind": "Workspace",
			"metadata": map[string]any{"name": "team-a"}}, false},
	}
	created := time.Now()
	for _, o := range objects {
		applyObject(ctx, t, e, o.name, "kcp-root", o.manifest, o.watch)
	}
	// Observe only: the provider never deletes through a ProviderConfig that cannot.
	applyObject(ctx, t, e, "standin-developer", "kcp-root-developer", bindingManifest("standin-developer"), false, "Observe")
	for _, o := range objects {
		waitObject(ctx, t, e, o.name, func(o stack.Object) bool {
			return o.Condition("Ready").Status == "True" && o.Condition("Synced").Status == "True"
		})
		if _, err := root.Resource(o.gvr).Get(ctx, o.inRoot, metav1.GetOptions{}); err != nil {
			t.Fatalf("Object %s is Ready, but %s %s is not in workspace root: %v", o.name, o.gvr.Resource, o.inRoot, err)
		}
	}
	b, err := root.Resource(clusterRoleBindings).Get(ctx, "standin-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := firstSubject(b.Object); s != "e2e-standin-a" {
		t.Errorf("ClusterRoleBinding standin-a in root binds %q, want e2e-standin-a", s)
	}
	e.Step("StandIn: Objects created ClusterRoleBindings standin-a and standin-b, Shard standin and Workspace team-a in workspace root of the kcp stand-in")
	// The provider reports the refusal in Synced; what its message says is the provider's:
	// v1.2.0 passes on the stand-in's Forbidden status, v1.3.1 asks for discovery first, whose
	// client cannot decode an error status and says "failed to get server groups: unknown".
	// That the front refused the developer is what the stand-in itself counts.
	developerObj := waitObject(ctx, t, e, "standin-developer", func(o stack.Object) bool {
		return o.Condition("Synced").Status == "False" && kcp.Refused("developer") > 0
	})
	if _, err := root.Resource(clusterRoleBindings).Get(ctx, "standin-developer", metav1.GetOptions{}); !kerrors.IsNotFound(err) {
		t.Errorf("ClusterRoleBinding standin-developer in root: %v, want NotFound", err)
	}
	e.Step("StandIn: a client certificate without group %s is refused: %s", kcpstandin.AdminGroup, developerObj.Condition("Synced").Message)

	// standin-a's binding is watched through the front; changed in kcp, it is put back.
	if err := e.Eventually(ctx, 30*time.Second, "a watch of ClusterRoleBindings through the kcp stand-in front", func(context.Context) (bool, string, error) {
		w := kcp.OpenWatches("root")
		return slices.ContainsFunc(w, func(p string) bool { return strings.HasSuffix(p, "/clusterrolebindings") }), fmt.Sprintf("open watches: %q", w), nil
	}); err != nil {
		t.Fatal(err)
	}
	b.Object["subjects"] = []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "intruder"}}
	if _, err := root.Resource(clusterRoleBindings).Update(ctx, b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	changed := time.Now()
	if err := e.Eventually(ctx, 30*time.Second, "ClusterRoleBinding standin-a put back", func(ctx context.Context) (bool, string, error) {
		b, err := root.Resource(clusterRoleBindings).Get(ctx, "standin-a", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		s := firstSubject(b.Object)
		return s == "e2e-standin-a", "subject " + s, nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("StandIn: the provider watches ClusterRoleBindings through the front (%q); standin-a changed in kcp was put back after %.1fs", kcp.OpenWatches("root"), time.Since(changed).Seconds())

	if wait := creationGrace + time.Second - time.Since(created); wait > 0 {
		time.Sleep(wait)
	}

	// kcp unreachable: the deletion waits, and keeps the binding and the Object.
	kcp.StopFront()
	stopped := time.Now()
	deleteObjects(ctx, t, e, "standin-b")
	waitObject(ctx, t, e, "standin-b", func(o stack.Object) bool {
		return o.Metadata.DeletionTimestamp != "" && o.Condition("Synced").Status == "False"
	})
	// The provider retries after 1s and fails again. A longer outage only grows its back-off
	// (1s, 2s, 4s, ...: 32s after a 30s outage), which the scenario would then wait out.
	time.Sleep(1500 * time.Millisecond)
	o, err := getObject(ctx, e, "standin-b")
	if err != nil {
		t.Fatalf("Object standin-b went while kcp was unreachable: %v", err)
	}
	if _, err := root.Resource(clusterRoleBindings).Get(ctx, "standin-b", metav1.GetOptions{}); err != nil {
		t.Fatalf("ClusterRoleBinding standin-b in root while the front is stopped: %v", err)
	}
	e.Step("StandIn: front stopped %.1fs; Object standin-b is being deleted but stays (Synced=False: %s), its binding stays", time.Since(stopped).Seconds(), o.Condition("Synced").Message)

	if err := kcp.StartFront(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	// With kcp reachable, deleting an Object deletes what it created.
	deleteObjects(ctx, t, e, "standin-a")
	for _, name := range []string{"standin-b", "standin-a"} {
		waitObjectGone(ctx, t, e, name)
		waitGoneInRoot(ctx, t, e, root, clusterRoleBindings, name)
	}
	e.Step("StandIn: front started again; the deletion of standin-b completed, and deleting standin-a deleted its binding, %.1fs later", time.Since(started).Seconds())

	// Clean up, so that the provider is idle during the scenarios after this one.
	deleteObjects(ctx, t, e, "standin-shard", "standin-workspace", "standin-developer")
	for _, o := range objects[2:] {
		waitObjectGone(ctx, t, e, o.name)
		waitGoneInRoot(ctx, t, e, root, o.gvr, o.inRoot)
	}
	waitObjectGone(ctx, t, e, "standin-developer")
}

func bindingManifest(name string) map[string]any {
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": name},
		"roleRef":  map[string]string{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
		"subjects": []any{map[string]string{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "e2e-" + name}},
	}
}

// applyObject applies a provider-kubernetes Object in the scenario's namespace.
func applyObject(ctx context.Context, t *testing.T, e *env, name, providerConfig string, manifest map[string]any, watch bool, managementPolicies ...string) {
	t.Helper()
	spec := map[string]any{
		"providerConfigRef": map[string]string{"kind": "ProviderConfig", "name": providerConfig},
		"forProvider":       map[string]any{"manifest": manifest},
		"watch":             watch,
	}
	if len(managementPolicies) > 0 {
		spec["managementPolicies"] = managementPolicies
	}
	obj, _ := json.Marshal(map[string]any{
		"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
		"metadata": map[string]any{"name": name, "namespace": standInNamespace},
		"spec":     spec,
	})
	if err := e.Apply(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

// waitObject waits until the Object satisfies done, and returns it.
func waitObject(ctx context.Context, t *testing.T, e *env, name string, done func(stack.Object) bool) stack.Object {
	t.Helper()
	var last stack.Object
	if err := e.Eventually(ctx, time.Minute, "Object "+name, func(ctx context.Context) (bool, string, error) {
		o, err := getObject(ctx, e, name)
		if err != nil {
			return false, "", err
		}
		last = o
		r, s := o.Condition("Ready"), o.Condition("Synced")
		return done(o), fmt.Sprintf("deletionTimestamp %q; Ready=%s %s; Synced=%s %s: %s", o.Metadata.DeletionTimestamp, r.Status, r.Message, s.Status, s.Reason, s.Message), nil
	}); err != nil {
		t.Fatal(err)
	}
	return last
}

func getObject(ctx context.Context, e *env, name string) (stack.Object, error) {
	var o stack.Object
	err := e.GetJSON(ctx, &o, "objects.kubernetes.m.crossplane.io", "-n", standInNamespace, name)
	return o, err
}

func deleteObjects(ctx context.Context, t *testing.T, e *env, names ...string) {
	t.Helper()
	if _, err := e.Kubectl(ctx, nil, append([]string{"delete", "objects.kubernetes.m.crossplane.io", "-n", standInNamespace, "--wait=false"}, names...)...); err != nil {
		t.Fatal(err)
	}
}

func waitObjectGone(ctx context.Context, t *testing.T, e *env, name string) {
	t.Helper()
	if err := e.Eventually(ctx, 2*time.Minute, "Object "+name+" deleted", func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, "get", "objects.kubernetes.m.crossplane.io", "-n", standInNamespace, name, "--ignore-not-found", "-o", "name")
		return err == nil && len(out) == 0, string(out), err
	}); err != nil {
		t.Fatal(err)
	}
}

// waitGoneInRoot waits until an object no longer exists in workspace root.
func waitGoneInRoot(ctx context.Context, t *testing.T, e *env, root dynamic.Interface, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	if err := e.Eventually(ctx, 30*time.Second, gvr.Resource+" "+name+" deleted in workspace root", func(ctx context.Context) (bool, string, error) {
		_, err := root.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if kerrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, fmt.Sprintf("still there (%v)", err), nil
	}); err != nil {
		t.Fatal(err)
	}
}

// firstSubject is the name of a ClusterRoleBinding's first subject.
func firstSubject(o map[string]any) string {
	subjects, _ := o["subjects"].([]any)
	if len(subjects) == 0 {
		return ""
	}
	m, _ := subjects[0].(map[string]any)
	n, _ := m["name"].(string)
	return n
}
