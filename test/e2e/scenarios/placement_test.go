package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// pod is what the placement checks read of a pod.
type pod struct {
	stack.Object
	Spec struct {
		NodeName    string `json:"nodeName"`
		Tolerations []struct {
			Key, Value, Effect string
		} `json:"tolerations"`
		Volumes []struct {
			Name string `json:"name"`
			PVC  *struct {
				ClaimName string `json:"claimName"`
			} `json:"persistentVolumeClaim"`
		} `json:"volumes"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
		PodIP string `json:"podIP"`
	} `json:"status"`
}

// owner is the pod's controller, as kind/name (a Deployment's pods are owned by a ReplicaSet
// of the current rollout).
func (p pod) owner() string {
	for _, o := range p.Metadata.OwnerReferences {
		if o.Controller {
			return o.Kind + "/" + o.Name
		}
	}
	return ""
}

// podsOf lists a namespace's pods that are not being deleted.
func podsOf(ctx context.Context, e *env, ns string) ([]pod, error) {
	var list struct {
		Items []pod `json:"items"`
	}
	if err := e.Get(ctx, "/api/v1/namespaces/"+ns+"/pods", &list); err != nil {
		return nil, err
	}
	var pods []pod
	for _, p := range list.Items {
		if p.Metadata.DeletionTimestamp == "" {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

// workloadPods are the running pods of one Deployment or StatefulSet and the nodes and zones
// they run on.
type workloadPods struct {
	owner        string
	pods         []pod
	nodes, zones map[string]bool
}

func (w workloadPods) String() string {
	var at []string
	for _, p := range w.pods {
		at = append(at, p.Metadata.Name+"@"+p.Spec.NodeName)
	}
	return fmt.Sprintf("%s: %s", w.owner, strings.Join(at, " "))
}

// placement waits until every pod in ns runs (Running, on a kwok fake node, with an IP) and
// no rollout is under way (each ReplicaSet or StatefulSet has as many pods as it wants),
// and groups the pods by the workload that owns them.
func placement(ctx context.Context, e *env, ns string) (map[string]workloadPods, error) {
	zone := map[string]string{}
	for _, n := range stack.FakeNodes {
		zone[n.Name] = n.Zone
	}
	var groups map[string]workloadPods
	err := e.Eventually(ctx, timeout, "every pod in "+ns+" running on a kwok fake node", func(ctx context.Context) (bool, string, error) {
		pods, err := podsOf(ctx, e, ns)
		if err != nil {
			return false, "", err
		}
		want, err := wantedPods(ctx, e, ns)
		if err != nil {
			return false, "", err
		}
		groups = map[string]workloadPods{}
		var waiting []string
		for _, p := range pods {
			if strings.HasPrefix(p.owner(), "Job/") {
				continue // an etcd backup the schedule started meanwhile: no workload's replica
			}
			if p.Status.Phase != "Running" || zone[p.Spec.NodeName] == "" || p.Status.PodIP == "" {
				waiting = append(waiting, fmt.Sprintf("%s %s on %q", p.Metadata.Name, p.Status.Phase, p.Spec.NodeName))
				continue
			}
			g := groups[p.owner()]
			if g.owner == "" {
				g = workloadPods{owner: p.owner(), nodes: map[string]bool{}, zones: map[string]bool{}}
			}
			g.pods = append(g.pods, p)
			g.nodes[p.Spec.NodeName] = true
			g.zones[zone[p.Spec.NodeName]] = true
			groups[p.owner()] = g
		}
		for owner, n := range want {
			if got := len(groups[owner].pods); got != n {
				waiting = append(waiting, fmt.Sprintf("%s runs %d of %d pods", owner, got, n))
			}
		}
		for owner := range groups {
			if _, ok := want[owner]; !ok {
				waiting = append(waiting, owner+" still has pods (rollout under way)")
			}
		}
		sort.Strings(waiting)
		return len(waiting) == 0 && len(want) > 0, strings.Join(waiting, "; "), nil
	})
	return groups, err
}

// wantedPods is how many pods each ReplicaSet and StatefulSet of ns wants, by kind/name;
// ReplicaSets that want none (an earlier rollout's) are left out.
func wantedPods(ctx context.Context, e *env, ns string) (map[string]int, error) {
	want := map[string]int{}
	for _, kind := range []struct{ kind, path string }{
		{"ReplicaSet", "/apis/apps/v1/namespaces/" + ns + "/replicasets"},
		{"StatefulSet", "/apis/apps/v1/namespaces/" + ns + "/statefulsets"},
	} {
		var list struct {
			Items []struct {
				stack.Object
				Spec struct {
					Replicas *int `json:"replicas"`
				} `json:"spec"`
			} `json:"items"`
		}
		if err := e.Get(ctx, kind.path, &list); err != nil {
			return nil, err
		}
		for _, w := range list.Items {
			n := 1
			if w.Spec.Replicas != nil {
				n = *w.Spec.Replicas
			}
			if n > 0 && w.Metadata.DeletionTimestamp == "" {
				want[kind.kind+"/"+w.Metadata.Name] = n
			}
		}
	}
	return want, nil
}

// checkSpread asserts what the default spread (preferred, by node then zone) achieves on the
// nodes pods may use: every workload's replicas on distinct nodes, as long as there are
// nodes enough, and in both zones once there are two replicas.
func checkSpread(t *testing.T, groups map[string]workloadPods, nodes int) {
	t.Helper()
	for _, owner := range slices.Sorted(maps.Keys(groups)) {
		g := groups[owner]
		n := len(g.pods)
		if want := min(n, nodes); len(g.nodes) != want {
			t.Errorf("%d replicas on %d nodes, want %d (spread by %s): %s", n, len(g.nodes), want, stack.LabelHostname, g)
		}
		if want := min(n, 2); len(g.zones) != want {
			t.Errorf("%d replicas in %d zones, want %d (spread by %s): %s", n, len(g.zones), want, stack.LabelZone, g)
		}
	}
}

// checkOffDedicatedNodes asserts that no pod of ns runs on a node kept for kcp: the pods do
// not tolerate the taint.
func checkOffDedicatedNodes(t *testing.T, groups map[string]workloadPods) {
	t.Helper()
	for _, g := range groups {
		for _, p := range g.pods {
			for _, n := range stack.FakeNodes {
				if n.Dedicated && n.Name == p.Spec.NodeName {
					t.Errorf("pod %s runs on %s, which carries %s it does not tolerate", p.Metadata.Name, n.Name, stack.DedicatedTaint)
				}
			}
		}
	}
}

// pdb is what the checks read of a PodDisruptionBudget.
type pdb struct {
	stack.Object
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration"`
		DisruptionsAllowed int   `json:"disruptionsAllowed"`
		CurrentHealthy     int   `json:"currentHealthy"`
		DesiredHealthy     int   `json:"desiredHealthy"`
		ExpectedPods       int   `json:"expectedPods"`
	} `json:"status"`
}

