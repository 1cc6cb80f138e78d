package scenarios

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// examples/shared-kcp: one installation in kcp-platform shared with teams red and blue.
const (
	sharedPlatform = "kcp-platform"
	sharedRed      = "team-red"
	sharedBlue     = "team-blue"
	sharedRedUser  = "alice"
	sharedBlueUser = "carol"
)

// testSharedKCP plays story 1 of docs/design/many-teams-many-clusters.md with
// examples/shared-kcp: the platform applies the installation and a Tenant per team in
// kcp-platform; alice and carol, who hold only Kubernetes' edit role in team-red and
// team-blue, apply their teams' Kubeconfigs and Workspace there as themselves (kubectl --as).
// Then, as those users:
//   - each reads her team's kubeconfig, whose client certificate (issued in kcp-platform from
//     the front-proxy client CA) names her team's identity, and nothing else of it;
//   - neither can read a Secret of kcp-platform or of the other team, nor create a Tenant,
//     and no private key of a CA exists in either team's namespace;
//   - a Kubeconfig claiming another identity (kcp's admin group, the other team's group) is
//     refused naming the field, and nothing is issued for it;
//   - a team that turns its working Kubeconfig invalid keeps what it had, unchanged.
func testSharedKCP(t *testing.T, e *env) {
	ctx := t.Context()
	dir := filepath.Join(e.root, "examples", "shared-kcp")
	platform := []string{"namespaces.yaml", "quota.yaml", "clusterissuer.yaml", "policy.yaml", "installation.yaml", "tenants.yaml"}
	for _, f := range platform {
		if _, err := e.Kubectl(ctx, nil, "apply", "-f", filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Kubectl(ctx, nil, "apply", "-f", filepath.Join(e.root, "install", "tenant-clusterrole.yaml")); err != nil {
		t.Fatal(err)
	}
	red := teamUser(ctx, t, e, sharedRed, sharedRedUser)
	blue := teamUser(ctx, t, e, sharedBlue, sharedBlueUser)
	// The quota admits nothing until the quota controller has computed its usage ("status
	// unknown for quota"): wait for it, as a platform would before handing the namespace over.
	for _, ns := range []string{sharedRed, sharedBlue} {
		err := e.Eventually(ctx, timeout, "ResourceQuota "+ns+"/kcp-team-xrs computed", func(ctx context.Context) (bool, string, error) {
			out, err := e.Kubectl(ctx, nil, "get", "resourcequota", "-n", ns, "kcp-team-xrs", "-o", "jsonpath={.status.hard}")
			if err != nil {
				return false, "", err
			}
			return strings.TrimSpace(string(out)) != "", "status.hard " + string(out), nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	for _, c := range []struct {
		as   func(...string) []string
		file string
	}{{red, "team-red.yaml"}, {blue, "team-blue.yaml"}} {
		if _, err := e.Kubectl(ctx, nil, c.as("apply", "-f", filepath.Join(dir, c.file))...); err != nil {
			t.Fatalf("a team with only edit in its namespace cannot apply %s: %v", c.file, err)
		}
	}
	for _, k := range []struct{ ns, name string }{{sharedRed, "alice"}, {sharedBlue, "ci"}} {
		if _, err := waitXR(ctx, e, "Kubeconfig", k.ns, k.name, "Ready", "True"); err != nil {
			t.Fatal(err)
		}
	}
	e.Step("shared: the teams' kubeconfigs written in team-red and team-blue %.1fs after they applied their Kubeconfigs (the installation coming up meanwhile)", time.Since(start).Seconds())

	t.Run("KubeconfigIsTheTeams", func(t *testing.T) {
		out, err := e.Kubectl(ctx, nil, red("get", "secret", "alice-kubeconfig", "-n", sharedRed, "-o", "jsonpath={.data.kubeconfig}")...)
		if err != nil || len(out) == 0 {
			t.Fatalf("%s cannot read her team's kubeconfig Secret: %v", sharedRedUser, err)
		}
		server, _, cert := kubeconfigSecret(ctx, t, e, sharedRed, "alice-kubeconfig")
		leafCert, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		orgs := slices.Sorted(slices.Values(leafCert.Subject.Organization))
		if leafCert.Subject.CommonName != "tenant:team-red:alice" || !slices.Equal(orgs, []string{"kubeconfig:team-red.alice", "tenant:team-red:admins"}) || leafCert.IsCA {
			t.Errorf("alice's certificate: CN %q, O %v, CA %v; want tenant:team-red:alice, [kubeconfig:team-red.alice tenant:team-red:admins], not a CA", leafCert.Subject.CommonName, orgs, leafCert.IsCA)
		}
		if want := "https://kcp.example.com:6443/clusters/root:team-red"; server != want {
			t.Errorf("alice's kubeconfig opens %s, want %s: the team's workspace", server, want)
		}
		// Issued in the platform's namespace, by the installation's client CA.
		ca, err := e.SecretData(ctx, sharedPlatform, "shared-client-ca")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := leafCert.Verify(x509.VerifyOptions{Roots: pool(ca["tls.crt"]), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("alice's certificate does not chain to the client CA of %s: %v", sharedPlatform, err)
		}
		e.Step("shared: alice's kubeconfig holds user tenant:team-red:alice of groups %v, issued in %s by its client CA, opening %s", orgs, sharedPlatform, server)
	})

	t.Run("TeamRights", func(t *testing.T) {
		for _, c := range []struct {
			as                                    func(...string) []string
			user, verb, resource, namespace, want string
		}{
			{red, sharedRedUser, "get", "secrets", sharedRed, "yes"},
			{red, sharedRedUser, "create", "kubeconfigs.kcp.crossplane.io", sharedRed, "yes"},
			{red, sharedRedUser, "create", "workspaces.kcp.crossplane.io", sharedRed, "yes"},
			{red, sharedRedUser, "get", "secrets", sharedPlatform, "no"},
			{red, sharedRedUser, "get", "secrets", sharedBlue, "no"},
			{red, sharedRedUser, "create", "tenants.kcp.crossplane.io", sharedRed, "no"},
			{red, sharedRedUser, "create", "kubeconfigs.kcp.crossplane.io", sharedPlatform, "no"},
			{blue, sharedBlueUser, "get", "secrets", sharedRed, "no"},
		} {
			out, _ := e.Kubectl(ctx, nil, c.as("auth", "can-i", c.verb, c.resource, "-n", c.namespace)...)
			if got := strings.TrimSpace(string(out)); got != c.want {
				t.Errorf("kubectl auth can-i %s %s -n %s as %s: %q, want %q", c.verb, c.resource, c.namespace, c.user, got, c.want)
			}
		}
		// And the reads themselves.
		for _, c := range []struct {
			as        func(...string) []string
			ns, name  string
			forbidden bool
		}{
			{red, sharedRed, "alice-kubeconfig", false},
			{red, sharedBlue, "ci-kubeconfig", true},
			{red, sharedPlatform, "team-red.alice-kubeconfig", true},
			{red, sharedPlatform, "shared-client-ca", true},
			{blue, sharedRed, "alice-kubeconfig", true},
		} {
			_, err := e.Kubectl(ctx, nil, c.as("get", "secret", c.name, "-n", c.ns)...)
			if got := err != nil && strings.Contains(err.Error(), "Forbidden"); got != c.forbidden {
				t.Errorf("reading Secret %s/%s as a team member: forbidden %v (%v), want %v", c.ns, c.name, got, err, c.forbidden)
			}
		}
		e.Step("shared: alice reads her kubeconfig and is refused the platform's Secrets, team-blue's kubeconfig and Tenants; carol is refused team-red's")
	})

	t.Run("NoCAKeyInTeamNamespaces", func(t *testing.T) {
		for _, ns := range []string{sharedRed, sharedBlue} {
			n, err := caKeys(ctx, e, ns)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				t.Errorf("namespace %s holds %d private keys of CA certificates; a team's namespace must hold none", ns, n)
			}
		}
	})

	t.Run("ForeignIdentityRefused", func(t *testing.T) {
		for _, c := range []struct{ name, user, groups, field string }{
			{"admin", "tenant:" + sharedBlue + ":ci", `["system:kcp:admin"]`, "spec.groups[0]"},
			{"red", "tenant:" + sharedRed + ":alice", `["tenant:team-blue:admins"]`, "spec.username"},
		} {
			m := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: %s, namespace: %s}
spec:
  target: {frontProxyRef: {name: shared-public, namespace: %s}}
  username: %s
  groups: %s
  validity: 720h
  secretRef: {name: %s-kubeconfig}
`, c.name, sharedBlue, sharedPlatform, c.user, c.groups, c.name)
			if _, err := e.Kubectl(ctx, []byte(m), blue("apply", "-f", "-")...); err != nil {
				t.Fatal(err)
			}
			x, err := waitXR(ctx, e, "Kubeconfig", sharedBlue, c.name, "Synced", "False")
			if err != nil {
				t.Fatal(err)
			}
			if msg := x.conditions()["Synced"].Message; !strings.Contains(msg, c.field) {
				t.Errorf("Kubeconfig %s/%s refused with %q, want it to name %s", sharedBlue, c.name, msg, c.field)
			}
		}
		time.Sleep(10 * time.Second) // The Tenant reconciles meanwhile.
		for _, name := range []string{"team-blue.admin", "team-blue.red"} {
			if _, err := getXR(ctx, e, "Kubeconfig", sharedPlatform, name); err == nil {
				t.Errorf("Kubeconfig %s/%s exists: the Tenant issued something for a refused identity", sharedPlatform, name)
			}
		}
		ten, err := getXR(ctx, e, "Tenant", sharedPlatform, sharedBlue)
		if err != nil {
			t.Fatal(err)
		}
		e.Step("shared: carol's Kubeconfigs claiming system:kcp:admin and team-red's user refused naming the field; Tenant %s: %s", sharedBlue, ten.conditions()["MembersReady"].Message)
		if _, err := e.Kubectl(ctx, nil, blue("delete", "kubeconfigs.kcp.crossplane.io", "-n", sharedBlue, "admin", "red")...); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("InvalidEditKeepsTheKubeconfig", func(t *testing.T) {
		before, err := composed(ctx, e, sharedRed, "secrets")
		if err != nil {
			t.Fatal(err)
		}
		issuedBefore, err := composed(ctx, e, sharedPlatform, "kubeconfigs.kcp.crossplane.io")
		if err != nil {
			t.Fatal(err)
		}
		dataBefore, err := e.SecretData(ctx, sharedRed, "alice-kubeconfig")
		if err != nil {
			t.Fatal(err)
		}
		patch := `{"spec":{"username":"admin"}}`
		if _, err := e.Kubectl(ctx, nil, red("patch", "kubeconfigs.kcp.crossplane.io", "alice", "-n", sharedRed, "--type=merge", "-p", patch)...); err != nil {
			t.Fatal(err)
		}
		if _, err := waitXR(ctx, e, "Kubeconfig", sharedRed, "alice", "Synced", "False"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second)
		after, err := composed(ctx, e, sharedRed, "secrets")
		if err != nil {
			t.Fatal(err)
		}
		issuedAfter, err := composed(ctx, e, sharedPlatform, "kubeconfigs.kcp.crossplane.io")
		if err != nil {
			t.Fatal(err)
		}
		checkKept(t, before, after, kept{during: "an invalid edit of a team's Kubeconfig", unchanged: true})
		checkKept(t, issuedBefore, issuedAfter, kept{during: "an invalid edit of a team's Kubeconfig", unchanged: true})
		if dataAfter, err := e.SecretData(ctx, sharedRed, "alice-kubeconfig"); err != nil || string(dataAfter["kubeconfig"]) != string(dataBefore["kubeconfig"]) {
			t.Errorf("alice's kubeconfig changed after an invalid edit (%v): it must be kept as it was", err)
		}
		if _, err := e.Kubectl(ctx, nil, red("patch", "kubeconfigs.kcp.crossplane.io", "alice", "-n", sharedRed, "--type=merge", "-p", `{"spec":{"username":"tenant:team-red:alice"}}`)...); err != nil {
			t.Fatal(err)
		}
		if _, err := waitXR(ctx, e, "Kubeconfig", sharedRed, "alice", "Ready", "True"); err != nil {
			t.Fatal(err)
		}
		e.Step("shared: alice's Kubeconfig edited to user admin was refused; her Secret and the Kubeconfig issued for it in %s kept (%d objects with UIDs and generations)", sharedPlatform, len(before)+len(issuedBefore))
	})

	t.Run("WorkspaceComposedForTheTeam", func(t *testing.T) {
		// No kcp runs here: the Workspace acting for the team is composed, with its Objects
		// on the installation's ProviderConfig, and the team's Workspace reports it.
		x, err := waitXR(ctx, e, "Workspace", sharedRed, "app", "InputsReady", "True")
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := x.Status["path"].(string); p != "root:team-red:app" {
			t.Errorf("Workspace %s/app reports path %q, want root:team-red:app", sharedRed, p)
		}
		var objs struct {
			Items []struct {
				Metadata struct{ Name string }
				Spec     struct {
					ProviderConfigRef struct{ Name string } `json:"providerConfigRef"`
				}
			}
		}
		if err := e.GetJSON(ctx, &objs, "objects.kubernetes.m.crossplane.io", "-n", sharedPlatform, "-l", "kcp.crossplane.io/workspace-xr=team-red.app"); err != nil {
			t.Fatal(err)
		}
		var pcs []string
		for _, o := range objs.Items {
			pcs = append(pcs, o.Spec.ProviderConfigRef.Name)
		}
		slices.Sort(pcs)
		if want := []string{"shared-kcp-operator.root.team-red", "shared-kcp-operator.root.team-red.app"}; !slices.Equal(pcs, want) {
			t.Errorf("the Objects of Workspace %s/team-red.app use ProviderConfigs %v, want %v", sharedPlatform, pcs, want)
		}
		left, err := composed(ctx, e, sharedRed, "objects.kubernetes.m.crossplane.io")
		if err != nil {
			t.Fatal(err)
		}
		if len(left) > 0 {
			t.Errorf("namespace %s holds provider-kubernetes Objects %v: a team's namespace must hold no credential of kcp", sharedRed, keys(left))
		}
	})

	testSharedHostile(ctx, t, e, red, blue)

	// Nothing of this scenario keeps reconciling against a kcp that does not run.
	for _, args := range [][]string{
		red("delete", "workspaces.kcp.crossplane.io", "app", "-n", sharedRed, "--wait=false"),
		{"delete", "tenants.kcp.crossplane.io", "--all", "-n", sharedPlatform, "--wait=false"},
	} {
		if _, err := e.Kubectl(ctx, nil, args...); err != nil {
			t.Error(err)
		}
	}
}

// teamUser gives user Kubernetes' edit role in namespace ns, and returns a function that
// prefixes kubectl arguments with --as=user once the aggregated rules let user create
// Kubeconfigs there.
func teamUser(ctx context.Context, t *testing.T, e *env, ns, user string) func(args ...string) []string {
	t.Helper()
	if _, err := e.Kubectl(ctx, nil, "create", "rolebinding", user+"-edit", "-n", ns, "--clusterrole=edit", "--user="+user); err != nil {
		t.Fatal(err)
	}
	as := func(args ...string) []string { return append([]string{"--as=" + user}, args...) }
	err := e.Eventually(ctx, timeout, user+" may create kubeconfigs in "+ns, func(ctx context.Context) (bool, string, error) {
		out, _ := e.Kubectl(ctx, nil, as("auth", "can-i", "create", "kubeconfigs.kcp.crossplane.io", "-n", ns)...)
		got := strings.TrimSpace(string(out))
		return got == "yes", "kubectl auth can-i says " + got, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// caKeys counts the private keys in Secrets of namespace ns that belong to a CA
// certificate: a Secret whose tls.crt (or ca.crt) holds a CA certificate and that also holds
// a key, or a kubeconfig whose embedded client certificate is a CA.
func caKeys(ctx context.Context, e *env, ns string) (int, error) {
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
			Data     map[string][]byte
		}
	}
	if err := e.GetJSON(ctx, &list, "secrets", "-n", ns); err != nil {
		return 0, err
	}
	n := 0
	for _, s := range list.Items {
		hasKey := false
		for k, v := range s.Data {
			if strings.HasSuffix(k, ".key") || strings.Contains(string(v), "PRIVATE KEY") {
				hasKey = true
			}
		}
		if !hasKey {
			continue
		}
		for _, k := range []string{"tls.crt", "ca.crt"} {
			if isCA(s.Data[k]) {
				n++
			}
		}
		if kc, ok := s.Data["kubeconfig"]; ok {
			f, err := parseKubeconfig(kc)
			if err != nil {
				return 0, fmt.Errorf("Secret %s/%s: %w", ns, s.Metadata.Name, err)
			}
			if _, _, cert, err := f.current(); err == nil && len(cert.Certificate) > 0 {
				if c, err := x509.ParseCertificate(cert.Certificate[0]); err == nil && c.IsCA {
					n++
				}
			}
		}
	}
	return n, nil
}

// isCA reports whether PEM data holds a CA certificate.
func isCA(data []byte) bool {
	for len(data) > 0 {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return false
		}
		if c, err := x509.ParseCertificate(b.Bytes); err == nil && c.IsCA {
			return true
		}
	}
	return false
}
