package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// testSharedHostile is HostileTenant's shared-kcp part, on SharedKCP's installation: teams with
// only edit in their namespaces (requests made as their users) try what a Tenant must refuse,
// and the other team's workspace outlives what they delete.
//   - A namespace named system gets identities tenant:system:..., and its Kubeconfig claiming
//     system:masters is refused by the API naming spec.username; nothing is issued for it.
//   - Workspaces that would create a kcp workspace another XR creates (red's own second app,
//     blue's app inside root:team-red), or use a WorkspaceType of root the Tenant does not
//     list, are refused naming the field; deleting them, with deletionPolicy Delete, leaves
//     red's workspace app and the XR acting for it in kcp as they were.
//   - Red at its budget: a Kubeconfig binding more roles than spec.limits.bindings is refused
//     naming the budget, one heavier than a team's XR may be (a 10 KiB annotation) naming
//     metadata.annotations; meanwhile the platform's RootShard still reconciles (it composes
//     again its Service, deleted by the harness) and blue's kubeconfig stays Ready.
//   - Four Workspaces of 1.35 MB are named refused by red's Tenant, which applies the
//     platform's change to red's workspace meanwhile: a Tenant reads what they ask for.
//   - A second front-proxy whose identity provider names groups without a prefix is refused
//     naming its field and the Tenant, which is refused naming it; with a prefix both compose.
func testSharedHostile(ctx context.Context, t *testing.T, e *env, red, blue func(...string) []string) {
	t.Run("NamespaceNamedSystem", func(t *testing.T) {
		const ns, user = "system", "sysop"
		platform := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Tenant
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  frontProxy: {ref: {name: shared-public}}
`, ns, sharedPlatform)
		if err := e.Apply(ctx, []byte(platform)); err != nil {
			t.Fatal(err)
		}
		// Its workspace's Objects act in a kcp that does not run here: do not wait for them.
		defer e.Kubectl(context.Background(), nil, "delete", "tenants.kcp.crossplane.io", ns, "-n", sharedPlatform, "--wait=false") //nolint:errcheck // Clean-up: the test has its result.

		as := teamUser(ctx, t, e, ns, user)
		m := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: root, namespace: %s}
spec:
  target: {frontProxyRef: {name: shared-public, namespace: %s}}
  username: "system:masters"
  groups: ["system:kcp:admin"]
  validity: 720h
  secretRef: {name: root-kubeconfig}
`, ns, sharedPlatform)
		if _, err := e.Kubectl(ctx, []byte(m), as("apply", "-f", "-")...); err != nil {
			t.Fatal(err)
		}
		defer deleteXR(context.Background(), t, e, "kubeconfigs", ns, "root")
		x, err := waitXR(ctx, e, "Kubeconfig", ns, "root", "Synced", "False")
		if err != nil {
			t.Fatal(err)
		}
		msg := x.conditions()["Synced"].Message
		if !strings.Contains(msg, "spec.username") || !strings.Contains(msg, "tenant:system:") {
			t.Errorf("Kubeconfig %s/root claiming system:masters refused with %q, want it to name spec.username and the prefix tenant:system:", ns, msg)
		}
		time.Sleep(10 * time.Second) // the Tenant reconciles meanwhile
		if _, err := getXR(ctx, e, "Kubeconfig", sharedPlatform, ns+".root"); err == nil {
			t.Errorf("Kubeconfig %s/%s.root exists: the Tenant issued something for system:masters", sharedPlatform, ns)
		}
		e.Step("shared: a team in namespace system asking for system:masters is refused (%s)", msg)
	})

	t.Run("SecondFrontProxy", func(t *testing.T) {
		// The platform adds a front-proxy to the shared installation whose identity provider
		// names groups without a prefix: a group tenant:team-red:admins would be
		// cluster-admin of root:team-red through it. The FrontProxy is refused naming its
		// field and the Tenant, and composes nothing; the Tenant is refused naming the
		// FrontProxy and keeps what it granted. With a prefix, the FrontProxy composes.
		edge := func(groupsPrefix string) []byte {
			return []byte(fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: edge, namespace: %s}
spec:
  rootShard: {ref: {name: shared}}
  external: {hostname: edge.kcp.example.com, port: 443}
  auth:
    serviceAccount: {enabled: true}
    oidc: {issuerURL: "https://sso.example.com", clientID: kcp, usernameClaim: email, usernamePrefix: "sso:", groupsPrefix: %q}
`, sharedPlatform, groupsPrefix))
		}
		granted, err := getXR(ctx, e, "Workspace", sharedPlatform, sharedRed)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Apply(ctx, edge("")); err != nil {
			t.Fatal(err)
		}
		defer e.Kubectl(context.Background(), nil, "delete", "frontproxies.kcp.crossplane.io", "edge", "-n", sharedPlatform, "--wait=false") //nolint:errcheck // Clean-up: the test has its result.
		x, err := waitXR(ctx, e, "FrontProxy", sharedPlatform, "edge", "Synced", "False")
		if err != nil {
			t.Fatal(err)
		}
		msg := x.conditions()["Synced"].Message
		if !strings.Contains(msg, "spec.auth.oidc.groupsPrefix") || !strings.Contains(msg, "Tenant "+sharedPlatform+"/"+sharedRed) {
			t.Errorf("FrontProxy %s/edge refused with %q, want it to name spec.auth.oidc.groupsPrefix and Tenant %s/%s", sharedPlatform, msg, sharedPlatform, sharedRed)
		}
		err = e.Eventually(ctx, timeout, "Tenant "+sharedRed+" refused naming FrontProxy edge", func(ctx context.Context) (bool, string, error) {
			x, err := getXR(ctx, e, "Tenant", sharedPlatform, sharedRed)
			if err != nil {
				return false, "", err
			}
			c := x.conditions()["Synced"]
			return c.Status == "False" && strings.Contains(c.Message, "FrontProxy edge"), c.Status + ": " + c.Message, nil
		})
		if err != nil {
			t.Error(err)
		}
		if dep, err := composed(ctx, e, sharedPlatform, "deployments"); err != nil {
			t.Fatal(err)
		} else if _, ok := dep["Deployment/edge-front-proxy"]; ok {
			t.Errorf("Deployment %s/edge-front-proxy exists: the refused FrontProxy composed its workload", sharedPlatform)
		}
		after, err := getXR(ctx, e, "Workspace", sharedPlatform, sharedRed)
		if err != nil || after.Metadata.UID != granted.Metadata.UID || after.Metadata.DeletionTimestamp != "" {
			t.Errorf("the team's workspace XR %s/%s changed while its Tenant was refused (err %v)", sharedPlatform, sharedRed, err)
		}
		e.Step("shared: a second front-proxy taking OIDC groups without a prefix is refused (%s), and the Tenant names it", msg)

		if err := e.Apply(ctx, edge("oidc:")); err != nil {
			t.Fatal(err)
		}
		if _, err := waitXR(ctx, e, "FrontProxy", sharedPlatform, "edge", "Synced", "True"); err != nil {
			t.Error(err)
		}
		if _, err := waitXR(ctx, e, "Tenant", sharedPlatform, sharedRed, "Synced", "True"); err != nil {
			t.Error(err)
		}
		e.Step("shared: with groupsPrefix oidc: the second front-proxy composes and the Tenant grants again")
	})

	t.Run("OtherWorkspaceOutlivesDeletions", func(t *testing.T) {
		acting, err := getXR(ctx, e, "Workspace", sharedPlatform, sharedRed+".app")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			as        func(...string) []string
			ns, name  string
			spec      string
			wantField string
		}{
			{red, sharedRed, "app-again", "name: app", "spec.name"},
			{red, sharedRed, "typed", "type: {name: platform-internal, path: root}", "spec.type.name"},
			{blue, sharedBlue, "app", "parent: root:team-red", "spec.parent"},
		} {
			m := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Workspace
metadata: {name: %s, namespace: %s}
spec:
  rootShard: {ref: {name: shared, namespace: %s}}
  deletionPolicy: Delete
  %s
`, c.name, c.ns, sharedPlatform, c.spec)
			if _, err := e.Kubectl(ctx, []byte(m), c.as("apply", "-f", "-")...); err != nil {
				t.Fatal(err)
			}
			x, err := waitXR(ctx, e, "Workspace", c.ns, c.name, "InputsReady", "False")
			if err != nil {
				t.Fatal(err)
			}
			err = e.Eventually(ctx, timeout, fmt.Sprintf("Workspace %s/%s refused naming %s", c.ns, c.name, c.wantField), func(ctx context.Context) (bool, string, error) {
				x, err = getXR(ctx, e, "Workspace", c.ns, c.name)
				if err != nil {
					return false, "", err
				}
				cond := x.conditions()["InputsReady"]
				return cond.Reason == "Refused" && strings.Contains(cond.Message, c.wantField), cond.Reason + ": " + cond.Message, nil
			})
			if err != nil {
				t.Error(err)
			}
			if _, err := e.Kubectl(ctx, nil, c.as("delete", "workspaces.kcp.crossplane.io", c.name, "-n", c.ns)...); err != nil {
				t.Fatal(err)
			}
		}
		after, err := getXR(ctx, e, "Workspace", sharedPlatform, sharedRed+".app")
		if err != nil {
			t.Fatalf("Workspace %s/%s.app, which acts in kcp for red's workspace app, is gone after other Workspaces of the same path were deleted: %v", sharedPlatform, sharedRed, err)
		}
		if after.Metadata.UID != acting.Metadata.UID || after.Metadata.DeletionTimestamp != "" {
			t.Errorf("Workspace %s/%s.app was replaced or is being deleted (uid %s, was %s; deletionTimestamp %q)", sharedPlatform, sharedRed, after.Metadata.UID, acting.Metadata.UID, after.Metadata.DeletionTimestamp)
		}
		if _, err := waitXR(ctx, e, "Workspace", sharedRed, "app", "InputsReady", "True"); err != nil {
			t.Error(err)
		}
		e.Step("shared: red's second Workspace of root:team-red:app, a platform WorkspaceType and blue's Workspace inside root:team-red refused naming the field; deleted with deletionPolicy Delete, red's workspace app is untouched")
	})

	t.Run("HeavyXRsStallNothing", func(t *testing.T) {
		// Red fills four Workspaces to 1.35 MB each, within the XRD's schema: read whole, they
		// would make its Tenant's request 5.4 MB, over gRPC's 4 MiB, and the Tenant would
		// apply none of the platform's changes. Each asks through a TenantRequest that says,
		// without the Workspace, that it is too heavy: the Tenant names the four refused, and
		// the platform's change to red's workspace applies meanwhile.
		var groups []string
		for g := range 42 {
			groups = append(groups, fmt.Sprintf("%q", fmt.Sprintf("tenant:team-red:g%02d-", g)+strings.Repeat("x", 990)))
		}
		var crbs []string
		for r := range 32 {
			crbs = append(crbs, fmt.Sprintf(`{"clusterRole": "role-%02d", "groups": [%s]}`, r, strings.Join(groups, ", ")))
		}
		const heavy = 4
		for i := range heavy {
			m := fmt.Sprintf(`{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Workspace", "metadata": {"name": "heavy-%d", "namespace": %q},
"spec": {"rootShard": {"ref": {"name": "shared", "namespace": %q}}, "clusterRoleBindings": [%s]}}`, i, sharedRed, sharedPlatform, strings.Join(crbs, ", "))
			// create, not apply: kubectl apply would keep a second copy in an annotation.
			if _, err := e.Kubectl(ctx, []byte(m), red("create", "-f", "-")...); err != nil {
				t.Fatal(err)
			}
			defer deleteXR(context.Background(), t, e, "workspaces", sharedRed, fmt.Sprintf("heavy-%d", i))
		}
		start := time.Now()
		err := e.Eventually(ctx, timeout, fmt.Sprintf("Tenant %s names the %d heavy Workspaces refused", sharedRed, heavy), func(ctx context.Context) (bool, string, error) {
			x, err := getXR(ctx, e, "Tenant", sharedPlatform, sharedRed)
			if err != nil {
				return false, "", err
			}
			members, _ := x.Status["members"].([]any)
			refused := 0
			for _, m := range members {
				m, _ := m.(map[string]any)
				if name, _ := m["name"].(string); strings.HasPrefix(name, "heavy-") && m["granted"] != true && strings.Contains(fmt.Sprint(m["message"]), "spec: Forbidden: this Workspace weighs") {
					refused++
				}
			}
			return refused == heavy, fmt.Sprintf("%d refused, Synced %s", refused, x.conditions()["Synced"].Message), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		named := time.Since(start)
		if _, err := waitXR(ctx, e, "Workspace", sharedRed, "heavy-0", "InputsReady", "False"); err != nil {
			t.Error(err)
		}

		// The platform binds a group of its own in red's workspace: the Tenant applies it.
		var tn struct {
			Spec struct {
				ClusterRoleBindings []map[string]any `json:"clusterRoleBindings"`
			} `json:"spec"`
		}
		if err := e.GetJSON(ctx, &tn, "tenants.kcp.crossplane.io", "-n", sharedPlatform, sharedRed); err != nil {
			t.Fatal(err)
		}
		changed := append(tn.Spec.ClusterRoleBindings, map[string]any{"clusterRole": "view", "groups": []string{"tenant:team-red:auditors"}})
		patch := func(crbs []map[string]any) {
			b, _ := json.Marshal(map[string]any{"spec": map[string]any{"clusterRoleBindings": crbs}})
			if _, err := e.Kubectl(ctx, nil, "patch", "tenants.kcp.crossplane.io", "-n", sharedPlatform, sharedRed, "--type=merge", "-p", string(b)); err != nil {
				t.Fatal(err)
			}
		}
		patched := time.Now()
		patch(changed)
		defer patch(tn.Spec.ClusterRoleBindings)
		err = e.Eventually(ctx, timeout, "the Tenant's change applied to red's workspace", func(ctx context.Context) (bool, string, error) {
			var ws struct {
				Spec struct {
					ClusterRoleBindings []map[string]any `json:"clusterRoleBindings"`
				} `json:"spec"`
			}
			if err := e.GetJSON(ctx, &ws, "workspaces.kcp.crossplane.io", "-n", sharedPlatform, sharedRed); err != nil {
				return false, "", err
			}
			for _, c := range ws.Spec.ClusterRoleBindings {
				if c["clusterRole"] == "view" {
					return true, "", nil
				}
			}
			return false, fmt.Sprintf("%d bindings", len(ws.Spec.ClusterRoleBindings)), nil
		})
		if err != nil {
			t.Error(err)
		}
		e.Step("shared: red's %d Workspaces of 1.35 MB were named refused by its Tenant %.1fs after create; the platform's new binding reached red's workspace %.1fs after the patch", heavy, named.Seconds(), time.Since(patched).Seconds())
	})

	t.Run("AtBudgetRootShardReconciles", func(t *testing.T) {
		roles := make([]string, 41)
		for i := range roles {
			roles[i] = fmt.Sprintf("\"role-%02d\"", i)
		}
		for _, c := range []struct{ name, extra, metadata, cond, status, want string }{
			{"wide", "authorization: {clusterRoleBindings: {clusterRoles: [" + strings.Join(roles, ", ") + "]}}", "", "InputsReady", "False", "spec.limits.bindings"},
			{"heavy", "", fmt.Sprintf("annotations: {example.com/notes: %q}", strings.Repeat("n", 10<<10)), "InputsReady", "False", "metadata.annotations"},
		} {
			m := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata:
  name: %s
  namespace: %s
  %s
spec:
  target: {frontProxyRef: {name: shared-public, namespace: %s}}
  username: "tenant:team-red:%s"
  validity: 720h
  secretRef: {name: %s-kubeconfig}
  %s
`, c.name, sharedRed, c.metadata, sharedPlatform, c.name, c.name, c.extra)
			if _, err := e.Kubectl(ctx, []byte(m), red("apply", "-f", "-")...); err != nil {
				t.Fatal(err)
			}
			defer deleteXR(context.Background(), t, e, "kubeconfigs", sharedRed, c.name)
			err := e.Eventually(ctx, timeout, fmt.Sprintf("Kubeconfig %s/%s refused naming %s", sharedRed, c.name, c.want), func(ctx context.Context) (bool, string, error) {
				x, err := getXR(ctx, e, "Kubeconfig", sharedRed, c.name)
				if err != nil {
					return false, "", err
				}
				cond := x.conditions()[c.cond]
				return cond.Status == c.status && strings.Contains(cond.Message, c.want), c.cond + "=" + cond.Status + " " + cond.Reason + ": " + cond.Message, nil
			})
			if err != nil {
				t.Error(err)
			}
		}

		var before stack.Object
		if err := e.GetJSON(ctx, &before, "service", "-n", sharedPlatform, "shared-kcp"); err != nil {
			t.Fatal(err)
		}
		deleted := time.Now()
		if _, err := e.Kubectl(ctx, nil, "delete", "service", "-n", sharedPlatform, "shared-kcp", "--wait=true"); err != nil {
			t.Fatal(err)
		}
		err := e.Eventually(ctx, timeout, "RootShard "+sharedPlatform+"/shared composes its Service shared-kcp again", func(ctx context.Context) (bool, string, error) {
			var now stack.Object
			if err := e.GetJSON(ctx, &now, "service", "-n", sharedPlatform, "shared-kcp"); err != nil {
				return false, err.Error(), nil
			}
			return now.Metadata.UID != before.Metadata.UID, "uid " + now.Metadata.UID, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		recomposed := time.Since(deleted)
		if _, err := waitXR(ctx, e, "RootShard", sharedPlatform, "shared", "Synced", "True"); err != nil {
			t.Error(err)
		}
		if _, err := waitXR(ctx, e, "Kubeconfig", sharedBlue, "ci", "Ready", "True"); err != nil {
			t.Error(err)
		}
		e.Step("shared: red at its budget (a Kubeconfig of 41 roles refused naming spec.limits.bindings, one with a 10 KiB annotation naming metadata.annotations); the platform's RootShard composed its deleted Service again %.1fs later and blue's kubeconfig stayed Ready", recomposed.Seconds())
		for _, x := range []struct{ kind, name string }{{"kubeconfigs", "alice"}, {"workspaces", "app"}} {
			var o map[string]json.RawMessage
			if err := e.GetJSON(ctx, &o, x.kind+".kcp.crossplane.io", "-n", sharedRed, x.name); err != nil {
				t.Fatal(err)
			}
			// What a team's XR weighs as stored, against sharing.TeamXRBytes (6 KiB of metadata
			// and spec, spec.crossplane included here) and TeamStatusBytes (4 KiB).
			e.Step("shared: %s %s/%s weighs %d bytes in metadata and spec, %d in status", x.kind, sharedRed, x.name, len(o["metadata"])+len(o["spec"]), len(o["status"]))
		}
	})
}
