package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A tenant who tries what edit in a namespace must not allow through a KcpInstallation.
const (
	hostileNamespace = "team-h"
	hostileUser      = "mallory"
)

// testHostileTenant plays a tenant with only edit in namespace team-h who tries to use an
// installation to reach what the platform did not give them, against real Crossplane and
// cert-manager:
//   - a KcpInstallation named so that it would compose the FrontProxy the platform created in
//     the namespace (which the tenant cannot write) is refused, naming that FrontProxy, and
//     the FrontProxy keeps its UID, generation and spec and gains no owner;
//   - a KcpInstallation whose root CA would come from the platform's CA ClusterIssuer, which
//     the policy (examples/installation/policy.yaml) does not allow, is refused naming the
//     field and the policy, and no Certificate of the namespace names that issuer;
//   - a Kubeconfig whose certificate template names that ClusterIssuer, a platform DNS name
//     and system:masters is refused naming each field, and no Certificate is composed;
//   - a KcpInstallation whose root shard would compose what that older installation's
//     composes (thief-proxy next to thief: both derive thief-proxy-server) is refused,
//     naming the older one.
//
// None composes anything.
func testHostileTenant(t *testing.T, e *env) {
	ctx := t.Context()
	ns := hostileNamespace
	as := offerSelfService(ctx, t, e, ns, hostileUser)

	// The platform's objects: a FrontProxy of its own in the tenant's namespace (waiting for a
	// RootShard that does not exist, so it composes nothing), and a CA ClusterIssuer.
	platform := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: victim-public, namespace: %s}
spec:
  rootShard: {ref: {name: platform-root}}
  external: {hostname: kcp.platform.example.com, port: 6443}
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: corp-root-ca}
spec:
  selfSigned: {}
