package scenarios

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// faultDowntime is how long a killed process stays down before it is started again.
const faultDowntime = 5 * time.Second

// faultsNamespace is where Faults installs what it breaks.
const faultsNamespace = "faults"

// testFaults kills the function, the API server and Crossplane in turn, each with SIGKILL as
// a crash or an evicted pod would end it, while a new installation reconciles (a RootShard
// with two Shards and three Kubeconfigs in namespace faults); each is started again after
// faultDowntime. The installation must converge afterwards with nothing lost: every object
// composed before the faults, and every Secret cert-manager wrote (the CAs' included), still
// exists with the same UID, so nothing was deleted and nothing re-created; the function
// serves again after its restart.
func testFaults(t *testing.T, e *env) {
	ctx := t.Context()
	const ns = faultsNamespace
	if err := e.Apply(ctx, scaleManifests(ns, 2, 3)); err != nil {
		t.Fatalf("apply the %s installation: %v", ns, err)
	}
	// Reconciliation is under way once the root CA is issued.
	if err := e.Eventually(ctx, timeout, "root CA Secret in "+ns, func(ctx context.Context) (bool, string, error) {
		_, err := e.SecretData(ctx, ns, "root-ca")
		return err == nil, fmt.Sprint(err), nil
	}); err != nil {
		t.Fatal(err)
	}
	before, err := installationObjects(ctx, e, ns)
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
		if err := e.Eventually(ctx, timeout, f.process+" serving again", f.back); err != nil {
			t.Fatal(err)
		}
		e.Step("faults: %s killed, down %s, serving again %.1fs after the kill", f.process, faultDowntime, time.Since(start).Seconds())
		time.Sleep(10 * time.Second) // Let reconciliation go on before the next fault.
	}

	xrs := []string{"RootShard/root", "Shard/shard-1", "Shard/shard-2", "Kubeconfig/controller-1", "Kubeconfig/controller-2", "Kubeconfig/controller-3"}
	waitXRs(ctx, t, e, ns, xrs, "Ready")
	after, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, before, after, kept{during: "the faults"})
	e.Step("faults: %d injected (function, API server, Crossplane), %d XRs Ready afterwards, %d objects that existed before all kept with their UIDs",
		len(faults), len(xrs), len(before))

	t.Run("FunctionUnreachable", func(t *testing.T) { testFunctionUnreachable(t, e, ns, "function-"+fn.Revision, xrs) })
}

// testFunctionUnreachable keeps the function down while Crossplane reconciles every XR of a
// converged installation: every RunFunction call fails, as a function that errors out
// mid-pipeline would. Crossplane must report the failure (Synced=False) and change nothing;
// once the function is back, every XR is Ready again and nothing was deleted, re-created or
// rolled, during the outage or after it.
func testFunctionUnreachable(t *testing.T, e *env, ns, function string, xrs []string) {
	ctx := t.Context()
	converged, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	var during map[string]stack.Object
	var failing error
	var unexplained []string // Synced=False messages that do not name the failing step.
	start := time.Now()
	err = e.Process(function).Outage(func() {
		// Touch every XR so that Crossplane reconciles it now rather than at its next poll.
		poke := strconv.FormatInt(time.Now().UnixNano(), 10)
		for _, x := range xrs {
			kind, name, _ := strings.Cut(x, "/")
			if _, err := e.Kubectl(ctx, nil, "annotate", "--overwrite", "-n", ns, strings.ToLower(kind)+".kcp.crossplane.io", name, "e2e.kcp.crossplane.io/poke="+poke); err != nil {
				failing = err
				return
			}
		}
		for _, key := range xrs {
			kind, name, _ := strings.Cut(key, "/")
			var x xr
			if x, failing = waitXR(ctx, e, kind, ns, name, "Synced", "False"); failing != nil {
				return
			}
			if msg := x.conditions()["Synced"].Message; !strings.Contains(msg, "compose-kcp") {
				unexplained = append(unexplained, fmt.Sprintf("%s: %q", key, msg))
			}
		}
		time.Sleep(10 * time.Second) // A few more failing reconciles.
		during, failing = installationObjects(ctx, e, ns)
	})
	if err != nil {
		t.Fatalf("start %s again: %v", function, err)
	}
	if failing != nil {
		t.Fatalf("while %s was down: %v", function, failing)
	}
	down := time.Since(start)
	for _, u := range unexplained {
		t.Errorf("Synced=False does not name the pipeline step that failed (compose-kcp): %s", u)
	}
	waitXRs(ctx, t, e, ns, xrs, "Ready", "Synced")
	after, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	n := checkKept(t, converged, during, kept{during: "the function's outage", unchanged: true})
	checkKept(t, converged, after, kept{during: "the function's outage and the reconciles after it", unchanged: true})
	e.Step("faults: %s unreachable for %.0fs, every XR reconciled without it (Synced=False); %d XRs Ready again %.1fs after the outage began, %d objects kept unchanged",
		function, down.Seconds(), len(xrs), time.Since(start).Seconds(), n)
}

// installationObjects are the objects in ns that a kcp installation is made of, by
// "Kind/name": what Crossplane composed and the Secrets cert-manager wrote.
func installationObjects(ctx context.Context, e *env, ns string) (map[string]stack.Object, error) {
	var list struct {
		Items []stack.Object `json:"items"`
	}
	kinds := append([]string{"poddisruptionbudgets.policy", "statefulsets.apps"}, composedKinds...)
	if err := e.GetJSON(ctx, &list, strings.Join(kinds, ","), "-n", ns); err != nil {
		return nil, err
	}
	out := map[string]stack.Object{}
	for _, o := range list.Items {
		_, composed := o.Metadata.Labels["crossplane.io/composite"]
		_, issued := o.Metadata.Annotations["cert-manager.io/certificate-name"]
		if composed || issued {
			out[o.Kind+"/"+o.Metadata.Name] = o
		}
	}
	return out, nil
}

// kept says what checkKept holds objects to.
type kept struct {
	// during names what happened between the two snapshots, for messages.
	during string
	// spare says which objects of the first snapshot may be gone (what a deleted XR composed).
	spare func(stack.Object) bool
	// unchanged also requires the same generation: no spec changed, so no Deployment rolled
	// and no Certificate was re-issued for a new spec. Only for installations that had
	// converged before.
	unchanged bool
}

// checkKept fails the test for every object of before that is gone, was re-created (another
// UID) or is being deleted in after, and with k.unchanged for every object whose spec
// changed. It returns how many objects it checked.
func checkKept(t *testing.T, before, after map[string]stack.Object, k kept) int {
	t.Helper()
	n := 0
	for _, key := range slices.Sorted(maps.Keys(before)) {
		was := before[key]
		if k.spare != nil && k.spare(was) {
			continue
		}
		n++
		switch now, ok := after[key]; {
		case !ok:
			t.Errorf("%s existed before %s and is gone", key, k.during)
		case now.Metadata.UID != was.Metadata.UID:
			t.Errorf("%s was deleted and re-created during %s (uid %s, now %s)", key, k.during, was.Metadata.UID, now.Metadata.UID)
		case now.Metadata.DeletionTimestamp != "":
			t.Errorf("%s is being deleted after %s", key, k.during)
		case k.unchanged && now.Metadata.Generation != was.Metadata.Generation:
			t.Errorf("%s changed during %s (generation %d, now %d)", key, k.during, was.Metadata.Generation, now.Metadata.Generation)
		}
	}
	return n
}
