package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testDelete deletes the basic installation's XRs and checks that Crossplane and the garbage
// collector remove everything they composed, then deletes the namespace.
func testDelete(t *testing.T, e *env) {
	ctx := t.Context()
	ns := basicNamespace
	before, err := composed(ctx, e, ns, composedKinds...)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 {
		t.Fatal("nothing composed in namespace kcp: nothing to delete")
	}
	start := time.Now()
	for _, x := range []string{"kubeconfig.kcp.crossplane.io/admin", "frontproxy.kcp.crossplane.io/frontproxy", "rootshard.kcp.crossplane.io/root"} {
		if _, err := e.Kubectl(ctx, nil, "delete", "-n", ns, x, "--wait=false"); err != nil {
			t.Fatal(err)
		}
	}
	// The garbage collector discovers new kinds only every 30 s or so: allow minutes.
	if err := e.Eventually(ctx, 3*time.Minute, "composed objects garbage collected", func(ctx context.Context) (bool, string, error) {
		left, err := composed(ctx, e, ns, composedKinds...)
		if err != nil {
			return false, "", err
		}
		var xrs struct {
			Items []xr `json:"items"`
		}
		if err := e.GetJSON(ctx, &xrs, "rootshards.kcp.crossplane.io,frontproxies.kcp.crossplane.io,kubeconfigs.kcp.crossplane.io", "-n", ns); err != nil {
			return false, "", err
		}
		return len(left) == 0 && len(xrs.Items) == 0, fmt.Sprintf("%d XRs and %d composed objects left: %s", len(xrs.Items), len(left), strings.Join(keys(left), " ")), nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("delete: %d composed objects removed %.1fs after deleting the XRs", len(before), time.Since(start).Seconds())

	if _, err := e.Kubectl(ctx, nil, "delete", "namespace", ns, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	if err := e.Eventually(ctx, 3*time.Minute, "namespace "+ns+" deleted", func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, "get", "namespace", ns, "-o", "jsonpath={range .status.conditions[?(@.status==\"True\")]}{.message}; {end}")
		return err != nil && strings.Contains(err.Error(), "NotFound"), "namespace still exists: " + string(out), nil
	}); err != nil {
		t.Fatal(err)
	}
}
