package realkcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/netns"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Pod is one pod of the installation run as real processes: a network namespace of its own
// (holder keeps it) with the pod IP on the pod network, and a directory the processes see as
// /etc, holding the hosts file and every Secret and ConfigMap the pod mounts under /etc. Every
// other mount path gets an empty directory of its own.
type Pod struct {
	Name string
	IP   string

	dir    string // the pod's directory: etc/, mounts/, logs
	holder *proc.Process
	// mounts are the mount paths outside /etc, each bound to dir/mounts/<path>.
	mounts []string
	procs  []*proc.Process
	// ports are the listeners of servePorts.
	ports []net.Listener
}

// etc is the directory the pod's processes see as /etc.
func (p *Pod) etc() string { return filepath.Join(p.dir, "etc") }

// MountDir is the directory of this machine the pod's processes see at path, a mount path
// outside /etc (an emptyDir or a claim): what they write there is read back here.
func (p *Pod) MountDir(path string) string { return filepath.Join(p.dir, "mounts", path) }

// writeVolumes writes what the container mounts: the files of each Secret and ConfigMap volume
// under /etc at its mount path, an empty directory for every other mount.
func (p *Pod) writeVolumes(ctx context.Context, r Reader, namespace string, spec corev1.PodSpec, c corev1.Container) error {
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if i < 0 {
			return fmt.Errorf("pod %s: mount %s names no volume %s", p.Name, m.MountPath, m.Name)
		}
		v := spec.Volumes[i]
		rel, underEtc := strings.CutPrefix(m.MountPath, "/etc/")
		if !underEtc {
			if v.Secret != nil || v.ConfigMap != nil {
				return fmt.Errorf("pod %s mounts %s at %s, outside /etc: the harness only provides files under /etc", p.Name, m.Name, m.MountPath)
			}
			p.mounts = append(p.mounts, m.MountPath)
			if err := os.MkdirAll(filepath.Join(p.dir, "mounts", m.MountPath), 0o755); err != nil {
				return err
			}
			// A top-level mount path this machine lacks (a backup claim at /backup) is made
			// here, empty, as its mount point: a tmpfs on / would hide the whole machine.
			if top := "/" + strings.Split(strings.TrimPrefix(m.MountPath, "/"), "/")[0]; top != "/" {
				if err := os.MkdirAll(top, 0o755); err != nil {
					return err
				}
			}
			continue
		}
		var data map[string][]byte
		var items []corev1.KeyToPath
		switch {
		case v.Secret != nil:
			d, err := r.SecretData(ctx, namespace, v.Secret.SecretName)
			if err != nil {
				return fmt.Errorf("pod %s: %w", p.Name, err)
			}
			data, items = d, v.Secret.Items
		case v.ConfigMap != nil:
			var cm corev1.ConfigMap
			if err := r.GetJSON(ctx, &cm, "configmap", "-n", namespace, v.ConfigMap.Name); err != nil {
				return fmt.Errorf("pod %s: %w", p.Name, err)
			}
			data = map[string][]byte{}
			for k, s := range cm.Data {
				data[k] = []byte(s)
			}
			maps.Copy(data, cm.BinaryData)
			items = v.ConfigMap.Items
		default:
			if err := os.MkdirAll(filepath.Join(p.etc(), rel), 0o755); err != nil {
				return err
			}
			continue
		}
		paths := map[string]string{} // key -> file under the mount
		for k := range data {
			paths[k] = k
		}
		if len(items) > 0 {
			paths = map[string]string{}
			for _, it := range items {
				paths[it.Key] = it.Path
			}
		}
		for k, path := range paths {
			if err := writeFile(filepath.Join(p.etc(), rel, path), data[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeHosts replaces the pod's hosts file in one rename, so a reader never sees half a file;
// Go's resolver notices the change within seconds.
func (p *Pod) writeHosts(hosts map[string]string) error {
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n")
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		fmt.Fprintf(&b, "%s %s\n", hosts[name], name)
	}
	tmp := filepath.Join(p.etc(), ".hosts.tmp")
	if err := writeFile(tmp, []byte(b.String())); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(p.etc(), "hosts"))
}

// Command is bin with args run inside the pod: in its network namespace and, in a private mount
// namespace, with its /etc and its other mounts.
func (p *Pod) Command(ctx context.Context, env []string, bin string, args ...string) *exec.Cmd {
	script := `mount --bind "$0" /etc`
	// A mount path that does not exist on this machine (/var/log/kcp/audit) gets a tmpfs on
	// its nearest ancestor that does (/var/log), once, so that it can be made there.
	for _, a := range tmpfsAncestors(p.mounts) {
		script += fmt.Sprintf(` && mount -t tmpfs tmpfs %q`, a)
	}
	for _, m := range p.mounts {
		script += fmt.Sprintf(` && mkdir -p %[1]q && mount --bind %[2]q %[1]q`, m, filepath.Join(p.dir, "mounts", m))
	}
	script += ` && exec "$@"`
	cmd := exec.CommandContext(ctx, "nsenter", append([]string{fmt.Sprintf("--net=/proc/%d/ns/net", p.holder.PID()), "--",
		"unshare", "-m", "--propagation", "private", "sh", "-c", script, p.etc(), bin}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// tmpfsAncestors are the nearest existing ancestors of the mount paths that do not exist on
// this machine, shallowest first, leaving out any under another: a tmpfs there hides what the
// machine has below it, in the pod's private mount namespace only.
func tmpfsAncestors(mounts []string) []string {
	var out []string
	for _, m := range mounts {
		if _, err := os.Stat(m); err == nil {
			continue
		}
		a := filepath.Dir(m)
		for a != "/" {
			if _, err := os.Stat(a); err == nil {
				break
			}
			a = filepath.Dir(a)
		}
		out = append(out, a)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(slices.Clone(out), func(a string) bool {
		return slices.ContainsFunc(out, func(b string) bool { return b != a && strings.HasPrefix(a, strings.TrimSuffix(b, "/")+"/") })
	})
}

// start runs a long-lived process in the pod, its log at <pod dir>/<name>.log; Stop stops it.
func (p *Pod) start(name string, env []string, bin string, args ...string) error {
	cmd := p.Command(context.Background(), nil, bin, args...)
	wd := filepath.Join(p.dir, "workdir")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	pr, err := proc.StartIn(filepath.Join(p.dir, name+".log"), wd, env, cmd.Path, cmd.Args[1:]...)
	if err != nil {
		return err
	}
	p.procs = append(p.procs, pr)
	return nil
}

// Stop stops the pod's processes, as the kubelet does when its Deployment is gone.
func (p *Pod) Stop() {
	for _, pr := range p.procs {
		pr.Stop(10 * time.Second)
	}
}

// Outage kills the pod's processes, runs during while they are down, and starts them again
// with the same command lines and the pod's files as they are then, as the kubelet restarts a
// pod's containers: an operator's restore runs in during.
func (p *Pod) Outage(during func()) error {
	return outage(p.procs, during)
}

// Outage keeps every one of pods down while during runs, and starts them again (Pod.Outage):
// kcp's pods around a restore of their etcd.
func Outage(pods []*Pod, during func()) error {
	if len(pods) == 0 {
		during()
		return nil
	}
	var inner error
	err := pods[0].Outage(func() { inner = Outage(pods[1:], during) })
	return errors.Join(inner, err)
}

// outage keeps every one of procs down while during runs.
func outage(procs []*proc.Process, during func()) error {
	if len(procs) == 0 {
		during()
		return nil
	}
	var inner error
	err := procs[0].Outage(func() { inner = outage(procs[1:], during) })
	return errors.Join(inner, err)
}

// Exited returns an error once any of the pod's processes has ended.
func (p *Pod) Exited() error {
	for _, pr := range p.procs {
		if err := pr.Exited(); err != nil {
			return fmt.Errorf("pod %s: %w (log: %s)", p.Name, err, p.dir)
		}
	}
	return nil
}

// servePorts makes each port of the Service whose target port differs (a LoadBalancer's 443
// in front of kcp's 6443) answer at the pod IP, relayed to the target port inside the pod, as
// the Service would.
func (p *Pod) servePorts(s corev1.Service) error {
	for _, sp := range s.Spec.Ports {
		target := sp.TargetPort.IntValue()
		if target == 0 || target == int(sp.Port) {
			continue
		}
		var l net.Listener
		if err := netns.Do(p.NetNS(), func() (err error) {
			l, err = net.Listen("tcp", fmt.Sprintf(":%d", sp.Port))
			return err
		}); err != nil {
			return fmt.Errorf("pod %s: port %d of Service %s: %w", p.Name, sp.Port, s.Name, err)
		}
		p.ports = append(p.ports, l)
		go netns.Serve(l, func() (net.Conn, error) { return netns.Dial(p.NetNS(), fmt.Sprintf("127.0.0.1:%d", target)) })
	}
	return nil
}

func (p *Pod) close() {
	for _, l := range p.ports {
		_ = l.Close()
	}
	p.Stop()
	p.holder.Stop(time.Second)
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// NetNS is the file of the pod's network namespace, /proc/<pid>/ns/net.
func (p *Pod) NetNS() string { return fmt.Sprintf("/proc/%d/ns/net", p.holder.PID()) }

// Dir is the pod's directory: its /etc, mounts, and a log per process (<name>.log).
func (p *Pod) Dir() string { return p.dir }
