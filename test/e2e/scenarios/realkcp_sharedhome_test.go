package scenarios

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// homePath is what `kubectl ws ~` asks kcp for: the user's home workspace.
const homePath = "/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~"

// homeClusterName is the logical cluster kcp v0.32.3 gives a user's home workspace
// (pkg/index/rewriters.HomeClusterName): the first 8 bytes of the SHA-224 of the user name
// in base 36, a leading zero byte kept as "0". Not under root: a home workspace has no parent.
func homeClusterName(user string) string {
	sum := sha256.Sum224([]byte(user))
	b := sum[:8]
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	if zeros == len(b) {
		return strings.Repeat("0", zeros)
	}
	return strings.Repeat("0", zeros) + new(big.Int).SetBytes(b).Text(36)
}

// rawGET is `kubectl get --raw path` at base (scheme, host and port): kubectl would put the
// path of the kubeconfig's server, a workspace's, before path.
func rawGET(ctx context.Context, k kubectlFunc, base, path string) (string, error) {
	return k(ctx, "", "--server="+base, "get", "--raw", path)
}

// kubeconfigBase is the scheme, host and port of a kubeconfig's server.
func kubeconfigBase(t *testing.T, kubeconfig []byte) string {
	t.Helper()
	k, err := parseKubeconfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	server, _, _, err := k.current()
	if err != nil {
		t.Fatal(err)
	}
	base, _, _ := strings.Cut(server, "/clusters/")
	return base
}

// homeLogicalCluster is the path of the LogicalCluster of user's home workspace.
func homeLogicalCluster(user string) string {
	return "/clusters/" + homeClusterName(user) + "/apis/core.kcp.io/v1alpha1/logicalclusters/cluster"
}

// rollRealKCP runs a new pod of Deployment name from its template as it is now (the pod
// before it ran the template before a patch) and moves the Deployment's Service names to it,
// as a rollout would; it waits until args holds every one of want first.
func rollRealKCP(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, name string, replica int, want ...string) {
	t.Helper()
	if err := e.Eventually(ctx, timeout, "Deployment "+name+" args hold "+strings.Join(want, " "), func(ctx context.Context) (bool, string, error) {
		var d deployment
		if err := e.GetJSON(ctx, &d, "deployment", "-n", basicNamespace, name); err != nil {
			return false, err.Error(), nil
		}
		if len(d.Spec.Template.Spec.Containers) == 0 {
			return false, "no container", nil
		}
		args := d.Spec.Template.Spec.Containers[0].Args
		for _, w := range want {
			if !slices.Contains(args, w) {
				return false, strings.Join(args, " "), nil
			}
		}
		return true, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	p, err := c.RunDeploymentReplica(ctx, basicNamespace, name, replica)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Failover(pods[name], p); err != nil {
		t.Fatal(err)
	}
	pods[name] = p
}

// revertXR undoes a JSON patch's add of path on an XR at the end of the test and waits
// until Deployment name's args no longer hold gone, so that the scenarios after Basic see
// the example as rendered.
func revertXR(t *testing.T, e *env, kind, name, path, deploymentName, gone string) {
	t.Cleanup(func() {
		ctx := context.Background()
		if out, err := e.Kubectl(ctx, nil, "patch", kind+".kcp.crossplane.io", "-n", basicNamespace, name, "--type=json", "-p", `[{"op":"remove","path":"`+path+`"}]`); err != nil {
			t.Errorf("revert %s %s: %v\n%s", kind, path, err, out)
			return
		}
		if err := e.Eventually(ctx, timeout, "Deployment "+deploymentName+" without "+gone, func(ctx context.Context) (bool, string, error) {
			var d deployment
			if err := e.GetJSON(ctx, &d, "deployment", "-n", basicNamespace, deploymentName); err != nil || len(d.Spec.Template.Spec.Containers) == 0 {
				return false, fmt.Sprint(err), nil
			}
			args := d.Spec.Template.Spec.Containers[0].Args
			return !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, gone) }), strings.Join(args, " "), nil
		}); err != nil {
			t.Error(err)
		}
	})
}