// checkDisruptionBudgets waits until the disruption controller reports, for each workload in
// replicas (Deployment or StatefulSet name -> replicas), a budget of the workload's name
// allowing one disruption with every replica healthy, and none for single replicas.
func checkDisruptionBudgets(ctx context.Context, t *testing.T, e *env, ns string, replicas map[string]int) {
	t.Helper()
	var last map[string]pdb
	err := e.Eventually(ctx, timeout, "PodDisruptionBudgets in "+ns, func(ctx context.Context) (bool, string, error) {
		var list struct {
			Items []pdb `json:"items"`
		}
		if err := e.Get(ctx, "/apis/policy/v1/namespaces/"+ns+"/poddisruptionbudgets", &list); err != nil {
			return false, "", err
		}
		last = map[string]pdb{}
		for _, b := range list.Items {
			last[b.Metadata.Name] = b
		}
		var wrong []string
		for _, name := range slices.Sorted(maps.Keys(replicas)) {
			n := replicas[name]
			b, ok := last[name]
			switch {
			case n < 2 && ok:
				wrong = append(wrong, fmt.Sprintf("%s has one replica and a budget", name))
			case n < 2:
			case !ok:
				wrong = append(wrong, fmt.Sprintf("%s (%d replicas) has no budget", name, n))
			case b.Status.ObservedGeneration != b.Metadata.Generation || b.Status.ExpectedPods != n ||
				b.Status.CurrentHealthy != n || b.Status.DesiredHealthy != n-1 || b.Status.DisruptionsAllowed != 1:
				wrong = append(wrong, fmt.Sprintf("%s: %+v, want %d expected and healthy, %d desired, 1 disruption allowed", name, b.Status, n, n-1))
			}
		}
		return len(wrong) == 0, strings.Join(wrong, "; "), nil
	})
	if err != nil {
		t.Error(err)
	}
}

// evict asks the API server to evict a pod, as `kubectl drain` does.
func evict(ctx context.Context, e *env, ns, name string) error {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "policy/v1", "kind": "Eviction",
		"metadata": map[string]any{"name": name, "namespace": ns},
	})
	_, err := e.Kubectl(ctx, b, "create", "--raw", "/api/v1/namespaces/"+ns+"/pods/"+name+"/eviction", "-f", "-")
	return err
}

