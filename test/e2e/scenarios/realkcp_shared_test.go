package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// testRealKCPShared checks story 1 of docs/design/many-teams-many-clusters.md against real
// kcp (testRealKCP's processes): Basic's installation is shared with two teams' namespaces by
// a Tenant each; each team's Kubeconfig, issued through its Tenant, works in the team's
// workspace (the Tenant bound cluster-admin to the team's group there) and is refused in the other
// team's, through the front-proxy, although one team's name (rk-red) is a prefix of the
// other's (rk-redder): identities are tenant:<namespace>:..., closed by a colon. The platform
// first shares the installation as docs/shared-kcp.md says: home workspaces off on the
// RootShard, and OIDC at the FrontProxy with prefixes. No team's user then gets a home
// workspace (~), and an ID token naming a team's group is not that group. Everything it makes
// is deleted again, and the RootShard and FrontProxy are as the example has them.
func testRealKCPShared(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, admin kubectlFunc) {
	const ns = basicNamespace
	teams := []string{"rk-red", "rk-redder"}
	// Kubectl runs in the first front-proxy's pod, which outlives its process.
	proxy := pods["frontproxy-front-proxy"]
	adminKubeconfig := secretKey(ctx, t, e, ns, kubeconfigName, "kubeconfig")
	adminBase := kubeconfigBase(t, adminKubeconfig)
	adminUser := realKCPHomeWorkspacesOff(ctx, t, e, c, pods, admin, adminBase)
	realKCPSharedOIDC(ctx, t, e, c, pods, admin)
	for _, team := range teams {
		m := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: kcp-team-xrs, namespace: %[1]s}
spec: {hard: {count/kubeconfigs.kcp.crossplane.io: "5", count/workspaces.kcp.crossplane.io: "5"}}
---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Tenant
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  frontProxy: {ref: {name: frontproxy}}
  clusterRoleBindings:
  - clusterRole: cluster-admin
    groups: ["tenant:%[1]s:admins"]
---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: admin, namespace: %[1]s}
spec:
  target: {frontProxyRef: {name: frontproxy, namespace: %[2]s}}
  username: "tenant:%[1]s:admin"
  groups: ["tenant:%[1]s:admins"]
  validity: 720h
  secretRef: {name: admin-kubeconfig}
`, team, ns)
		if err := e.Apply(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			deleteXR(context.Background(), t, e, "kubeconfigs", team, "admin")
			deleteXR(context.Background(), t, e, "tenants", ns, team)
		})
	}
	start := time.Now()
	access := map[string]kubectlFunc{}
	base := map[string]string{}
	for _, team := range teams {
		// The RootShard gives credentials for the team's workspace once the Tenant's
		// Workspace asks for them; kcp makes the workspace and holds the Tenant's binding.
		if _, err := waitXRNudging(ctx, t, e, "Workspace", ns, team, "Ready", "True", "rootshard/root", "workspace/"+team); err != nil {
			t.Fatal(err)
		}
		if _, err := waitXRNudging(ctx, t, e, "Kubeconfig", team, "admin", "Ready", "True", "kubeconfig/admin"); err != nil {
			t.Fatal(err)
		}
		kubeconfig := secretKey(ctx, t, e, team, "admin-kubeconfig", "kubeconfig")
		k, err := parseKubeconfig(kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		server, _, _, err := k.current()
		if err != nil {
			t.Fatal(err)
		}
		base[team], _, _ = strings.Cut(server, "/clusters/")
		access[team] = podKubectl(t, c, proxy, team+"-admin", kubeconfig)
	}
	e.Step("RealKCP: Tenants rk-red and rk-redder made workspaces root:rk-red and root:rk-redder in kcp and issued each team's kubeconfig, %.1fs after apply", time.Since(start).Seconds())

	for _, c := range []struct{ as, in string }{
		{"rk-red", "rk-red"}, {"rk-red", "rk-redder"}, {"rk-redder", "rk-redder"}, {"rk-redder", "rk-red"},
	} {
		want := c.as == c.in
		server := "--server=" + base[c.as] + "/clusters/root:" + c.in
		err := e.Eventually(ctx, timeout, fmt.Sprintf("%s's kubeconfig %s in root:%s", c.as, map[bool]string{true: "allowed", false: "refused"}[want], c.in), func(ctx context.Context) (bool, string, error) {
			out, err := access[c.as](ctx, "", server, "get", "configmaps", "-n", "default")
			// kcp answers a workspace the user may not enter with 403 ("Forbidden: unknown"
			// during discovery, "forbidden: User ... cannot list" after it).
			if err != nil && !strings.Contains(strings.ToLower(out), "forbidden") {
				return false, out, nil // not an authorization answer (yet)
			}
			return (err == nil) == want, strings.TrimSpace(out), nil
		})
		if err != nil {
			t.Error(err)
		}
	}
	e.Step("RealKCP: each team's kubeconfig, issued in %s through its Tenant, reads root:<team> as tenant:<team>:admin and kcp refuses it the other team's workspace (rk-red is a prefix of rk-redder)", ns)

	checkNoHomeWorkspaces(ctx, t, e, admin, adminBase, adminUser, access, base, teams)
	checkOIDCTeamGroup(ctx, t, e, c, proxy, adminKubeconfig, base, "rk-red")
}
