package realkcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// network is the pod network: a bridge in a network namespace of its own that each pod's
// namespace joins through a veth pair, with its pod IP and a default route (kcp picks its
// advertise address from the default route).
type network struct {
	bridge *proc.Process
	joined int
}

func newNetwork(ctx context.Context, dir string) (*network, error) {
	bridge, err := proc.Start(filepath.Join(dir, "pod-network.log"), nil, "unshare", "-n", "sleep", "infinity")
	if err != nil {
		return nil, err
	}
	n := &network{bridge: bridge}
	if err := waitNetNS(ctx, bridge); err != nil {
		n.close()
		return nil, err
	}
	if err := inNetNS(ctx, bridge.PID(), "ip link add br0 type bridge; ip link set br0 up"); err != nil {
		n.close()
		return nil, err
	}
	return n, nil
}

// join connects the network namespace of holder to the bridge at address ip.
func (n *network) join(ctx context.Context, holder *proc.Process, ip string) error {
	if err := waitNetNS(ctx, holder); err != nil {
		return err
	}
	host, eth := fmt.Sprintf("kcpe2e%dh", n.joined), fmt.Sprintf("kcpe2e%dp", n.joined)
	n.joined++
	if out, err := exec.CommandContext(ctx, "sh", "-c", fmt.Sprintf(`set -e
ip link add %s type veth peer name %s
ip link set %s netns %d
ip link set %s netns %d`, host, eth, host, n.bridge.PID(), eth, holder.PID())).CombinedOutput(); err != nil {
		return fmt.Errorf("veth pair for %s: %w\n%s", ip, err, out)
	}
	if err := inNetNS(ctx, n.bridge.PID(), fmt.Sprintf("ip link set %s master br0; ip link set %s up", host, host)); err != nil {
		return err
	}
	return inNetNS(ctx, holder.PID(), fmt.Sprintf("ip link set lo up; ip addr add %s/24 dev %s; ip link set %s up; ip route add default dev %s", ip, eth, eth, eth))
}

func (n *network) close() { n.bridge.Stop(time.Second) }

// inNetNS runs a shell script in the network namespace of process pid.
func inNetNS(ctx context.Context, pid int, script string) error {
	if out, err := exec.CommandContext(ctx, "nsenter", fmt.Sprintf("--net=/proc/%d/ns/net", pid), "--", "sh", "-c", "set -e; "+script).CombinedOutput(); err != nil {
		return fmt.Errorf("in the network namespace of %d: %s: %w\n%s", pid, script, err, out)
	}
	return nil
}

// waitNetNS waits until the holder's unshare has made its network namespace.
func waitNetNS(ctx context.Context, holder *proc.Process) error {
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return err
	}
	for {
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", holder.PID())); err == nil && ns != self {
			return nil
		}
		if err := holder.Exited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