// checkEvictionBudget drains as `kubectl drain` does, with every node cordoned so that no
// replacement can become ready meanwhile: evicting one member of a StatefulSet whose budget
// allows one disruption succeeds, evicting another is refused while the first is missing.
// Without the cordon the outcome would depend on timing: kwok makes a replacement ready
// within a fraction of a second, and the budget then allows a disruption again. The nodes
// are cordoned for about a second: pods of the other lane created meanwhile wait that long.
func checkEvictionBudget(ctx context.Context, t *testing.T, e *env, ns string, members []string) {
	t.Helper()
	if len(members) < 2 {
		t.Fatalf("want two members to evict, have %v", members)
	}
	if err := e.Cordon(ctx, true); err != nil {
		t.Fatal(err)
	}
	evicted := evict(ctx, e, ns, members[0])
	second := evict(ctx, e, ns, members[1])
	if err := e.Cordon(ctx, false); err != nil {
		t.Fatal(err)
	}
	if evicted != nil {
		t.Fatalf("evicting %s with one disruption allowed: %v", members[0], evicted)
	}
	if second == nil || !strings.Contains(second.Error(), "disruption budget") {
		t.Errorf("evicting %s while %s is being replaced: %v, want a refusal naming the disruption budget", members[1], members[0], second)
	}
	// The evicted member comes back under its name once the nodes are schedulable.
	if err := e.Eventually(ctx, timeout, members[0]+" back", func(ctx context.Context) (bool, string, error) {
		var p pod
		if err := e.Get(ctx, "/api/v1/namespaces/"+ns+"/pods/"+members[0], &p); err != nil {
			return false, "", err
		}
		return p.Status.Phase == "Running" && p.Metadata.DeletionTimestamp == "", p.Status.Phase + " on " + p.Spec.NodeName, nil
	}); err != nil {
		t.Error(err)
	}
}

// checkStatefulIdentities asserts that a StatefulSet's pods are <name>-0 ... <name>-(n-1),
// each mounting its own claim <template>-<pod>, Bound to a volume no other claim has.
func checkStatefulIdentities(ctx context.Context, t *testing.T, e *env, ns string, g workloadPods, name, template string, n int) {
	t.Helper()
	var names []string
	volumes := map[string]string{}
	for _, p := range g.pods {
		names = append(names, p.Metadata.Name)
		claim := ""
		for _, v := range p.Spec.Volumes {
			if v.Name == template && v.PVC != nil {
				claim = v.PVC.ClaimName
			}
		}
		if want := template + "-" + p.Metadata.Name; claim != want {
			t.Errorf("pod %s mounts claim %q as %s, want %s", p.Metadata.Name, claim, template, want)
			continue
		}
		var pvc struct {
			stack.Object
			Spec struct {
				VolumeName string `json:"volumeName"`
			} `json:"spec"`
			Status struct {
				Phase string `json:"phase"`
			} `json:"status"`
		}
		if err := e.Get(ctx, "/api/v1/namespaces/"+ns+"/persistentvolumeclaims/"+claim, &pvc); err != nil {
			t.Error(err)
			continue
		}
		if pvc.Status.Phase != "Bound" || pvc.Spec.VolumeName == "" {
			t.Errorf("claim %s is %s (volume %q), want Bound", claim, pvc.Status.Phase, pvc.Spec.VolumeName)
		}
		if other, ok := volumes[pvc.Spec.VolumeName]; ok {
			t.Errorf("claims %s and %s are bound to the same volume %s", other, claim, pvc.Spec.VolumeName)
		}
		volumes[pvc.Spec.VolumeName] = claim
	}
	sort.Strings(names)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("%s-%d", name, i))
	}
	if !slices.Equal(names, want) {
		t.Errorf("StatefulSet %s runs pods %v, want %v", name, names, want)
	}
}

// replicasOf reads the replicas of every Deployment and StatefulSet in ns, by name.
func replicasOf(ctx context.Context, e *env, ns string) (map[string]int, error) {
	out := map[string]int{}
	for _, path := range []string{"/apis/apps/v1/namespaces/" + ns + "/deployments", "/apis/apps/v1/namespaces/" + ns + "/statefulsets"} {
		var list struct {
			Items []struct {
				stack.Object
				Spec struct {
					Replicas *int `json:"replicas"`
				} `json:"spec"`
			} `json:"items"`
		}
		if err := e.Get(ctx, path, &list); err != nil {
			return nil, err
		}
		for _, w := range list.Items {
			n := 1
			if w.Spec.Replicas != nil {
				n = *w.Spec.Replicas
			}
			out[w.Metadata.Name] = n
		}
	}
	return out, nil
}

// waitPodsCreated waits until ns has at least n pods.
func waitPodsCreated(ctx context.Context, e *env, ns string, n int) ([]pod, error) {
	var pods []pod
	err := e.Eventually(ctx, timeout, fmt.Sprintf("%d pods in %s", n, ns), func(ctx context.Context) (bool, string, error) {
		var err error
		pods, err = podsOf(ctx, e, ns)
		return len(pods) >= n, fmt.Sprintf("%d pods", len(pods)), err
	})
	return pods, err
}
