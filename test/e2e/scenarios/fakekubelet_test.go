package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// fakeKubelet stands in for the kubelet, the scheduler and the deployment and statefulset
// controllers, which do not run here: every second, each Deployment and StatefulSet in a
// namespace it serves whose status is behind its generation gets the status a healthy
// rollout of that generation would have. It is named FakeKubelet wherever a test relies on it.
//
// One runs for the whole of TestKCP and serves every namespace a scenario hands it. It lists
// both kinds across the cluster through the admin HTTP client: a kubectl process per
// namespace per second, as it once was, spent a measurable share of CI's two cores once a
// dozen scenarios had namespaces. Status patches, which are rare, go through kubectl so that
// kubectl.log shows each one.
type fakeKubelet struct {
	mu         sync.Mutex
	namespaces map[string]bool
	lastErr    string
}

// startFakeKubelet makes the fake kubelet serve the namespace until TestKCP ends (the
// scenarios after Basic rely on it), starting it on first use.
func startFakeKubelet(t *testing.T, e *env, namespace string) {
	t.Helper()
	e.kubeletOnce.Do(func() {
		e.kubelet = &fakeKubelet{namespaces: map[string]bool{}}
		ctx, cancel := context.WithCancel(e.t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.kubelet.run(ctx, e)
		}()
		e.t.Cleanup(func() { cancel(); <-done })
	})
	k := e.kubelet
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.namespaces[namespace] {
		t.Logf("FakeKubelet: marking Deployments and StatefulSets in %s ready as a kubelet and their controllers would (no kubelet runs here)", namespace)
		k.namespaces[namespace] = true
	}
}

func (k *fakeKubelet) run(ctx context.Context, e *env) {
	for {
		err := k.mark(ctx, e)
		// Log an error once, not every second: while a fault scenario keeps the API
		// server down, the same refusal would fill the log.
		k.mu.Lock()
		if msg := fmt.Sprint(err); err != nil && ctx.Err() == nil && msg != k.lastErr {
			e.t.Logf("FakeKubelet: %v", err)
			k.lastErr = msg
		} else if err == nil {
			k.lastErr = ""
		}
		k.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (k *fakeKubelet) serves(namespace string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.namespaces[namespace]
}

func (k *fakeKubelet) mark(ctx context.Context, e *env) error {
	for _, kind := range []string{"deployments", "statefulsets"} {
		if err := k.markKind(ctx, e, kind); err != nil {
			return err
		}
	}
	return nil
}

// rollout is the part of a Deployment or StatefulSet the fake kubelet reads.
type rollout struct {
	stack.Object
	Spec struct {
		Replicas *int64 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration"`
	} `json:"status"`
}

// markKind marks every Deployment or StatefulSet of the served namespaces whose status is
// behind its generation.
func (k *fakeKubelet) markKind(ctx context.Context, e *env, kind string) error {
	var list struct {
		Items []rollout `json:"items"`
	}
	if err := e.Get(ctx, "/apis/apps/v1/"+kind, &list); err != nil {
		return err
	}
	for _, d := range list.Items {
		if d.Status.ObservedGeneration == d.Metadata.Generation || !k.serves(d.Metadata.Namespace) {
			continue
		}
		b, _ := json.Marshal(map[string]any{"status": readyStatus(kind, d)})
		if _, err := e.Kubectl(ctx, b, "patch", kind+".apps", "-n", d.Metadata.Namespace, d.Metadata.Name, "--subresource=status", "--type=merge", "--patch-file=/dev/stdin"); err != nil {
			return err
		}
	}
	return nil
}

// readyStatus is the status the controllers write once every replica of the current
// generation runs.
func readyStatus(kind string, d rollout) map[string]any {
	replicas := int64(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	status := map[string]any{
		"observedGeneration": d.Metadata.Generation,
		"replicas":           replicas, "updatedReplicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas,
	}
	if kind == "deployments" {
		now := time.Now().UTC().Format(time.RFC3339)
		status["conditions"] = []map[string]string{
			{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "FakeKubelet: marked available by the e2e test", "lastUpdateTime": now, "lastTransitionTime": now},
			{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "FakeKubelet: rollout complete", "lastUpdateTime": now, "lastTransitionTime": now},
		}
	} else {
		status["currentReplicas"] = replicas
	}
	return status
}
