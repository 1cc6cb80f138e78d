package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// faultDowntime is how long a killed process stays down before it is started again.
const faultDowntime = 5 * time.Second

// testFaults kills the function, the API server and Crossplane in turn, each with SIGKILL as
// a crash or an evicted pod would end it, while a new installation reconciles (a RootShard
// with two Shards and three Kubeconfigs in namespace faults); each is started again after
// faultDowntime. The installation must converge afterwards with nothing lost: every object
// composed before the faults, and every Secret cert-manager wrote (the CAs' included), still
// exists with the same UID, so nothing was deleted and nothing re-created; the function
// serves again after its restart.
func testFaults(t *testing.T, e *env) {
	ctx := t.Context()
	const ns = "faults"
	if err := e.Apply(ctx, scaleManifests(ns, 2, 3)); err != nil {
		t.Fatalf("apply the %s installation: %v", ns, err)
	}
	startFakeKubelet(t, e, ns)
	// Reconciliation is under way once the root CA is issued.
	if err := e.Eventually(ctx, timeout, "root CA Secret in "+ns, func(ctx context.Context) (bool, string, error) {
		_, err := e.SecretData(ctx, ns, "root-ca")
		return err == nil, fmt.Sprint(err), nil
	}); err != nil {
		t.Fatal(err)
	}
	before, err := uids(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}

	fns := e.Functions()
	if len(fns) != 1 {
		t.Fatalf("want one function running, got %d", len(fns))
	}
	fn := fns[0]
	faults := []struct {
		process string
		back    func(ctx context.Context) (bool, string, error)
	}{
		{"function-" + fn.Revision, func(ctx context.Context) (bool, string, error) {
			return stack.HTTPOK(ctx, "http://"+fn.Metrics+"/metrics")
		}},
		{"kube-apiserver", func(ctx context.Context) (bool, string, error) {
			out, err := e.Kubectl(ctx, nil, "get", "--raw", "/readyz")
			return err == nil && strings.TrimSpace(string(out)) == "ok", string(out), nil
		}},
		{"crossplane", func(ctx context.Context) (bool, string, error) {
			return stack.HTTPOK(ctx, "http://"+e.CrossplaneMetrics+"/metrics")
		}},
	}
	for _, f := range faults {
		p := e.Process(f.process)
		if p == nil {
			t.Fatalf("no process %s in the stack", f.process)
		}
		start := time.Now()
		if err := p.Restart(faultDowntime); err != nil {
			t.Fatalf("restart %s: %v", f.process, err)
		}
		if err := e.Eventually(ctx, 2*time.Minute, f.process+" serving again", f.back); err != nil {
			t.Fatal(err)
		}
		e.Step("faults: %s killed, down %s, serving again %.1fs after the kill", f.process, faultDowntime, time.Since(start).Seconds())
		time.Sleep(10 * time.Second) // Let reconciliation go on before the next fault.
	}

	xrs := []string{"RootShard/root", "Shard/shard-1", "Shard/shard-2", "Kubeconfig/controller-1", "Kubeconfig/controller-2", "Kubeconfig/controller-3"}
	for _, x := range xrs {
		kind, name, _ := strings.Cut(x, "/")
		if _, err := waitXR(ctx, e, kind, ns, name, "Ready", "True"); err != nil {
			t.Fatal(err)
		}
	}
	after, err := uids(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	for key, uid := range before {
		switch got, ok := after[key]; {
		case !ok:
			t.Errorf("%s existed before the faults and is gone", key)
		case got != uid:
			t.Errorf("%s was deleted and re-created during the faults (uid %s, now %s)", key, uid, got)
		}
	}
	e.Step("faults: %d injected (function, API server, Crossplane), %d XRs Ready afterwards, %d objects that existed before all kept with their UIDs",
		len(faults), len(xrs), len(before))
}

// uids are the UIDs of the objects in ns that a kcp installation is made of: what Crossplane
// composed and the Secrets cert-manager wrote, by "Kind/name".
func uids(ctx context.Context, e *env, ns string) (map[string]string, error) {
	var list struct {
		Items []stack.Object `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, strings.Join(composedKinds, ","), "-n", ns); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, o := range list.Items {
		_, composed := o.Metadata.Labels["crossplane.io/composite"]
		_, issued := o.Metadata.Annotations["cert-manager.io/certificate-name"]
		if composed || issued {
			out[o.Kind+"/"+o.Metadata.Name] = o.Metadata.UID
		}
	}
	return out, nil
}
