package scenarios

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// A pod of the basic installation run as real processes: its network namespace (with an
// address on the pod network, as a pod IP), and an /etc of its own holding the hosts file that
// stands in for cluster DNS and every mounted Secret and ConfigMap at its mount path, so that
// the container's args run unchanged.
type pod struct {
	name   string // Deployment name
	ip     string
	holder *proc.Process // keeps the network namespace alive
	etc    string
}

// Pod addresses on the pod network (a bridge in a network namespace of its own), like pod IPs.
const (
	kcpPodIP       = "10.96.0.10"
	proxyPodIP     = "10.96.0.20"
	rootProxyPodIP = "10.96.0.30"
	shardPodIP     = "10.96.0.40" // Shard shard-x of testRealKCPInKCP
)

// testRealKCP runs the containers of the composed Deployments root-kcp (with an etcd beside
// it, at the example's etcd address), root-proxy and frontproxy-front-proxy as real processes
// from KCP_BIN, with exactly their rendered command and args, and checks with the admin
// kubeconfig from the Kubeconfig XR's Secret, through the front-proxy at the URL the
// kubeconfig names, that kcp serves workspace root and creates a workspace. Then
// provider-kubernetes reaches root-proxy with the RootShard's own credentials, and
// testRealKCPInKCP checks what the function composes inside kcp against kcp itself.
func testRealKCP(ctx context.Context, t *testing.T, e *env, binDir string) {
	for _, tool := range []string{"ip", "unshare", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("KCP_BIN is set but %s (util-linux, iproute2) is missing: %v", tool, err)
		}
	}
	for _, b := range []string{"kcp", "kcp-front-proxy"} {
		if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
			t.Fatalf("KCP_BIN=%s: %v", binDir, err)
		}
	}
	dir := filepath.Join(e.Dir, "real-kcp")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}

	// Every pod resolves the Services to the pod IPs, and api.example.com to the front-proxy.
	services := map[string]string{
		"root-kcp.kcp.svc.cluster.local":               kcpPodIP,
		"root-proxy.kcp.svc.cluster.local":             rootProxyPodIP,
		"frontproxy-front-proxy.kcp.svc.cluster.local": proxyPodIP,
		"shard-x-shard-kcp.kcp.svc.cluster.local":      shardPodIP,
		"etcd.kcp.svc.cluster.local":                   kcpPodIP,
		"api.example.com":                              proxyPodIP,
	}
	kcpPod := newPod(ctx, t, e, dir, "root-kcp", kcpPodIP, services)
	rootProxyPod := newPod(ctx, t, e, dir, "root-proxy", rootProxyPodIP, services)
	proxyPod := newPod(ctx, t, e, dir, "frontproxy-front-proxy", proxyPodIP, services)
	network := newPodNetwork(ctx, t, dir)
	for _, p := range []*pod{kcpPod, rootProxyPod, proxyPod} {
		network.join(ctx, t, p)
	}

	etcdBin := os.Getenv("E2E_ETCD")
	if _, err := kcpPod.runIn(t, e, dir, dir, "etcd", etcdBin,
		"--name=kcp-etcd", "--data-dir="+filepath.Join(dir, "etcd-data"),
		"--listen-client-urls=http://0.0.0.0:2379", "--advertise-client-urls=http://"+kcpPodIP+":2379",
		"--listen-peer-urls=http://127.0.0.1:2380", "--initial-advertise-peer-urls=http://127.0.0.1:2380",
		"--initial-cluster=kcp-etcd=http://127.0.0.1:2380", "--listen-metrics-urls=http://127.0.0.1:2381", "--unsafe-no-fsync"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*pod{kcpPod, rootProxyPod, proxyPod} {
		p.start(ctx, t, e, dir, binDir)
	}

	// The admin kubeconfig, exactly as the Kubeconfig XR wrote it.
	admin := proxyPod.kubectl(t, dir, "kcp-admin", secretKey(ctx, t, e, kubeconfigName, "kubeconfig"))

	start := time.Now()
	if err := e.Eventually(ctx, 3*time.Minute, "kcp serves workspace root through the front-proxy", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspaces")
		return err == nil, out, nil
	}); err != nil {
		t.Fatalf("%v\nlogs: %s", err, dir)
	}
	e.Step("RealKCP: kcp answered through the front-proxy %.1fs after start", time.Since(start).Seconds())

	ws := `apiVersion: tenancy.kcp.io/v1alpha1
kind: Workspace
metadata: {name: e2e}
`
	if out, err := admin(ctx, ws, "create", "-f", "-"); err != nil {
		t.Fatalf("create workspace e2e through the front-proxy: %v\n%s", err, out)
	}
	if err := e.Eventually(ctx, 2*time.Minute, "workspace e2e Ready", func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", "get", "workspace", "e2e", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Ready", out, nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err := admin(ctx, "", "auth", "whoami")
	if err != nil || !strings.Contains(out, "kcp-admin") {
		t.Errorf("kubectl auth whoami through the front-proxy: %v\n%s", err, out)
	}
	e.Step("RealKCP: workspace e2e Ready, created through the front-proxy with the generated kubeconfig")

	// provider-kubernetes reaches root-proxy at the name the RootShard's access kubeconfig
	// names, as it would through the Service.
	stopRelay, err := e.ReachFromProviders(stack.KCPProxyHost(basicNamespace, "root"), rootProxyPod.netns(), rootProxyPodIP+":6443")
	if err != nil {
		t.Fatal(err)
	}
	defer stopRelay()
	testRealKCPInKCP(ctx, t, e, realKCP{dir: dir, bin: binDir, services: services, network: network, proxy: proxyPod, admin: admin})
}

