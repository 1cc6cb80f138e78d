package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

// The claim example of docs/self-service.md, in namespace team-b.
const (
	claimNamespace = "team-b"
	claimUser      = "bob"
	claimName      = "dev"
)

// testClaim proves the claim path for platforms still on claims: bob, with only the edit
// role in team-b, applies the KcpInstallationClaim that docs/self-service.md shows. Crossplane
// creates the LegacyCluster XR ClaimedKcpInstallation for it, which composes the namespaced
// KcpInstallation in team-b; the claim shows the installation's status and bob reads the
// kubeconfig Secret in his namespace, as a KcpInstallation user would.
func testClaim(t *testing.T, e *env) {
	ctx := t.Context()
	ns := claimNamespace
	claim := docsClaim(t, e)

	as := offerSelfService(ctx, t, e, ns, claimUser)
	err := e.Eventually(ctx, timeout, claimUser+" may create kcpinstallationclaims in "+ns, func(ctx context.Context) (bool, string, error) {
		out, _ := e.Kubectl(ctx, nil, as("auth", "can-i", "create", "kcpinstallationclaims.kcp.crossplane.io", "-n", ns)...)
		return strings.TrimSpace(string(out)) == "yes", "kubectl auth can-i says " + strings.TrimSpace(string(out)), nil
	})
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if _, err := e.Kubectl(ctx, []byte(claim), as("apply", "-n", ns, "-f", "-")...); err != nil {
		t.Fatalf("%s cannot apply the claim of docs/self-service.md: %v", claimUser, err)
	}

	var last xr
	err = e.Eventually(ctx, 2*timeout, "KcpInstallationClaim team-b/dev Ready", func(ctx context.Context) (bool, string, error) {
		if err := e.GetJSON(ctx, &last, "kcpinstallationclaims.kcp.crossplane.io", "-n", ns, claimName); err != nil {
			return false, "", err
		}
		var parts []string
		for _, c := range last.conditions() {
			parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
		}
		return last.conditions()["Ready"].Status == "True", strings.Join(parts, "; "), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Step("claim: KcpInstallationClaim Ready %.1fs after %s applied it (LegacyCluster XR -> namespaced KcpInstallation -> per-kind XRs)", time.Since(start).Seconds(), claimUser)

	t.Run("InstallationInTheClaimNamespace", func(t *testing.T) {
		var inst xr
		if err := e.GetJSON(ctx, &inst, "kcpinstallations.kcp.crossplane.io", "-n", ns, claimName); err != nil {
			t.Fatal(err)
		}
		if c := controllerOf(inst.Object); !strings.Contains(c, " ClaimedKcpInstallation ") {
			t.Errorf("KcpInstallation %s/%s is controlled by %q, want the claim's ClaimedKcpInstallation", ns, claimName, c)
		}
	})
	t.Run("ClaimShowsTheStatus", func(t *testing.T) {
		if last.Status["kubeconfigSecret"] != "dev-admin-kubeconfig" || last.Status["phase"] != "Running" || last.Status["url"] != "https://kcp.team-b.example.com:6443" {
			t.Errorf("claim status %v, want kubeconfigSecret dev-admin-kubeconfig, phase Running, url https://kcp.team-b.example.com:6443", last.Status)
		}
		out, err := e.Kubectl(ctx, nil, as("get", "secret", "-n", ns, "dev-admin-kubeconfig", "-o", "jsonpath={.data.kubeconfig}")...)
		if err != nil || len(out) == 0 {
			t.Errorf("%s cannot read the kubeconfig Secret: %v", claimUser, err)
		}
	})
	t.Run("RefusalShownOnTheInstallation", func(t *testing.T) { testClaimRefusal(ctx, t, e, as, claim) })
	t.Run("ClaimDeleted", func(t *testing.T) {
		if _, err := e.Kubectl(ctx, nil, as("delete", "kcpinstallationclaim", "-n", ns, claimName, "--wait=false")...); err != nil {
			t.Fatal(err)
		}
		if err := waitInstallationGone(ctx, e, ns); err != nil {
			t.Error(err)
		}
	})
}

// docsClaim returns the KcpInstallationClaim manifest docs/self-service.md shows: the test
// applies what users copy.
func docsClaim(t *testing.T, e *env) string {
	t.Helper()
	blocks, err := markdown.Blocks(filepath.Join(e.root, "docs", "self-service.md"), "yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range blocks {
		if strings.Contains(block, "kind: KcpInstallationClaim") {
			return block
		}
	}
	t.Fatal("docs/self-service.md shows no KcpInstallationClaim")
	return ""
}

// testClaimRefusal checks where a claim user sees what the function refuses, as
// docs/self-service.md says: on the KcpInstallation in their namespace, which they may read,
// not on the claim (Crossplane carries no error of the cluster-scoped XR to a claim). The
// claim asks for a volume with no type, which the schema admits and the function refuses
// (check.UntypedVolumes); nothing composed changes. The docs' claim is then applied again.
func testClaimRefusal(ctx context.Context, t *testing.T, e *env, as func(args ...string) []string, claim string) {
	ns := claimNamespace
	type identity struct{ UID, Generation string }
	shards := func() (map[string]identity, error) {
		out, err := e.Kubectl(ctx, nil, "get", "rootshards.kcp.crossplane.io", "-n", ns, "-o", `jsonpath={range .items[*]}{.metadata.name} {.metadata.uid} {.metadata.generation}{"\n"}{end}`)
		if err != nil {
			return nil, err
		}
		m := map[string]identity{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				m[f[0]] = identity{f[1], f[2]}
			}
		}
		return m, nil
	}
	before, err := shards()
	if err != nil || len(before) == 0 {
		t.Fatalf("the claim's RootShards in %s: %v (found %d)", ns, err, len(before))
	}

	start := time.Now()
	bad := strings.TrimRight(claim, "\n") + "\n  rootShard:\n    extra:\n      volumes:\n      - name: untyped\n"
	if _, err := e.Kubectl(ctx, []byte(bad), as("apply", "-n", ns, "-f", "-")...); err != nil {
		t.Fatalf("%s cannot apply a claim whose volume has no type (the schema admits it): %v", claimUser, err)
	}
	const want = "spec.rootShard.extra.volumes[0]"
	err = e.Eventually(ctx, timeout, "KcpInstallation "+ns+"/"+claimName+" refuses "+want+", readable by "+claimUser, func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, as("get", "kcpinstallation.kcp.crossplane.io", "-n", ns, claimName, "-o", `jsonpath={.status.conditions[?(@.type=="Synced")].message}`)...)
		if err != nil {
			return false, "", err
		}
		return strings.Contains(string(out), want), "Synced: " + string(out), nil
	})
	if err != nil {
		t.Error(err)
	} else {
		e.Step("claim: the function's refusal of the claim's spec shown to %s on KcpInstallation %s/%s %.1fs after the apply", claimUser, ns, claimName, time.Since(start).Seconds())
	}
	after, err := shards()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the claim's RootShards changed while the function refused the claim's spec (-before, +after):\n%s", diff)
	}

	if _, err := e.Kubectl(ctx, []byte(claim), as("apply", "-n", ns, "-f", "-")...); err != nil {
		t.Fatalf("%s cannot apply the docs' claim again: %v", claimUser, err)
	}
	if _, err := waitXR(ctx, e, "KcpInstallations", ns, claimName, "Synced", "True"); err != nil {
		t.Error(err)
	}
}
