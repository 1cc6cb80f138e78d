package stack

import (
	"context"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Environment variables naming the scheduler and kwok, exported by make/e2e-tools.mk.
const (
	EnvKubeScheduler = "E2E_KUBE_SCHEDULER"
	EnvKwok          = "E2E_KWOK"
)

// FakeNodeLabel marks the nodes kwok manages (--manage-nodes-with-label-selector): kwok's
// fake nodes stand in for kubelets, and kwok leaves any other node alone.
const FakeNodeLabel = "e2e.configuration-kcp.io/kwok-node"

// Node labels the scheduler spreads pods by.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelZone     = "topology.kubernetes.io/zone"
)

// DedicatedTaint is the taint of the nodes a platform keeps for kcp: examples/production
// tolerates it, the other examples do not, so their pods stay off those nodes.
const DedicatedTaint = "dedicated=kcp:NoSchedule"

// FakeNode is a node kwok plays.
type FakeNode struct {
	Name, Zone string
	// Dedicated nodes carry DedicatedTaint.
	Dedicated bool
}

// FakeNodes are the stack's nodes: two zones of two nodes each, one of them kept for kcp
// (DedicatedTaint). Every example's pods can spread over both zones; a production
// installation, which tolerates the taint, over four nodes.
var FakeNodes = []FakeNode{
	{Name: "kwok-zone-a-1", Zone: "zone-a"},
	{Name: "kwok-zone-a-2", Zone: "zone-a", Dedicated: true},
	{Name: "kwok-zone-b-1", Zone: "zone-b"},
	{Name: "kwok-zone-b-2", Zone: "zone-b", Dedicated: true},
}

// persistentVolumes is the size of the pool of PersistentVolumes the stack creates: no
// storage provisioner runs, so every claim of a managed etcd binds one of these (KCM's
// persistentvolume binder). A full run's managed etcds claim fewer.
const persistentVolumes = 40

// kwokStages is kwok's configuration: what its fake nodes and their pods do.
//
//go:embed manifests/kwok-stages.yaml
var kwokStages []byte

// startNodes starts kube-scheduler and kwok, creates FakeNodes and the PersistentVolume pool,
// and waits until every node is Ready and schedulable (KCM's node lifecycle controller
// removes the not-ready taint the API server gives a new node once kwok reports it Ready).
func (s *Stack) startNodes(ctx context.Context) error {
	return s.startNodesIn(ctx, s.Cluster, s.Dir, FakeNodes, persistentVolumes, s.start)
}