`, ns)
	if err := e.Apply(ctx, []byte(platform)); err != nil {
		t.Fatal(err)
	}
	// Crossplane writes the XR's spec.crossplane until its first reconcile ends: the snapshot
	// is taken after that, so only a change made by the tenant's installations counts.
	if _, err := waitXR(ctx, e, "FrontProxy", ns, "victim-public", "Synced", "True"); err != nil {
		t.Fatal(err)
	}
	before, err := getXR(ctx, e, "FrontProxy", ns, "victim-public")
	if err != nil {
		t.Fatal(err)
	}
	specBefore := specOf(ctx, t, e, ns)

	apply := func(name, issuer string) {
		t.Helper()
		m := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: %s, namespace: %s}
spec:
  external: {hostname: %s.team-h.example.com}
  certificates:
    issuerRef: %s
`, name, ns, name, issuer)
		if _, err := e.Kubectl(ctx, []byte(m), as("apply", "-f", "-")...); err != nil {
			t.Fatalf("%s cannot apply KcpInstallation %s with the edit role: %v", hostileUser, name, err)
		}
	}
	refused := func(t *testing.T, name string, want ...string) {
		t.Helper()
		x, err := waitXR(ctx, e, "KcpInstallation", ns, name, "Synced", "False")
		if err != nil {
			t.Fatal(err)
		}
		msg := x.conditions()["Synced"].Message
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("KcpInstallation %s: Synced=False says %q, want it to say %q", name, msg, w)
			}
		}
		if refs := x.refs(); len(refs) > 0 {
			t.Errorf("KcpInstallation %s was refused but composed %v", name, refs)
		}
		e.Step("hostile tenant: KcpInstallation %s refused: %s", name, msg)
	}

	t.Run("TakeOverThePlatformsFrontProxy", func(t *testing.T) {
		apply("victim", "{kind: Issuer, name: team-ca}")
		refused(t, "victim", "FrontProxy "+ns+"/victim-public this would compose is taken", "(it has no controller)")
		after, err := getXR(ctx, e, "FrontProxy", ns, "victim-public")
		if err != nil {
			t.Fatal(err)
		}
		if after.Metadata.UID != before.Metadata.UID || after.Metadata.Generation != before.Metadata.Generation || len(after.Metadata.OwnerReferences) > 0 {
			t.Errorf("the platform's FrontProxy changed: UID %s -> %s, generation %d -> %d, owners %v",
				before.Metadata.UID, after.Metadata.UID, before.Metadata.Generation, after.Metadata.Generation, after.Metadata.OwnerReferences)
		}
		if got, want := specOf(ctx, t, e, ns), specBefore; got != want {
			t.Errorf("the platform's FrontProxy spec changed:\n%s\n->\n%s", want, got)
		}
	})
	t.Run("UseThePlatformsCA", func(t *testing.T) {
		apply("thief", "{kind: ClusterIssuer, name: corp-root-ca, group: cert-manager.io}")
		refused(t, "thief", "spec.certificates.issuerRef: Forbidden: ClusterIssuer corp-root-ca", "EnvironmentConfig kcp-self-service")
		certs, err := composed(ctx, e, ns, "certificates.cert-manager.io")
		if err != nil {
			t.Fatal(err)
		}
		if len(certs) > 0 {
			t.Errorf("Certificates exist in %s although every installation there was refused: %v", ns, certs)
		}
	})

	t.Run("CertificateFromThePlatformsCA", func(t *testing.T) {
		// A Kubeconfig is the other way a tenant causes a certificate: its template would name
		// the platform's CA, any DNS name and system:masters.
		m := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: masters, namespace: %s}
spec:
  target: {frontProxyRef: {name: victim-public}}
  username: mallory
  validity: 720h
  secretRef: {name: masters-kubeconfig}
  certificateTemplate:
    spec:
      issuerRef: {kind: ClusterIssuer, name: corp-root-ca, group: cert-manager.io}
      dnsNames: [kcp.platform.example.com]
      subject: {organizations: ["system:masters"]}
`, ns)
		if _, err := e.Kubectl(ctx, []byte(m), as("apply", "-f", "-")...); err != nil {
			t.Fatalf("%s cannot apply a Kubeconfig with the edit role: %v", hostileUser, err)
		}
		x, err := waitXR(ctx, e, "Kubeconfig", ns, "masters", "Synced", "False")
		if err != nil {
			t.Fatal(err)
		}
		msg := x.conditions()["Synced"].Message
		for _, want := range []string{"spec.certificateTemplate.spec.issuerRef", "corp-root-ca", "spec.certificateTemplate.spec.subject"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Kubeconfig masters: Synced=False says %q, want it to name %s", msg, want)
			}
		}
		certs, err := composed(ctx, e, ns, "certificates.cert-manager.io")
		if err != nil {
			t.Fatal(err)
		}
		if len(certs) > 0 {
			t.Errorf("Certificates exist in %s although the Kubeconfig naming the platform's CA was refused: %v", ns, certs)
		}
		e.Step("hostile tenant: Kubeconfig masters with the platform's CA, a platform DNS name and system:masters in its template refused: %s", msg)
	})

	t.Run("DeriveANeighboursNames", func(t *testing.T) {
		// thief, refused above, still exists: created first, it keeps its names.
		apply("thief-proxy", "{kind: Issuer, name: team-ca}")
		refused(t, "thief-proxy", "metadata.name: Forbidden: the RootShard thief-proxy this makes would compose thief-proxy-server, which the RootShard thief of KcpInstallation "+ns+"/thief (created before this one) composes")
	})

	for _, args := range [][]string{
		as("delete", "kcpinstallation.kcp.crossplane.io", "-n", ns, "victim", "thief", "thief-proxy", "--ignore-not-found"),
		as("delete", "kubeconfig.kcp.crossplane.io", "-n", ns, "masters", "--ignore-not-found"),
		{"delete", "frontproxy.kcp.crossplane.io", "-n", ns, "victim-public"},
		{"delete", "clusterissuer.cert-manager.io", "corp-root-ca"},
	} {
		if _, err := e.Kubectl(ctx, nil, args...); err != nil {
			t.Error(err)
		}
	}
}

// specOf is the spec of the platform's FrontProxy victim-public, as JSON.
func specOf(ctx context.Context, t *testing.T, e *env, ns string) string {
	t.Helper()
	var o struct {
		Spec map[string]any `json:"spec"`
	}
	if err := e.GetJSON(ctx, &o, "frontproxy.kcp.crossplane.io", "-n", ns, "victim-public"); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o.Spec)
	return string(b)
}
