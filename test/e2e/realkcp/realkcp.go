// Package realkcp runs the pods of a composed kcp installation as real processes, for the
// end-to-end scenarios that run with KCP_BIN: each pod in a network namespace of its own on a
// bridge (its pod IP), with a private /etc holding a hosts file that stands in for cluster DNS
// (every Service that selects the pod, and the public names the scenario maps, resolve to pod
// IPs) and every Secret and ConfigMap the pod mounts, at its mount path. The container's
// command and args run unchanged, so kcp itself checks every flag, certificate and
// kubeconfig the function composed. Needs root, ip (iproute2), unshare and nsenter
// (util-linux).
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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/netns"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// Reader reads the control plane the installation was composed in (the e2e stack).
type Reader interface {
	GetJSON(ctx context.Context, out any, args ...string) error
	SecretData(ctx context.Context, namespace, name string) (map[string][]byte, error)
}

// Options configure a Cluster.
type Options struct {
	// Dir holds each pod's directory (its /etc, logs, data).
	Dir string
	// KCPBin is the directory holding kcp, kcp-front-proxy and cache-server (kcp v0.32.3).
	KCPBin string
	// Etcd is the etcd binary that runs the installation's etcd (a managed etcd StatefulSet,
	// or an external etcd the example names).
	Etcd string
	// Kubectl is the kubectl binary Kubectl runs.
	Kubectl string
	// ClusterDomain of Service names; cluster.local when empty.
	ClusterDomain string
	Reader        Reader
}

// Cluster is the pod network and the pods running on it.
type Cluster struct {
	opts Options
	net  *network

	mu    sync.Mutex
	pods  []*Pod
	hosts map[string]string // name -> IP, in every pod's hosts file
}

// Tools are the commands a Cluster needs besides the binaries it is given.
var Tools = []string{"ip", "unshare", "nsenter", "mount"}

// New makes the pod network. Close stops every pod and the network.
func New(ctx context.Context, o Options) (*Cluster, error) {
	for _, tool := range Tools {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("running kcp needs %s (iproute2, util-linux): %w", tool, err)
		}
	}
	for _, b := range []string{"kcp", "kcp-front-proxy"} {
		if _, err := os.Stat(filepath.Join(o.KCPBin, b)); err != nil {
			return nil, fmt.Errorf("KCP_BIN=%s: %w", o.KCPBin, err)
		}
	}
	if o.ClusterDomain == "" {
		o.ClusterDomain = "cluster.local"
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	n, err := newNetwork(ctx, o.Dir)
	if err != nil {
		return nil, err
	}
	return &Cluster{opts: o, net: n, hosts: map[string]string{}}, nil
}

// Close stops every pod and the pod network.
func (c *Cluster) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.pods {
		p.close()
	}
	c.net.close()
}

// Host maps a name (a public hostname, an external etcd's address) to an IP in every pod's
// hosts file, now and for pods started later.
func (c *Cluster) Host(name, ip string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hosts[name] = ip
	return c.writeHosts()
}

// writeHosts rewrites every pod's hosts file. Call it with c.mu held.
func (c *Cluster) writeHosts() error {
	var errs []error
	for _, p := range c.pods {
		errs = append(errs, p.writeHosts(c.hosts))
	}
	return errors.Join(errs...)
}