// realKCPHomeWorkspacesOff prepares Basic's installation for Tenants, as a platform shares
// it: with kcp's default (home workspaces on for system:authenticated) it first shows what a
// home workspace is, the admin's, at the logical cluster homeClusterName names, so that the
// later lookup for a team's user is known to find one that exists. Then it turns home
// workspaces off on the RootShard (a Tenant is refused otherwise) and rolls the real root
// shard onto the new args. It returns the admin's user name.
func realKCPHomeWorkspacesOff(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, admin kubectlFunc, adminBase string) string {
	t.Helper()
	user, err := admin(ctx, "", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if err != nil {
		t.Fatalf("whoami: %v\n%s", err, user)
	}
	start := time.Now()
	var home struct {
		Spec   struct{ Cluster, URL string }
		Status struct{ Phase string }
	}
	if err := e.Eventually(ctx, 2*time.Minute, "the admin's home workspace (~) with kcp's default", func(ctx context.Context) (bool, string, error) {
		out, err := rawGET(ctx, admin, adminBase, homePath)
		if err != nil {
			return false, out, nil
		}
		if err := json.Unmarshal([]byte(out), &home); err != nil {
			return false, out, nil
		}
		return home.Status.Phase == "Ready", out, nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := homeClusterName(user); home.Spec.Cluster != want {
		t.Fatalf("kcp made %s's home workspace at logical cluster %s, homeClusterName says %s", user, home.Spec.Cluster, want)
	}
	// The front-proxy routes a logical cluster once its index has seen it.
	if err := e.Eventually(ctx, time.Minute, "the LogicalCluster of "+user+"'s home workspace through the front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := rawGET(ctx, admin, adminBase, homeLogicalCluster(user))
		return err == nil, out, nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP: with kcp's default, %s's ~ was a Ready home workspace %.1fs after the first GET, logical cluster %s (no parent, not under root:users), URL %s", user, time.Since(start).Seconds(), home.Spec.Cluster, home.Spec.URL)

	if out, err := e.Kubectl(ctx, nil, "patch", "rootshards.kcp.crossplane.io", "-n", basicNamespace, "root", "--type=merge", "-p", `{"spec":{"homeWorkspaces":{"enabled":false}}}`); err != nil {
		t.Fatalf("turn home workspaces off: %v\n%s", err, out)
	}
	revertXR(t, e, "rootshards", "root", "/spec/homeWorkspaces", "root-kcp", "--enable-home-workspaces")
	start = time.Now()
	rollRealKCP(ctx, t, e, c, pods, "root-kcp", 1, "--enable-home-workspaces=false")
	if err := e.Eventually(ctx, 3*time.Minute, "kcp serves root again through the front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspaces")
		return err == nil, out, pods["root-kcp"].Exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP: RootShard root with spec.homeWorkspaces.enabled: false; the real root shard runs with --enable-home-workspaces=false, serving %.1fs after the patch", time.Since(start).Seconds())
	return user
}

// checkNoHomeWorkspaces asks for ~ as each team's user, through the front-proxy with the
// team's kubeconfig, as `kubectl ws ~` does: kcp must make no home workspace for it. The
// admin then finds no LogicalCluster where kcp would have made it (where it found its own),
// and no workspace users in root (older kcp's home root).
func checkNoHomeWorkspaces(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, adminBase, adminUser string, access map[string]kubectlFunc, base map[string]string, teams []string) {
	t.Helper()
	for _, team := range teams {
		user := "tenant:" + team + ":admin"
		start := time.Now()
		out, err := rawGET(ctx, access[team], base[team], homePath)
		took := time.Since(start)
		answer := strings.TrimSpace(out)
		if err == nil || strings.Contains(out, `"kind":"Workspace"`) {
			t.Errorf("%s asked for ~ and kcp answered a workspace:\n%s", user, answer)
			continue
		}
		// Home workspaces off, ~ is an ordinary name: a Workspace called ~ in root, which
		// does not exist (every authenticated user may read root's workspaces in kcp).
		if !strings.Contains(out, "NotFound") && !strings.Contains(strings.ToLower(out), "not found") && !strings.Contains(strings.ToLower(out), "forbidden") {
			t.Errorf("%s asked for ~: want NotFound or Forbidden from kcp, got %v:\n%s", user, err, answer)
		}
		e.Step("RealKCP: %s GET %s through the front-proxy (%.2fs): %s", user, homePath, took.Seconds(), answer)
	}
	// Where kcp would have made each one, for longer than the front-proxy took to route the
	// admin's (above).
	for _, team := range teams {
		user := "tenant:" + team + ":admin"
		var lc string
		for range 6 {
			out, err := rawGET(ctx, admin, adminBase, homeLogicalCluster(user))
			lc = strings.TrimSpace(out)
			// The front-proxy answers a logical cluster its index does not know with 403 for
			// User "" (kcp's pkg/proxy/lookup); a shard would name the admin.
			if err == nil || !strings.Contains(out, `User ""`) {
				t.Errorf("the front-proxy knows logical cluster %s, where kcp makes %s's home workspace: %v\n%s", homeClusterName(user), user, err, lc)
				break
			}
			time.Sleep(2 * time.Second)
		}
		e.Step("RealKCP: no home workspace of %s: for 12s the admin's GET of logical cluster %s (where %s's was found) answered %s", user, homeClusterName(user), adminUser, lc)
	}
	// A home workspace made before home workspaces were turned off stays, as does its
	// route: the lookups above would have found the teams' ones.
	if out, err := rawGET(ctx, admin, adminBase, homeLogicalCluster(adminUser)); err != nil {
		t.Errorf("%s's home workspace, made before home workspaces were turned off: %v\n%s", adminUser, err, out)
	} else {
		e.Step("RealKCP: %s's home workspace, made with kcp's default, is still there with home workspaces off (logical cluster %s)", adminUser, homeClusterName(adminUser))
	}
	out, err := admin(ctx, "", "get", "workspaces", "-o", "name")
	if err != nil {
		t.Fatalf("list root's workspaces: %v\n%s", err, out)
	}
	if slices.Contains(strings.Fields(out), "workspace.tenancy.kcp.io/users") {
		t.Errorf("root holds workspace users:\n%s", out)
	}
	e.Step("RealKCP: root's workspaces after the teams asked for ~: %s (no users)", strings.Join(strings.Fields(out), " "))
}

// sharedOIDC is the OIDC issuer the shared FrontProxy trusts in testRealKCPShared: the
// authentication example's stand-in at a name of its own.
var sharedOIDC = &authStandIn{issuer: "https://login.shared.example.com"}

// realKCPSharedOIDC has Basic's FrontProxy, the one the Tenants name, take users from the
// stand-in OIDC issuer with prefixes (usernamePrefix and groupsPrefix oidc:, without which a
// Tenant is refused), and rolls the real front-proxy onto the new args.
func realKCPSharedOIDC(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, admin kubectlFunc) {
	t.Helper()
	sharedOIDC.serve(ctx, t, e, c)
	secret := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: shared-login-ca, namespace: %s}\ndata: {ca.crt: %s}\n", basicNamespace, base64.StdEncoding.EncodeToString(sharedOIDC.caPEM))
	if err := e.Apply(ctx, []byte(secret)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.Kubectl(context.Background(), nil, "delete", "secret", "-n", basicNamespace, "shared-login-ca", "--ignore-not-found")
	})
	patch := `{"spec":{"auth":{"serviceAccount":{"enabled":true},"oidc":{"issuerURL":"` + sharedOIDC.issuer + `","clientID":"` + authClientID +
		`","usernameClaim":"email","usernamePrefix":"oidc:","groupsClaim":"groups","groupsPrefix":"oidc:","caFileRef":{"name":"shared-login-ca"}}}}}`
	if out, err := e.Kubectl(ctx, nil, "patch", "frontproxies.kcp.crossplane.io", "-n", basicNamespace, "frontproxy", "--type=merge", "-p", patch); err != nil {
		t.Fatalf("OIDC on FrontProxy frontproxy: %v\n%s", err, out)
	}
	revertXR(t, e, "frontproxies", "frontproxy", "/spec/auth", "frontproxy-front-proxy", "--oidc-")
	start := time.Now()
	if _, err := waitXRNudging(ctx, t, e, "FrontProxy", basicNamespace, "frontproxy", "Ready", "True", "frontproxy/frontproxy"); err != nil {
		t.Fatal(err)
	}
	rollRealKCP(ctx, t, e, c, pods, "frontproxy-front-proxy", 1, "--oidc-issuer-url="+sharedOIDC.issuer, "--oidc-groups-prefix=oidc:")
	if err := e.Eventually(ctx, 3*time.Minute, "kcp serves root through the new front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspaces")
		return err == nil, out, pods["frontproxy-front-proxy"].Exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP: FrontProxy frontproxy takes OIDC users of %s, prefixed oidc: (users and groups); the real front-proxy runs with them %.1fs after the patch", sharedOIDC.issuer, time.Since(start).Seconds())
}

// checkOIDCTeamGroup signs in through every front-proxy of the shared installation with an
// ID token whose groups claim names a team's admin group, tenant:<team>:admins, to which the
// Tenant bound cluster-admin in root:<team>: kcp must see it as oidc:tenant:<team>:admins and
// refuse it the team's workspace. The root shard's own proxy (root-proxy), which takes no
// OIDC, must not authenticate it at all.
func checkOIDCTeamGroup(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, proxy *realkcp.Pod, adminKubeconfig []byte, base map[string]string, team string) {
	t.Helper()
	token := sharedOIDC.idToken(t, "mallory@example.com", "tenant:"+team+":admins")
	as := podKubectl(t, c, proxy, "oidc-mallory", asUser(t, adminKubeconfig, "", token))
	var who string
	// The OIDC authenticator fetches the issuer's keys in the background after start.
	if err := e.Eventually(ctx, 2*time.Minute, "the ID token authenticated at the front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := as(ctx, "", "--server="+base[team]+"/clusters/root", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
		who = strings.TrimSpace(out)
		return err == nil, out, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(who, "oidc:tenant:"+team+":admins") || strings.Contains(strings.ReplaceAll(who, "oidc:tenant:", ""), "tenant:"+team+":admins") {
		t.Errorf("kcp saw the ID token as %q: want the group oidc:tenant:%s:admins and not tenant:%s:admins", who, team, team)
	}
	out, err := as(ctx, "", "--server="+base[team]+"/clusters/root:"+team, "get", "configmaps", "-n", "default")
	if err == nil || !strings.Contains(strings.ToLower(out), "forbidden") {
		t.Errorf("an ID token with groups [tenant:%s:admins] in root:%s through the front-proxy: want Forbidden, got %v:\n%s", team, team, err, out)
	}
	e.Step("RealKCP: an ID token with groups [tenant:%s:admins] through front-proxy frontproxy is %s; in root:%s kcp answers: %s", team, who, team, strings.TrimSpace(out))

	rootProxy := "https://" + strings.Join([]string{"root-proxy", basicNamespace, "svc", "cluster", "local"}, ".") + ":6443"
	// The admin kubeconfig's CA, the root CA, trusts root-proxy's serving certificate too.
	out, err = as(ctx, "", "--server="+rootProxy+"/clusters/root:"+team, "get", "configmaps", "-n", "default")
	// kubectl says 401 as "the server has asked for the client to provide credentials".
	if err == nil || (!strings.Contains(out, "provide credentials") && !strings.Contains(out, "Unauthorized") && !strings.Contains(strings.ToLower(out), "forbidden")) {
		t.Errorf("the same ID token in root:%s through root-proxy: want Unauthorized or Forbidden, got %v:\n%s", team, err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	e.Step("RealKCP: the same ID token in root:%s through root-proxy (the RootShard's proxy, no OIDC): %s", team, lines[len(lines)-1])
}