// realKCP is what testRealKCP runs, for testRealKCPInKCP.
type realKCP struct {
	dir, bin string
	services map[string]string // the pods' hosts entries
	network  *podNetwork
	proxy    *pod        // the front-proxy's pod, where kubectl runs
	admin    kubectlFunc // kubectl with the admin kubeconfig, through the front-proxy
}

// start runs the pod's container from binDir, with its rendered command and args.
func (p *pod) start(ctx context.Context, t *testing.T, e *env, dir, binDir string) *proc.Process {
	t.Helper()
	command, args := p.container(ctx, t, e)
	bin := filepath.Join(binDir, filepath.Base(command[0]))
	wd := filepath.Join(dir, p.name+"-workdir")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	pr, err := p.runIn(t, e, dir, wd, p.name, bin, append(command[1:], args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RealKCP: started %s %s %s", p.name, bin, strings.Join(append(command[1:], args...), " "))
	return pr
}

// podNetwork is a bridge in a network namespace of its own that pods join, each with its pod
// IP and a default route (kcp picks its advertise address from it).
type podNetwork struct {
	bridge *proc.Process
	joined int
}

func newPodNetwork(ctx context.Context, t *testing.T, dir string) *podNetwork {
	t.Helper()
	bridge, err := proc.Start(filepath.Join(dir, "pod-network.log"), nil, "unshare", "-n", "sleep", "infinity")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bridge.Stop(time.Second) })
	waitNetNS(ctx, t, bridge)
	n := &podNetwork{bridge: bridge}
	inNetNS(ctx, t, bridge.PID(), "ip link add br0 type bridge; ip link set br0 up")
	return n
}

// join connects the pod's network namespace to the bridge.
func (n *podNetwork) join(ctx context.Context, t *testing.T, p *pod) {
	t.Helper()
	waitNetNS(ctx, t, p.holder)
	host, eth := fmt.Sprintf("kcpe2e%dh", n.joined), fmt.Sprintf("kcpe2e%dp", n.joined)
	n.joined++
	if out, err := exec.CommandContext(ctx, "sh", "-c", fmt.Sprintf(`set -e
ip link add %s type veth peer name %s
ip link set %s netns %d
ip link set %s netns %d`, host, eth, host, n.bridge.PID(), eth, p.holder.PID())).CombinedOutput(); err != nil {
		t.Fatalf("veth of pod %s: %v\n%s", p.name, err, out)
	}
	inNetNS(ctx, t, n.bridge.PID(), fmt.Sprintf("ip link set %s master br0; ip link set %s up", host, host))
	inNetNS(ctx, t, p.holder.PID(), fmt.Sprintf("ip link set lo up; ip addr add %s/24 dev %s; ip link set %s up; ip route add default dev %s", p.ip, eth, eth, eth))
}

// inNetNS runs a shell script in the network namespace of process pid.
func inNetNS(ctx context.Context, t *testing.T, pid int, script string) {
	t.Helper()
	if out, err := exec.CommandContext(ctx, "nsenter", fmt.Sprintf("--net=/proc/%d/ns/net", pid), "--", "sh", "-c", "set -e; "+script).CombinedOutput(); err != nil {
		t.Fatalf("pod network: %s: %v\n%s", script, err, out)
	}
}

