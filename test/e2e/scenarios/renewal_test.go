package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testRenewal forces cert-manager to renew two certificates of the running basic
// installation, as `cmctl renew` does (it sets the Issuing condition), and checks that what
// depends on them follows: the root shard's Deployment rolls (its pod template names the new
// certificate revision) and the admin kubeconfig Secret embeds the new client certificate.
func testRenewal(t *testing.T, e *env) {
	ctx := t.Context()
	ns := basicNamespace

	beforeRev, err := certificateRevision(ctx, e, ns, "root-server")
	if err != nil {
		t.Fatal(err)
	}
	var dep deployment
	if err := e.GetJSON(ctx, &dep, "deployment", "-n", ns, "root-kcp"); err != nil {
		t.Fatal(err)
	}
	beforeGen := dep.Metadata.Generation
	beforeAnn := dep.Spec.Template.Metadata.Annotations
	oldClient, err := kubeconfigClientSerial(ctx, e)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	for _, c := range []string{"root-server", "kubeconfig-cert-admin"} {
		if err := renew(ctx, e, ns, c); err != nil {
			t.Fatal(err)
		}
	}

	want := fmt.Sprintf("root-server=%d", beforeRev+1)
	if err := e.Eventually(ctx, timeout, "Deployment root-kcp rolled for root-server revision "+fmt.Sprint(beforeRev+1), func(ctx context.Context) (bool, string, error) {
		dep = deployment{} // Unmarshalling into the old value would reuse its annotations map.
		if err := e.GetJSON(ctx, &dep, "deployment", "-n", ns, "root-kcp"); err != nil {
			return false, "", err
		}
		got := fmt.Sprint(dep.Spec.Template.Metadata.Annotations)
		return strings.Contains(got, want), "pod template annotations " + got, nil
	}); err != nil {
		t.Fatal(err)
	}
	if dep.Metadata.Generation <= beforeGen {
		t.Errorf("Deployment root-kcp generation %d after renewal, was %d: no rollout", dep.Metadata.Generation, beforeGen)
	}
	t.Logf("root-kcp pod template annotations: %v -> %v", beforeAnn, dep.Spec.Template.Metadata.Annotations)

	if err := e.Eventually(ctx, timeout, "Secret "+kubeconfigName+" embeds the renewed client certificate", func(ctx context.Context) (bool, string, error) {
		data, err := e.SecretData(ctx, ns, "kubeconfig-cert-admin")
		if err != nil {
			return false, "", err
		}
		issued, err := leaf(data["tls.crt"])
		if err != nil {
			return false, "", err
		}
		embedded, err := kubeconfigClientSerial(ctx, e)
		if err != nil {
			return false, "", err
		}
		status := fmt.Sprintf("issued serial %s, embedded %s, before renewal %s", issued.SerialNumber, embedded, oldClient)
		return embedded == issued.SerialNumber.String() && embedded != oldClient, status, nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("renewal: root-kcp rolled and the kubeconfig Secret was rewritten %.1fs after the renewal", time.Since(start).Seconds())

	// The installation settles again: the deployment controller rolls out the new generation
	// onto the kwok fake nodes.
	if _, err := waitXR(ctx, e, "RootShard", ns, "root", "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	t.Run("KubeconfigStillTrusted", func(t *testing.T) { checkAdminKubeconfig(ctx, t, e) })
}

func certificateRevision(ctx context.Context, e *env, ns, name string) (int64, error) {
	var c struct {
		Status struct {
			Revision int64 `json:"revision"`
		} `json:"status"`
	}
	err := e.GetJSON(ctx, &c, "certificate.cert-manager.io", "-n", ns, name)
	return c.Status.Revision, err
}

// renew sets a Certificate's Issuing condition, which is how cmctl renew asks cert-manager
// for a new certificate.
func renew(ctx context.Context, e *env, ns, name string) error {
	var c struct {
		Status struct {
			Conditions []map[string]any `json:"conditions"`
		} `json:"status"`
	}
	if err := e.GetJSON(ctx, &c, "certificate.cert-manager.io", "-n", ns, name); err != nil {
		return err
	}
	conds := []map[string]any{{
		"type": "Issuing", "status": "True", "reason": "ManuallyTriggered",
		"message":            "Certificate re-issuance manually triggered by the e2e test",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}}
	for _, cond := range c.Status.Conditions {
		if cond["type"] != "Issuing" {
			conds = append(conds, cond)
		}
	}
	b, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	_, err := e.Kubectl(ctx, b, "patch", "certificate.cert-manager.io", "-n", ns, name, "--subresource=status", "--type=merge", "--patch-file=/dev/stdin")
	return err
}

// kubeconfigClientSerial is the serial number of the client certificate in the admin
// kubeconfig Secret.
func kubeconfigClientSerial(ctx context.Context, e *env) (string, error) {
	data, err := e.SecretData(ctx, basicNamespace, kubeconfigName)
	if err != nil {
		return "", err
	}
	k, err := parseKubeconfig(data["kubeconfig"])
	if err != nil {
		return "", err
	}
	_, _, cert, err := k.current()
	if err != nil {
		return "", err
	}
	return cert.Leaf.SerialNumber.String(), nil
}