// newPod makes a pod's network namespace on the pod network, at the next pod IP (10.96.0.10,
// .11, ...), and registers it for hosts updates.
func (c *Cluster) newPod(ctx context.Context, name string) (*Pod, error) {
	c.mu.Lock()
	ip := fmt.Sprintf("10.96.0.%d", 10+len(c.pods))
	c.mu.Unlock()
	p := &Pod{Name: name, IP: ip, dir: filepath.Join(c.opts.Dir, name)}
	if err := os.RemoveAll(p.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.etc(), 0o755); err != nil {
		return nil, err
	}
	files := map[string]string{
		"nsswitch.conf": "hosts: files\n",
		"resolv.conf":   "",
		"passwd":        "root:x:0:0:root:/root:/bin/sh\n",
		"group":         "root:x:0:\n",
	}
	for f, content := range files {
		if err := writeFile(filepath.Join(p.etc(), f), []byte(content)); err != nil {
			return nil, err
		}
	}
	holder, err := proc.Start(filepath.Join(p.dir, "netns.log"), nil, "unshare", "-n", "sleep", "infinity")
	if err != nil {
		return nil, err
	}
	p.holder = holder
	if err := c.net.join(ctx, holder, ip); err != nil {
		holder.Stop(0)
		return nil, fmt.Errorf("pod %s: %w", name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods = append(c.pods, p)
	return p, p.writeHosts(c.hosts)
}

// RunDeployment runs one pod of a Deployment: its first container, with the binary of that
// name from KCPBin (Options.Etcd for etcd). Every Service of the namespace that selects the
// pod resolves to it, in every pod.
func (c *Cluster) RunDeployment(ctx context.Context, namespace, name string) (*Pod, error) {
	return c.RunDeploymentOf(ctx, c.opts.Reader, namespace, name)
}

// RunDeploymentOf runs one pod of a Deployment of the cluster r reads, with the Secrets,
// ConfigMaps and Services of that cluster: a component placed in another cluster runs from
// what was delivered there. Every pod shares one network, as clusters whose Services are
// reachable from each other do.
func (c *Cluster) RunDeploymentOf(ctx context.Context, r Reader, namespace, name string) (*Pod, error) {
	var d appsv1.Deployment
	if err := r.GetJSON(ctx, &d, "deployment", "-n", namespace, name); err != nil {
		return nil, err
	}
	return c.runPod(ctx, r, namespace, name, d.Spec.Template)
}

// RunJob runs the pod of a Job once, to its end, and returns what it printed. Its first
// container is a shell script (command <path>/busybox sh, the script in its args, as the
// encryption rewrite Job runs it), run here by this machine's sh with Options.Kubectl first on
// PATH, in a pod of its own with the Job's mounts: the harness stands in for the kubelet and
// for the Job's images (busybox and kubectl), which are not run. The caller reports the
// outcome to the Job, as a kubelet would.
func (c *Cluster) RunJob(ctx context.Context, namespace, name string) (string, error) {
	var j batchv1.Job
	if err := c.opts.Reader.GetJSON(ctx, &j, "job", "-n", namespace, name); err != nil {
		return "", err
	}
	spec := j.Spec.Template.Spec
	if len(spec.Containers) == 0 {
		return "", fmt.Errorf("job %s/%s has no container", namespace, name)
	}
	ct := spec.Containers[0]
	if len(ct.Command) != 2 || filepath.Base(ct.Command[0]) != "busybox" || ct.Command[1] != "sh" {
		return "", fmt.Errorf("job %s/%s runs %v: the harness runs only busybox sh scripts", namespace, name, ct.Command)
	}
	// The directory busybox is copied into by an init container: the host's sh replaces it.
	ct.VolumeMounts = slices.DeleteFunc(slices.Clone(ct.VolumeMounts), func(m corev1.VolumeMount) bool {
		return m.MountPath == filepath.Dir(ct.Command[0])
	})
	p, err := c.newPod(ctx, name)
	if err != nil {
		return "", err
	}
	if err := p.writeVolumes(ctx, c.opts.Reader, namespace, spec, ct); err != nil {
		return "", err
	}
	env := []string{"PATH=" + filepath.Dir(c.opts.Kubectl) + ":/usr/local/bin:/usr/bin:/bin"}
	for _, e := range ct.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	out, err := p.Command(ctx, env, "sh", ct.Args...).CombinedOutput()
	return string(out), err
}

// PodOf makes a pod for spec, with every container's mounts (a claim or an emptyDir is one
// directory, whichever containers mount it), and starts nothing: the caller runs each
// container's command in it (Pod.Command), as the kubelet would run a Job's pod, init
// containers first. The harness stands in for the kubelet and the containers' images.
func (c *Cluster) PodOf(ctx context.Context, namespace, name string, spec corev1.PodSpec) (*Pod, error) {
	p, err := c.newPod(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, ct := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		if err := p.writeVolumes(ctx, c.opts.Reader, namespace, spec, ct); err != nil {
			return p, err
		}
	}
	slices.Sort(p.mounts)
	p.mounts = slices.Compact(p.mounts)
	return p, nil
}

// RunStatefulSet runs every replica of a StatefulSet (a managed etcd) as pods <name>-<i>, each
// also known by its name under the StatefulSet's governing Service.
func (c *Cluster) RunStatefulSet(ctx context.Context, namespace, name string) ([]*Pod, error) {
	var s appsv1.StatefulSet
	if err := c.opts.Reader.GetJSON(ctx, &s, "statefulset", "-n", namespace, name); err != nil {
		return nil, err
	}
	replicas := 1
	if s.Spec.Replicas != nil {
		replicas = int(*s.Spec.Replicas)
	}
	// Each replica's volume claims are volumes of its own, as their PersistentVolumes would be.
	for _, claim := range s.Spec.VolumeClaimTemplates {
		s.Spec.Template.Spec.Volumes = append(s.Spec.Template.Spec.Volumes, corev1.Volume{Name: claim.Name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	var pods []*Pod
	for i := range replicas {
		p, err := c.runPod(ctx, c.opts.Reader, namespace, fmt.Sprintf("%s-%d", name, i), s.Spec.Template, s.Spec.ServiceName)
		if err != nil {
			return pods, err
		}
		pods = append(pods, p)
	}
	return pods, nil
}

// RunEtcd runs a plain etcd pod (no TLS) reachable as host, for an installation whose
// examples name an external etcd.
func (c *Cluster) RunEtcd(ctx context.Context, host string) (*Pod, error) {
	return c.runEtcd(ctx, strings.Split(host, ".")[0], nil, host)
}

// EtcdTLS is what an etcd serving mutual TLS is given: its serving key pair, and the CA whose
// client certificates it accepts.
type EtcdTLS struct {
	CertPEM, KeyPEM, ClientCAPEM []byte
}

// RunEtcdTLS runs one etcd pod serving mutual TLS, reachable as each of hosts (the endpoints
// of an etcd cluster of the user's, which one member stands in for): a client must present a
// certificate of the client CA. Its files are <pod dir>/tls/{server.crt,server.key,client-ca.crt}.
func (c *Cluster) RunEtcdTLS(ctx context.Context, name string, t EtcdTLS, hosts ...string) (*Pod, error) {
	return c.runEtcd(ctx, name, &t, hosts...)
}

// runEtcd runs a one-member etcd pod reachable as each of hosts, serving clients over mutual
// TLS when t is set, else plain HTTP.
func (c *Cluster) runEtcd(ctx context.Context, name string, t *EtcdTLS, hosts ...string) (*Pod, error) {
	p, err := c.newPod(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, h := range hosts {
		if err := c.Host(h, p.IP); err != nil {
			return p, err
		}
	}
	scheme, serving := "http", []string(nil)
	if t != nil {
		dir := filepath.Join(p.dir, "tls")
		for f, b := range map[string][]byte{"server.crt": t.CertPEM, "server.key": t.KeyPEM, "client-ca.crt": t.ClientCAPEM} {
			if err := writeFile(filepath.Join(dir, f), b); err != nil {
				return p, err
			}
		}
		scheme, serving = "https", []string{"--cert-file=" + filepath.Join(dir, "server.crt"), "--key-file=" + filepath.Join(dir, "server.key"),
			"--trusted-ca-file=" + filepath.Join(dir, "client-ca.crt"), "--client-cert-auth=true"}
	}
	err = p.start("etcd", nil, c.opts.Etcd, append([]string{
		"--name=etcd", "--data-dir=" + filepath.Join(p.dir, "data"),
		"--listen-client-urls=" + scheme + "://0.0.0.0:2379", "--advertise-client-urls=" + scheme + "://" + p.IP + ":2379",
		"--listen-peer-urls=http://127.0.0.1:2380", "--initial-advertise-peer-urls=http://127.0.0.1:2380",
		"--initial-cluster=etcd=http://127.0.0.1:2380", "--listen-metrics-urls=http://127.0.0.1:2381", "--unsafe-no-fsync"}, serving...)...)
	return p, err
}

// runPod starts a pod from a pod template. governing is a StatefulSet's Service, under which
// the pod has a name of its own.
func (c *Cluster) runPod(ctx context.Context, r Reader, namespace, name string, tmpl corev1.PodTemplateSpec, governing ...string) (*Pod, error) {
	if len(tmpl.Spec.Containers) == 0 {
		return nil, fmt.Errorf("%s/%s has no container", namespace, name)
	}
	container := tmpl.Spec.Containers[0]
	if len(container.Command) == 0 {
		return nil, fmt.Errorf("%s/%s: container %s has no command", namespace, name, container.Name)
	}
	p, err := c.newPod(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := p.writeVolumes(ctx, r, namespace, tmpl.Spec, container); err != nil {
		return p, err
	}
	services, err := c.selecting(ctx, r, namespace, tmpl.Labels)
	if err != nil {
		return p, err
	}
	var names []string
	for _, s := range services {
		names = append(names, c.serviceDNS(s.Name, namespace)...)
		if err := p.servePorts(s); err != nil {
			return p, err
		}
	}
	for _, g := range governing {
		names = append(names, c.serviceDNS(name+"."+g, namespace)...)
	}
	c.mu.Lock()
	for _, n := range names {
		c.hosts[n] = p.IP
	}
	err = c.writeHosts()
	c.mu.Unlock()
	if err != nil {
		return p, err
	}

	bin := filepath.Join(c.opts.KCPBin, filepath.Base(container.Command[0]))
	if filepath.Base(container.Command[0]) == "etcd" {
		bin = c.opts.Etcd
	}
	if _, err := os.Stat(bin); err != nil {
		return p, fmt.Errorf("%s/%s runs %s: %w (build it from kcp's cmd/%s)", namespace, name, container.Command[0], err, filepath.Base(bin))
	}
	vars := map[string]string{}
	var env []string
	for _, e := range container.Env {
		v := e.Value
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			switch e.ValueFrom.FieldRef.FieldPath {
			case "metadata.name":
				v = name
			case "metadata.namespace":
				v = namespace
			case "status.podIP":
				v = p.IP
			}
		}
		vars[e.Name] = v
		env = append(env, e.Name+"="+v)
	}
	args := append(slices.Clone(container.Command[1:]), container.Args...)
	for i, a := range args {
		args[i] = expand(a, vars)
	}
	err = p.start(filepath.Base(bin), env, bin, args...)
	return p, err
}

// selecting are the Services of the namespace whose selector matches the pod's labels.
func (c *Cluster) selecting(ctx context.Context, r Reader, namespace string, podLabels map[string]string) ([]corev1.Service, error) {
	var l corev1.ServiceList
	if err := r.GetJSON(ctx, &l, "services", "-n", namespace); err != nil {
		return nil, err
	}
	var out []corev1.Service
	for _, s := range l.Items {
		if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(podLabels)) {
			out = append(out, s)
		}
	}
	return out, nil
}

// serviceDNS are the names a Service (or a StatefulSet pod under its Service, "<pod>.<svc>")
// has in cluster DNS.
func (c *Cluster) serviceDNS(name, namespace string) []string {
	return []string{name + "." + namespace + ".svc." + c.opts.ClusterDomain, name + "." + namespace + ".svc", name + "." + namespace}
}

// Kubectl returns kubectl with the kubeconfig (saved as <Dir>/<name>.kubeconfig), run inside
// the pod, so that it resolves names as the pods do.
func (c *Cluster) Kubectl(p *Pod, name string, kubeconfig []byte) (func(ctx context.Context, stdin string, args ...string) (string, error), error) {
	path := filepath.Join(c.opts.Dir, name+".kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		return nil, err
	}
	return func(ctx context.Context, stdin string, args ...string) (string, error) {
		cmd := p.Command(ctx, nil, c.opts.Kubectl, append([]string{"--kubeconfig=" + path}, args...)...)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}, nil
}

// Hosts is a copy of the names every pod resolves, and their IPs.
func (c *Cluster) Hosts() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.hosts)
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces $(VAR) with the container's environment variable, as the kubelet does in
// command and args; an unknown reference stays as written.
func expand(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := vars[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

// Listen makes a pod of its own on the pod network for a server the test runs in process (a
// stand-in for something of the user's that kcp calls, such as an identity provider), listens
// there on port, and maps each of hosts to it in every pod's hosts file. The socket belongs to
// the pod's network namespace: kcp's pods reach it, the test serves it from any goroutine.
func (c *Cluster) Listen(ctx context.Context, name string, port int, hosts ...string) (net.Listener, error) {
	p, err := c.newPod(ctx, name)
	if err != nil {
		return nil, err
	}
	var l net.Listener
	if err := netns.Do(p.NetNS(), func() (err error) {
		l, err = net.Listen("tcp", net.JoinHostPort(p.IP, strconv.Itoa(port)))
		return err
	}); err != nil {
		return nil, fmt.Errorf("pod %s: %w", name, err)
	}
	for _, h := range hosts {
		if err := c.Host(h, p.IP); err != nil {
			_ = l.Close()
			return nil, err
		}
	}
	return l, nil
}

// RunDeploymentReplica runs one more pod of a Deployment, <name>-<i>, beside the one
// RunDeployment started. Every Service selecting the pods resolves to the pod started last;
// Failover moves them.
func (c *Cluster) RunDeploymentReplica(ctx context.Context, namespace, name string, i int) (*Pod, error) {
	var d appsv1.Deployment
	if err := c.opts.Reader.GetJSON(ctx, &d, "deployment", "-n", namespace, name); err != nil {
		return nil, err
	}
	return c.runPod(ctx, c.opts.Reader, namespace, fmt.Sprintf("%s-%d", name, i), d.Spec.Template)
}

// Failover stops pod from and resolves every name that resolved to it to pod to instead, as
// a Service's endpoints follow the pods that are ready.
func (c *Cluster) Failover(from, to *Pod) error {
	from.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, ip := range c.hosts {
		if ip == from.IP {
			c.hosts[name] = to.IP
		}
	}
	return c.writeHosts()
}
