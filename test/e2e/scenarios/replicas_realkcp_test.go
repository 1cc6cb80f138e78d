package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// kcp's log line when a server takes the lease of kcp's controllers (client-go's leader
// election, kcp's --leader-election-namespace and -name defaults), in kcp's JSON logging.
const (
	leaseAcquired = `"msg":"Successfully acquired lease"`
	leaseName     = `"lock":"kube-system/kcp-controllers"`
)

// tookLease reports whether a kcp server's log says it took the lease.
func tookLease(log []byte) bool {
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, leaseAcquired) && strings.Contains(l, leaseName) {
			return true
		}
	}
	return false
}

// checkReplicasOnRealKCP runs the other replicas of every kcp server Deployment of ns that
// has more than one (pods holds the first pod of each Deployment, by name; a replaced pod is
// replaced there too), and proves kcp's leader election (--enable-leader-election) across
// them: exactly one replica takes the lease of kcp's controllers; once it stops and its
// Service names move to another replica, another takes the lease, and a workspace created
// then, which kcp's controllers make Ready, becomes Ready through the front-proxy.
func checkReplicasOnRealKCP(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, admin kubectlFunc, ns string) {
	t.Helper()
	for _, d := range kcpServerDeployments(ctx, t, e, ns) {
		if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
			continue
		}
		name := d.Name
		replicas := []*realkcp.Pod{pods[name]}
		for i := 1; i < int(*d.Spec.Replicas); i++ {
			p, err := c.RunDeploymentReplica(ctx, ns, name, i)
			if err != nil {
				t.Fatal(err)
			}
			replicas = append(replicas, p)
		}
		start := time.Now()
		leader := waitLeader(ctx, t, e, replicas, nil)
		e.Step("RealKCP %s: %d replicas of %s run; %s took the lease of kcp's controllers (kube-system/kcp-controllers) %.1fs after the last started", ns, len(replicas), name, leader.Name, time.Since(start).Seconds())

		others := slices.DeleteFunc(slices.Clone(replicas), func(p *realkcp.Pod) bool { return p == leader })
		stopped := time.Now()
		if err := c.Failover(leader, others[0]); err != nil {
			t.Fatal(err)
		}
		for k, p := range pods {
			if p == leader {
				pods[k] = others[0]
			}
		}
		next := waitLeader(ctx, t, e, others, leader)
		took := time.Since(stopped)
		ws := "after-failover-" + strings.TrimSuffix(name, "-kcp")
		if out, err := admin(ctx, "apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata: {name: "+ws+"}\n", "create", "-f", "-"); err != nil && !strings.Contains(out, "AlreadyExists") {
			t.Fatalf("create workspace %s: %v\n%s", ws, err, out)
		}
		if err := e.Eventually(ctx, 3*time.Minute, "workspace "+ws+" Ready after the leader stopped", func(ctx context.Context) (bool, string, error) {
			out, err := admin(ctx, "", "get", "workspace", ws, "-o", "jsonpath={.status.phase}")
			return err == nil && out == "Ready", out, next.Exited()
		}); err != nil {
			t.Fatal(err)
		}
		e.Step("RealKCP %s: %s stopped; %s took the lease %.1fs later, and workspace %s created then was Ready %.1fs after the stop", ns, leader.Name, next.Name, took.Seconds(), ws, time.Since(stopped).Seconds())
	}
}

// waitLeader waits until exactly one of replicas has logged taking the lease (since it
// started), and returns it; the replica that held it before, if any, is not among them.
func waitLeader(ctx context.Context, t *testing.T, e *env, replicas []*realkcp.Pod, before *realkcp.Pod) *realkcp.Pod {
	t.Helper()
	var leader *realkcp.Pod
	what := "one replica takes the lease of kcp's controllers"
	if before != nil {
		what = "another replica takes the lease " + before.Name + " held"
	}
	if err := e.Eventually(ctx, 2*time.Minute, what, func(context.Context) (bool, string, error) {
		var holders []string
		leader = nil
		for _, p := range replicas {
			if err := p.Exited(); err != nil {
				return false, "", err
			}
			log, err := os.ReadFile(filepath.Join(p.Dir(), "kcp.log"))
			if err != nil {
				return false, err.Error(), nil
			}
			if tookLease(log) {
				holders = append(holders, p.Name)
				leader = p
			}
		}
		if len(holders) > 1 {
			return false, "", fmt.Errorf("replicas %v all took the lease", holders)
		}
		return len(holders) == 1, fmt.Sprintf("holders %v", holders), nil
	}); err != nil {
		t.Fatal(err)
	}
	return leader
}
