package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// The shared fleet: one KcpInstallation in sharedFleetPlatform shared by E2E_FLEET_TEAMS teams
// (defaultFleetTeams in make test), each with a Tenant, a ResourceQuota, and in its own
// namespace sharedFleetKubeconfigs Kubeconfigs and one Workspace.
const (
	envFleetTeams          = "E2E_FLEET_TEAMS"
	defaultFleetTeams      = 2
	sharedFleetPlatform    = "fleet-shared"
	sharedFleetName        = "shared"
	sharedFleetKubeconfigs = 2
	// maxFleetTeams is how many Tenants of sharedFleetTenant's limits one platform namespace
	// holds (docs/performance.md, "Sizing a shared installation": 8 at 64 KiB each).
	maxFleetTeams = 8
)

func fleetTeams() (int, error) {
	v := os.Getenv(envFleetTeams)
	if v == "" {
		return defaultFleetTeams, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxFleetTeams {
		return 0, fmt.Errorf("%s=%q: want a number of teams from 0 to %d, the Tenants of 64 KiB one installation's namespace holds; more teams take more installations", envFleetTeams, v, maxFleetTeams)
	}
	return n, nil
}

func fleetTeamNamespace(i int) string { return fmt.Sprintf("fleet-team-%02d", i) }

// testSharedFleet is issue 38's shared installation with many teams: examples/shared-kcp's
// KcpInstallation in sharedFleetPlatform, a kcp stand-in (KCPStandIn: not kcp) serving its
// RootShard so that what the Tenants and Workspaces compose inside kcp is applied and becomes
// Ready, and then, at once, for each of the teams a Tenant and a ResourceQuota (the platform's)
// and sharedFleetKubeconfigs Kubeconfigs and a Workspace (the team's). It reports the time
// until every Tenant and team XR is Ready against the time cert-manager alone takes for the
// certificates issued for the teams, and the CPU each process spent meanwhile. The stand-in
// and its workspace scheduler keep running until the test ends, so that a rest window
// (fleetAtRest) can cover the namespaces it returns.
func testSharedFleet(t *testing.T, e *env, teams int) atRest {
	if teams == 0 {
		return atRest{}
	}
	ctx := t.Context()
	platform := atRest{installations: 1, namespaces: []string{sharedFleetPlatform}}
	if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "shared-kcp", "clusterissuer.yaml"),
		filepath.Join(e.root, "examples", "shared-kcp", "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	inst, err := sharedFleetInstallation(e)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := e.Apply(ctx, inst); err != nil {
		t.Fatal(err)
	}
	if _, err := waitInstallationReady(ctx, e, sharedFleetPlatform, sharedFleetName); err != nil {
		t.Fatal(err)
	}
	e.Step("shared fleet: KcpInstallation %s/%s Ready %.1fs after apply", sharedFleetPlatform, sharedFleetName, time.Since(start).Seconds())

	kcp, err := e.KCPStandInFromSecrets(ctx, sharedFleetPlatform, sharedFleetName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.CloseKCPStandIn(sharedFleetPlatform, sharedFleetName) })
	paths := []string{"root"}
	manifests := make([][]byte, teams)
	for i := range teams {
		ns := fleetTeamNamespace(i + 1)
		platform.namespaces = append(platform.namespaces, ns)
		paths = append(paths, "root:"+ns, "root:"+ns+":app")
		manifests[i] = []byte(sharedFleetTeam(ns))
	}
	// A kcp serves a new workspace at once; the stand-in starts a kube-apiserver for each
	// path, which takes seconds: started before the teams apply, they stay out of the figures.
	warm := time.Now()
	clients, err := standInClients(ctx, kcp.Dynamic, paths)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("shared fleet: the kcp stand-in serves the %d workspace paths of %d teams (started side by side in %.1fs)", len(paths), teams, time.Since(warm).Seconds())
	schedulerCtx, stopScheduler := context.WithCancel(context.WithoutCancel(ctx))
	t.Cleanup(stopScheduler)
	go scheduleWorkspaces(schedulerCtx, clients)

	before, err := snapshotOf(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if err := applyAll(ctx, e, manifests); err != nil {
		t.Fatal(err)
	}
	// Per team: its Tenant, and its Kubeconfigs and Workspace in its namespace and, composed
	// by the Tenant, in the platform's.
	want := teams * (1 + 2*(sharedFleetKubeconfigs+1))
	xrs, err := waitXRsReady(ctx, e, want, 2*timeout+time.Duration(teams)*20*time.Second, platform.namespaces...)
	if err != nil {
		t.Fatal(err)
	}
	allReady := time.Since(start)
	after, err := snapshotOf(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	certs, issued, err := lastIssued(ctx, e, start, []string{sharedFleetPlatform})
	if err != nil {
		t.Fatal(err)
	}
	e.Step("shared fleet: %d teams' Tenants, Kubeconfigs and Workspaces applied at once; all %d of their XRs Ready after %.1fs; the %d certificates issued for them after %.1fs; from apply to Ready %s",
		teams, xrs, allReady.Seconds(), certs, issued.Sub(start).Seconds(), after.since(before))
	alone, figures, err := certManagerAlone(ctx, e, start, []string{sharedFleetPlatform})
	if err != nil {
		t.Fatal(err)
	}
	e.Step("shared fleet: cert-manager alone issued the same %d certificates (with the Issuers and CA Secrets of %s) in %.1fs: the teams were Ready in %.2fx that; meanwhile %s",
		certs, sharedFleetPlatform, alone.Seconds(), allReady.Seconds()/alone.Seconds(), figures)
	return platform
}

// sharedFleetInstallation is examples/shared-kcp's KcpInstallation and a Namespace, moved to
// sharedFleetPlatform and given a hostname of its own.
func sharedFleetInstallation(e *env) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(e.root, "examples", "shared-kcp", "installation.yaml"))
	if err != nil {
		return nil, err
	}
	var o map[string]any
	if err := yaml.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	meta, _ := o["metadata"].(map[string]any)
	if meta == nil || meta["name"] != sharedFleetName {
		return nil, fmt.Errorf("examples/shared-kcp/installation.yaml: want KcpInstallation %s", sharedFleetName)
	}
	meta["namespace"] = sharedFleetPlatform
	spec, _ := o["spec"].(map[string]any)
	external, _ := spec["external"].(map[string]any)
	if external == nil {
		return nil, fmt.Errorf("examples/shared-kcp/installation.yaml has no spec.external")
	}
	external["hostname"] = "kcp." + sharedFleetPlatform + ".example.com"
	inst, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`+"\n---\n%s", sharedFleetPlatform, inst)), nil
}

// sharedFleetTeam is what the platform and a team apply for team ns, as examples/shared-kcp
// does for team-red: the team's namespace, quota and Tenant (limits of 64 KiB, so that
// maxFleetTeams Tenants fit the platform's namespace), and the team's Kubeconfigs and
// Workspace.
func sharedFleetTeam(ns string) string {
	docs := []string{
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns),
		fmt.Sprintf(`apiVersion: v1