// startNodesIn is startNodes for cluster c (the stack's, or cluster B): kube-scheduler and
// kwok for c, started by start with their logs and data in dir, and nodes and pvs volumes
// created in c.
func (s *Stack) startNodesIn(ctx context.Context, c *cluster.Cluster, dir string, nodes []FakeNode, pvs int,
	start func(name string, env []string, bin string, args ...string) (*proc.Process, error)) error {
	ports, err := cluster.FreePorts(1)
	if err != nil {
		return err
	}
	if _, err := start("kube-scheduler", nil, s.opts.Bin.KubeScheduler,
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig, "--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[0]),
		"--cert-dir="+filepath.Join(dir, "scheduler-certs"),
		"--leader-elect=false",
	); err != nil {
		return err
	}
	kwokDir := filepath.Join(dir, "kwok")
	if err := os.MkdirAll(kwokDir, 0o755); err != nil {
		return err
	}
	stages := filepath.Join(kwokDir, "stages.yaml")
	if err := os.WriteFile(stages, kwokStages, 0o644); err != nil {
		return err
	}
	// HOME: kwok also loads ~/.kwok/kwok.yaml when it exists; only our stages apply here.
	if _, err := start("kwok", []string{"HOME=" + kwokDir}, s.opts.Bin.Kwok,
		"--kubeconfig="+c.Kubeconfig,
		"--config="+stages,
		"--manage-nodes-with-label-selector="+FakeNodeLabel+"=true",
		// kwok's default is 0: no Lease, and KCM's node lifecycle controller would find the
		// nodes unreachable after its grace period and mark their pods not ready.
		"--node-lease-duration-seconds=40",
	); err != nil {
		return err
	}
	var objs []any
	for i, n := range nodes {
		objs = append(objs, fakeNode(i, n))
	}
	for i := range pvs {
		objs = append(objs, persistentVolume(i))
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": objs})
	if err != nil {
		return err
	}
	// create, not apply: a Node keeps the status it is created with (its capacity).
	if _, err := c.Kubectl(ctx, list, "create", "-f", "-"); err != nil {
		return err
	}
	schedulerHealthz := fmt.Sprintf("https://127.0.0.1:%d/healthz", ports[0])
	if err := s.Eventually(ctx, time.Minute, "kube-scheduler /healthz", func(ctx context.Context) (bool, string, error) {
		return httpsOK(ctx, schedulerHealthz)
	}); err != nil {
		return err
	}
	return s.Eventually(ctx, 2*time.Minute, "kwok's fake nodes Ready and schedulable", func(ctx context.Context) (bool, string, error) {
		got, err := nodesOf(ctx, c)
		if err != nil {
			return false, "", err
		}
		var waiting []string
		for _, n := range nodes {
			if st := got[n.Name]; !st.Ready || slices.Contains(st.Taints, "node.kubernetes.io/not-ready") {
				waiting = append(waiting, fmt.Sprintf("%s (ready %v, taints %v)", n.Name, st.Ready, st.Taints))
			}
		}
		return len(waiting) == 0, "waiting for " + strings.Join(waiting, ", "), nil
	})
}

// fakeNode is the i-th node's manifest: labels as a kubelet registers them plus the zone
// its cloud provider would add, capacity enough for every scenario's pods.
func fakeNode(i int, n FakeNode) map[string]any {
	var taints []any
	if n.Dedicated {
		key, rest, _ := strings.Cut(DedicatedTaint, "=")
		value, effect, _ := strings.Cut(rest, ":")
		taints = append(taints, map[string]any{"key": key, "value": value, "effect": effect})
	}
	resources := map[string]any{"cpu": "32", "memory": "128Gi", "pods": "110"}
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{
			"name": n.Name,
			"labels": map[string]any{
				FakeNodeLabel: "true", LabelHostname: n.Name, LabelZone: n.Zone,
				"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			},
		},
		"spec": map[string]any{"podCIDR": fmt.Sprintf("10.244.%d.0/24", i), "taints": taints},
		"status": map[string]any{
			"capacity": resources, "allocatable": resources,
			// Never dialled: no kubelet listens anywhere.
			"addresses": []any{
				map[string]any{"type": "InternalIP", "address": fmt.Sprintf("10.100.0.%d", i+1)},
				map[string]any{"type": "Hostname", "address": n.Name},
			},
		},
	}
}

// persistentVolume is a volume of the pool: no storage class, no node affinity (usable on
// every node, as network storage is). Nothing mounts it: kwok runs no containers.
func persistentVolume(i int) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolume",
		"metadata": map[string]any{"name": fmt.Sprintf("e2e-pv-%02d", i)},
		"spec": map[string]any{
			"capacity":                      map[string]any{"storage": "100Gi"},
			"accessModes":                   []any{"ReadWriteOnce"},
			"persistentVolumeReclaimPolicy": "Retain",
			"hostPath":                      map[string]any{"path": fmt.Sprintf("/var/lib/e2e-pv/%02d", i)},
		},
	}
}

// NodeState is what the harness reads of a node.
type NodeState struct {
	Zone          string
	Ready         bool
	Unschedulable bool
	Taints        []string
}

// Nodes reads every node's zone, readiness and taint keys, by name.
func (s *Stack) Nodes(ctx context.Context) (map[string]NodeState, error) {
	return nodesOf(ctx, s.Cluster)
}

// nodesOf reads the nodes of cluster c.
func nodesOf(ctx context.Context, c *cluster.Cluster) (map[string]NodeState, error) {
	var list struct {
		Items []struct {
			Object
			Spec struct {
				Unschedulable bool `json:"unschedulable"`
				Taints        []struct {
					Key string `json:"key"`
				} `json:"taints"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := c.Get(ctx, "/api/v1/nodes", &list); err != nil {
		return nil, err
	}
	nodes := map[string]NodeState{}
	for _, n := range list.Items {
		st := NodeState{Zone: n.Metadata.Labels[LabelZone], Ready: n.Condition("Ready").Status == "True", Unschedulable: n.Spec.Unschedulable}
		for _, t := range n.Spec.Taints {
			st.Taints = append(st.Taints, t.Key)
		}
		nodes[n.Metadata.Name] = st
	}
	return nodes, nil
}

// Cordon marks every fake node unschedulable (true) or schedulable again (false), as
// `kubectl cordon` and `uncordon` do.
func (s *Stack) Cordon(ctx context.Context, unschedulable bool) error {
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%v}}`, unschedulable)
	for _, n := range FakeNodes {
		if _, err := s.Kubectl(ctx, nil, "patch", "node", n.Name, "--type=merge", "-p", patch); err != nil {
			return err
		}
	}
	return nil
}

// httpsOK reports whether an HTTPS GET on this namespace's loopback answers 200. The
// scheduler serves a self-signed certificate it made itself: there is nothing to verify it
// against, and the answer is only a health check.
func httpsOK(ctx context.Context, url string) (bool, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, "", err
	}
	resp, err := insecureLoopback.Do(req)
	if err != nil {
		return false, "", err
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK, resp.Status, nil
}

var insecureLoopback = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
	Proxy:           nil,
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback health check, see httpsOK
}}
