package scenarios

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// runJob stands in for the job controller and a kubelet for Job name, which the e2e's
// control plane and kwok's fake nodes do not run for Jobs (see completeRewriteJob): it runs
// the pod's containers, init containers first, with run (the command as this machine can
// run it), stopping at the first that fails, and reports the Job as the job controller would
// for a pod that exited so: Complete, or Failed (a restore Job is not retried). It returns
// run's error.
func runJob(ctx context.Context, t *testing.T, e *env, ns, name string, run func(corev1.Container) error) error {
	t.Helper()
	var job batchv1.Job
	if err := e.Eventually(ctx, 2*timeout, "Job "+name, func(ctx context.Context) (bool, string, error) {
		err := e.GetJSON(ctx, &job, "job", "-n", ns, name)
		return err == nil, fmt.Sprint(err), nil
	}); err != nil {
		t.Fatal(err)
	}
	spec := job.Spec.Template.Spec
	var runErr error
	for _, ct := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		if runErr = run(ct); runErr != nil {
			runErr = fmt.Errorf("container %s of Job %s: %w", ct.Name, name, runErr)
			break
		}
	}
	at := time.Now().UTC().Format(time.RFC3339)
	cond := func(typ, reason string) string {
		return fmt.Sprintf(`{"type":%q,"status":"True","reason":%q,"lastProbeTime":%q,"lastTransitionTime":%q}`, typ, reason, at, at)
	}
	status := fmt.Sprintf(`{"status":{"startTime":%q,"completionTime":%q,"succeeded":1,"conditions":[%s,%s]}}`, at, at,
		cond("SuccessCriteriaMet", "CompletionsReached"), cond("Complete", "CompletionsReached"))
	if runErr != nil {
		status = fmt.Sprintf(`{"status":{"startTime":%q,"failed":1,"conditions":[%s,%s]}}`, at,
			cond("FailureTarget", "BackoffLimitExceeded"), cond("Failed", "BackoffLimitExceeded"))
	}
	if out, err := e.Kubectl(ctx, nil, "patch", "job", name, "-n", ns, "--subresource=status", "--type=merge", "-p", status); err != nil {
		t.Fatalf("report Job %s ended: %v\n%s", name, err, out)
	}
	return runErr
}

// installationRestore is one entry of a KcpInstallation's status.restores.
type installationRestore struct {
	Cluster  string `json:"cluster"`
	Snapshot string `json:"snapshot"`
	Phase    string `json:"phase"`
	Message  string `json:"message"`
}

// waitRestorePhase waits until the installation's restore of snapshot reports phase, and
// fails at once on an end it does not wait for.
func waitRestorePhase(ctx context.Context, t *testing.T, e *env, ns, installation, snapshot, phase string) installationRestore {
	t.Helper()
	var got installationRestore
	err := e.Eventually(ctx, 2*timeout, "status.restores at "+phase, func(ctx context.Context) (bool, string, error) {
		var inst struct {
			Status struct {
				Restores []installationRestore `json:"restores"`
			} `json:"status"`
		}
		if err := e.GetJSON(ctx, &inst, "kcpinstallation", "-n", ns, installation); err != nil {
			return false, "", err
		}
		for _, r := range inst.Status.Restores {
			if r.Snapshot != snapshot {
				continue
			}
			got = r
			if r.Phase != phase && (r.Phase == "Failed" || r.Phase == "CheckFailed" || r.Phase == "Restored") {
				return false, "", fmt.Errorf("the restore ended at %s, waiting for %s: %s", r.Phase, phase, r.Message)
			}
			return r.Phase == phase, r.Phase + ": " + r.Message, nil
		}
		return false, fmt.Sprintf("status.restores %+v", inst.Status.Restores), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// setRestore names snapshot in the installation's spec.etcd.managed.restore.
func setRestore(ctx context.Context, t *testing.T, e *env, ns, installation, snapshot string) time.Time {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"etcd":{"managed":{"restore":{"snapshot":%q}}}}}`, snapshot)
	if _, err := e.Kubectl(ctx, nil, "patch", "kcpinstallation", "-n", ns, installation, "--type=merge", "-p", patch); err != nil {
		t.Fatal(err)
	}
	return time.Now()
}