kind: ResourceQuota
metadata: {name: kcp-team-xrs, namespace: %s}
spec:
  hard: {count/kubeconfigs.kcp.crossplane.io: "10", count/workspaces.kcp.crossplane.io: "10"}`, ns),
		fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Tenant
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  frontProxy: {ref: {name: shared-public}}
  clusterRoleBindings:
  - clusterRole: cluster-admin
    groups: ["tenant:%[1]s:admins"]
  limits: {kubeconfigs: 5, workspaces: 5, bytes: 65536, maxValidity: 720h}`, ns, sharedFleetPlatform),
		fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Workspace
metadata: {name: app, namespace: %[1]s}
spec:
  rootShard: {ref: {name: %[2]s, namespace: %[3]s}}
  clusterRoleBindings:
  - clusterRole: cluster-admin
    groups: ["tenant:%[1]s:developers"]`, ns, sharedFleetName, sharedFleetPlatform),
	}
	for k := range sharedFleetKubeconfigs {
		docs = append(docs, fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: user-%[3]d, namespace: %[1]s}
spec:
  target: {frontProxyRef: {name: shared-public, namespace: %[2]s}}
  username: tenant:%[1]s:user-%[3]d
  groups: ["tenant:%[1]s:admins"]
  validity: 720h
  secretRef: {name: user-%[3]d-kubeconfig}`, ns, sharedFleetPlatform, k+1))
	}
	return strings.Join(docs, "\n---\n")
}

// waitXRsReady waits until the namespaces hold at least want XRs and every XR in them is
// Ready, and returns how many there are.
func waitXRsReady(ctx context.Context, e *env, want int, within time.Duration, namespaces ...string) (int, error) {
	n := 0
	err := e.Eventually(ctx, within, fmt.Sprintf("%d XRs Ready in %s", want, strings.Join(namespaces, ", ")), func(ctx context.Context) (bool, string, error) {
		xrs, err := xrsIn(ctx, e, namespaces...)
		if err != nil {
			return false, "", err
		}
		n = len(xrs)
		var waiting []string
		for _, x := range xrs {
			if x.conditions()["Ready"].Status != "True" {
				waiting = append(waiting, x.Kind+" "+x.Metadata.Namespace+"/"+x.Metadata.Name)
			}
		}
		if len(waiting) > 10 {
			waiting = append(waiting[:10], fmt.Sprintf("and %d more", len(waiting)-10))
		}
		return n >= want && len(waiting) == 0, fmt.Sprintf("%d of at least %d XRs; not Ready: %s", n, want, strings.Join(waiting, ", ")), nil
	})
	return n, err
}

// standInClients starts the stand-in's backends for the paths side by side and returns a
// client of each.
func standInClients(ctx context.Context, client func(context.Context, string) (dynamic.Interface, error), paths []string) ([]dynamic.Interface, error) {
	clients := make([]dynamic.Interface, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() { clients[i], errs[i] = client(ctx, p) })
	}
	wg.Wait()
	return clients, errors.Join(errs...)
}

// scheduleWorkspaces plays kcp's workspace scheduler on the stand-in, which runs no kcp
// controller: every two seconds it reports Ready each tenancy.kcp.io Workspace of the paths'
// backends that is not yet, as kcp does once a workspace is scheduled and initialized.
func scheduleWorkspaces(ctx context.Context, clients []dynamic.Interface) {
	for {
		for _, d := range clients {
			list, err := d.Resource(kcpWorkspaces).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for i := range list.Items {
				ws := &list.Items[i]
				if phase, _, _ := unstructured.NestedString(ws.Object, "status", "phase"); phase == "Ready" {
					continue
				}
				ws.Object["status"] = map[string]any{"phase": "Ready"}
				_, _ = d.Resource(kcpWorkspaces).UpdateStatus(ctx, ws, metav1.UpdateOptions{})
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}
