package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// labelExitCode is the label kwok's e2e-pod-exited stage reads: a pod labelled with it has
// ended with that exit code.
const labelExitCode = "e2e.configuration-kcp.io/exit-code"

// runJobPod stands in for a kubelet's container runtime for Job name: once the Job
// controller has made its pod, it runs the pod's containers, init containers first, with run
// (which runs the command as this machine can), stopping at the first that fails, and labels
// the pod with the exit code; kwok then reports the pod ended, and the Job controller
// completes or fails the Job. It returns the Job as the API server holds it, and run's error.
func runJobPod(ctx context.Context, t *testing.T, e *env, ns, name string, run func(corev1.Container) error) (*batchv1.Job, error) {
	t.Helper()
	var job batchv1.Job
	var pod string
	err := e.Eventually(ctx, 2*timeout, "Job "+name+" and its pod", func(ctx context.Context) (bool, string, error) {
		if err := e.GetJSON(ctx, &job, "job", "-n", ns, name); err != nil {
			return false, err.Error(), nil
		}
		out, err := e.Kubectl(ctx, nil, "get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+name, "-o", "name")
		pods := strings.Fields(string(out))
		if err != nil || len(pods) == 0 {
			return false, "no pod yet", nil
		}
		pod = strings.TrimPrefix(pods[0], "pod/")
		return true, "", nil
	})
	if err != nil {
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
	code := "0"
	if runErr != nil {
		code = "1"
	}
	if _, err := e.Kubectl(ctx, nil, "label", "pod", "-n", ns, pod, labelExitCode+"="+code); err != nil {
		t.Fatal(err)
	}
	return &job, runErr
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