// waitNetNS waits until the holder's unshare has made its network namespace.
func waitNetNS(ctx context.Context, t *testing.T, holder *proc.Process) {
	t.Helper()
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", holder.PID())); err == nil && ns != self {
			return
		}
		if err := holder.Exited(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// secretKey is one key of a Secret in the basic installation's namespace.
func secretKey(ctx context.Context, t *testing.T, e *env, secret, key string) []byte {
	t.Helper()
	data, err := e.SecretData(ctx, basicNamespace, secret)
	if err != nil {
		t.Fatal(err)
	}
	if len(data[key]) == 0 {
		t.Fatalf("Secret %s/%s has no %s", basicNamespace, secret, key)
	}
	return data[key]
}

// kubectl returns a kubectl inside the pod using the kubeconfig, saved as dir/<name>.kubeconfig.
func (p *pod) kubectl(t *testing.T, dir, name string, kubeconfig []byte) func(ctx context.Context, stdin string, args ...string) (string, error) {
	t.Helper()
	path := filepath.Join(dir, name+".kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, stdin string, args ...string) (string, error) {
		cmd := p.command(ctx, os.Getenv("E2E_KUBECTL"), append([]string{"--kubeconfig=" + path}, args...)...)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// newPod makes a network namespace and an /etc for the Deployment's pod: the hosts file, and
// every Secret and ConfigMap the pod mounts, at its mount path.
func newPod(ctx context.Context, t *testing.T, e *env, dir, name, ip string, hosts map[string]string) *pod {
	t.Helper()
	p := &pod{name: name, ip: ip, etc: filepath.Join(dir, name+"-etc")}
	holder, err := proc.Start(filepath.Join(dir, name+"-netns.log"), nil, "unshare", "-n", "sleep", "infinity")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Stop(time.Second) })
	p.holder = holder

	var hostsFile strings.Builder
	hostsFile.WriteString("127.0.0.1 localhost\n")
	for h, addr := range hosts {
		fmt.Fprintf(&hostsFile, "%s %s\n", addr, h)
	}
	files := map[string]string{
		"hosts":         hostsFile.String(),
		"nsswitch.conf": "hosts: files\n",
		"resolv.conf":   "",
		"passwd":        "root:x:0:0:root:/root:/bin/sh\n",
		"group":         "root:x:0:\n",
	}
	for f, content := range files {
		if err := writeFile(filepath.Join(p.etc, f), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}

	var dep deployment
	if err := e.GetJSON(ctx, &dep, "deployment", "-n", basicNamespace, name); err != nil {
		t.Fatal(err)
	}
	for _, m := range dep.Spec.Template.Spec.Containers[0].VolumeMounts {
		rel, ok := strings.CutPrefix(m.MountPath, "/etc/")
		if !ok {
			t.Fatalf("Deployment %s mounts %s outside /etc: the harness only replaces /etc", name, m.MountPath)
		}
		for _, v := range dep.Spec.Template.Spec.Volumes {
			if v.Name != m.Name {
				continue
			}
			var data map[string][]byte
			switch {
			case v.Secret != nil:
				data, err = e.SecretData(ctx, basicNamespace, v.Secret.SecretName)
			case v.ConfigMap != nil:
				var cm struct {
					Data map[string]string `json:"data"`
				}
				err = e.GetJSON(ctx, &cm, "configmap", "-n", basicNamespace, v.ConfigMap.Name)
				data = map[string][]byte{}
				for k, s := range cm.Data {
					data[k] = []byte(s)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, b := range data {
				if err := writeFile(filepath.Join(p.etc, rel, k), b); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return p
}

// container returns the command and args of the Deployment's first container.
func (p *pod) container(ctx context.Context, t *testing.T, e *env) (command, args []string) {
	t.Helper()
	var dep deployment
	if err := e.GetJSON(ctx, &dep, "deployment", "-n", basicNamespace, p.name); err != nil {
		t.Fatal(err)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if len(c.Command) == 0 {
		t.Fatalf("Deployment %s: container %s has no command", p.name, c.Name)
	}
	return c.Command, c.Args
}

// netns is the file of the pod's network namespace.
func (p *pod) netns() string { return fmt.Sprintf("/proc/%d/ns/net", p.holder.PID()) }

// command is a command inside the pod: its network namespace and, in a private mount
// namespace, its /etc.
func (p *pod) command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "nsenter", append([]string{fmt.Sprintf("--net=/proc/%d/ns/net", p.holder.PID()), "--",
		"unshare", "-m", "--propagation", "private", "sh", "-c", `mount --bind "$0" /etc && exec "$@"`, p.etc, bin}, args...)...)
}

// runIn starts a long-running process in the pod, working directory wd, log in dir.
func (p *pod) runIn(t *testing.T, e *env, dir, wd, name, bin string, args ...string) (*proc.Process, error) {
	cmd := p.command(context.Background(), bin, args...)
	pr, err := proc.StartIn(filepath.Join(dir, name+".log"), wd, nil, cmd.Path, cmd.Args[1:]...)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { pr.Stop(10 * time.Second) })
	return pr, nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
