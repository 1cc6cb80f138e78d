package stack

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// FakeNodesB are cluster B's nodes: two, in a region of their own, none kept for kcp.
var FakeNodesB = []FakeNode{
	{Name: "kwok-b-1", Zone: "region-b-1"},
	{Name: "kwok-b-2", Zone: "region-b-2"},
}

// ClusterB is a second Kubernetes cluster next to the stack's ("cluster A", where Crossplane
// runs): its own etcd, kube-apiserver and kube-controller-manager (package cluster, the same
// pinned binaries and controllers), kube-scheduler and kwok with FakeNodesB, on other
// 127.0.0.1 ports of the same network namespace. No Crossplane, cert-manager or provider runs
// in it: what is created there comes from cluster A, through provider-kubernetes, whose
// network namespace reaches B's API server (forwardToPods). Its data, logs and PKI are in
// <stack dir>/cluster-b.
type ClusterB struct {
	*cluster.Cluster

	s *Stack
	// addr is the API server's host:port, forwarded into the providers' network namespaces.
	addr  string
	mu    sync.Mutex
	procs []*proc.Process
}

// ClusterB starts cluster B on first use and returns it; later calls return the same one (or
// the same error). The stack stops it.
func (s *Stack) ClusterB(ctx context.Context) (*ClusterB, error) {
	s.clusterBMu.Lock()
	defer s.clusterBMu.Unlock()
	if s.clusterB != nil || s.clusterBErr != nil {
		return s.clusterB, s.clusterBErr
	}
	b, err := s.startClusterB(ctx)
	if err != nil {
		s.clusterBErr = fmt.Errorf("cluster B (logs in %s): %w", filepath.Join(s.Dir, "cluster-b"), err)
		return nil, s.clusterBErr
	}
	return b, nil
}

func (s *Stack) startClusterB(ctx context.Context) (*ClusterB, error) {
	began := time.Now()
	dir := filepath.Join(s.Dir, "cluster-b")
	s.Step("cluster B: starting etcd, kube-apiserver and kube-controller-manager in %s", dir)
	c, err := cluster.New(cluster.Options{
		Etcd: s.opts.Bin.Etcd, KubeAPIServer: s.opts.Bin.KubeAPIServer, Kubectl: s.opts.Bin.Kubectl,
		KubeControllerManager: s.opts.Bin.KubeControllerManager,
		Dir:                   dir,
	})
	b := &ClusterB{Cluster: c, s: s}
	if c != nil {
		// From now on the stack stops it, and its processes' exits fail the waits.
		s.mu.Lock()
		s.clusterB = b
		s.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	if b.addr, err = hostPort(c.URL); err != nil {
		return nil, err
	}
	start := func(name string, env []string, bin string, args ...string) (*proc.Process, error) {
		p, err := proc.Start(filepath.Join(dir, name+".log"), env, bin, args...)
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		b.procs = append(b.procs, p)
		b.mu.Unlock()
		return p, nil
	}
	if err := s.startNodesIn(ctx, c, dir, FakeNodesB, 0, start); err != nil {
		return nil, fmt.Errorf("kube-scheduler and kwok: %w", err)
	}
	if err := s.forwardToPods(b.addr, true); err != nil {
		return nil, err
	}
	s.Step("cluster B: kube-apiserver ready at %s (reached from the providers' network namespaces), kube-controller-manager and kube-scheduler running, %d kwok fake nodes Ready (kwok stands in for kubelets), %.1fs",
		c.URL, len(FakeNodesB), time.Since(began).Seconds())
	return b, nil
}

// StopAPIServer makes cluster B unreachable: its kube-apiserver is killed and kept down
// (etcd keeps running, so nothing is lost), and its address refuses connections in the
// providers' network namespaces too. B's controller manager, scheduler and kwok keep running
// and retry, as they would against a control plane that went away.
func (b *ClusterB) StopAPIServer() error {
	if err := b.Cluster.StopAPIServer(); err != nil {
		return err
	}
	if err := b.s.forwardToPods(b.addr, false); err != nil {
		return err
	}
	b.s.Step("cluster B: kube-apiserver stopped (%s unreachable)", b.addr)
	return nil
}

// StartAPIServer brings cluster B back: its kube-apiserver starts again on the same address
// with the same etcd and certificates, and once /readyz answers, its address is forwarded
// into the providers' network namespaces again.
func (b *ClusterB) StartAPIServer() error {
	if err := b.Cluster.StartAPIServer(2 * time.Minute); err != nil {
		return err
	}
	if err := b.s.forwardToPods(b.addr, true); err != nil {
		return err
	}
	b.s.Step("cluster B: kube-apiserver started again at %s", b.URL)
	return nil
}

// Exited reports the first of cluster B's processes that has ended, or nil.
func (b *ClusterB) Exited() error {
	if err := b.Cluster.Exited(); err != nil {
		return fmt.Errorf("cluster B: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.procs {
		if err := p.Exited(); err != nil {
			return fmt.Errorf("cluster B: %w", err)
		}
	}
	return nil
}

// stop ends kwok and the scheduler, then the cluster.
func (b *ClusterB) stop() {
	b.mu.Lock()
	procs := b.procs
	b.procs = nil
	b.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(10 * time.Second)
	}
	b.Cluster.Stop()
}

// GetJSON runs `kubectl get <args> -o json` against cluster B and decodes the result.
func (b *ClusterB) GetJSON(ctx context.Context, out any, args ...string) error {
	out2, err := b.Kubectl(ctx, nil, append(append([]string{"get"}, args...), "-o", "json")...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out2, out); err != nil {
		return fmt.Errorf("kubectl get %s (cluster B): %w", strings.Join(args, " "), err)
	}
	return nil
}

// SecretData reads a Secret of cluster B, decoded.
func (b *ClusterB) SecretData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	var sec struct {
		Data map[string]string `json:"data"`
	}
	if err := b.GetJSON(ctx, &sec, "secret", "-n", namespace, name); err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(sec.Data))
	for k, v := range sec.Data {
		d, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("cluster B: secret %s/%s key %s: %w", namespace, name, k, err)
		}
		out[k] = d
	}
	return out, nil
}
