// Package cluster runs a throwaway Kubernetes control plane (etcd, kube-apiserver and, when
// asked, kube-controller-manager; no kubelet) for end-to-end tests, inside a private network namespace that holds
// only a loopback interface. Nothing it starts can be reached from, or reach, another host.
//
// Use it from a test package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cluster.RunInNetNS(m)) }
//
//	func TestSomething(t *testing.T) {
//		c := cluster.Start(t, cluster.FromEnv(t))
//		out, err := c.Kubectl(ctx, nil, "get", "namespaces")
//	}
package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"unsafe"
)

// netnsEnv marks the re-executed test binary that runs inside the private network namespace.
const netnsEnv = "CONFIGURATION_KCP_E2E_NETNS"

// RunInNetNS runs the tests of m inside a new network namespace whose only interface is an
// up loopback. The first call re-executes the test binary with the same arguments under
// CLONE_NEWNET (plus CLONE_NEWUSER, mapping the caller to root, when not running as root) and
// returns its exit code; the re-executed binary brings lo up and runs m. The child is killed
// when this process dies, and every process the tests start inside the namespace is killed
// when the child dies (see Start), so the namespace disappears with the test run.
func RunInNetNS(m *testing.M) int { return Run(m.Run) }

// Run is RunInNetNS for any program: it re-executes the running binary inside a new network
// namespace, where it calls main and returns its exit code. Call it first thing in main or
// TestMain; code before it runs twice.
func Run(main func() int) int {
	if os.Getenv(netnsEnv) == "1" {
		if err := setupNetNS(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: cannot set up the private network namespace: %v\n", err)
			return 1
		}
		return main()
	}

	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot find the test binary to re-execute: %v\n", err)
		return 1
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNET,
		Pdeathsig:  syscall.SIGKILL,
	}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		cmd.SysProcAttr.GidMappingsEnableSetgroups = false
	}

	// Forward interrupts so that the child's cleanups run (go test -timeout sends SIGQUIT
	// to this process only).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot start the test binary in a new network namespace "+
			"(needs root or unprivileged user namespaces): %v\n", err)
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "e2e: test binary in the network namespace failed: %v\n", err)
		return 1
	}
}

// InNetNS reports whether this process is the re-executed test binary inside the private
// network namespace.
func InNetNS() bool { return os.Getenv(netnsEnv) == "1" }

// setupNetNS brings lo up and checks that it is the only interface, i.e. that this process
// really is in a fresh network namespace.
func setupNetNS() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range ifs {
		if i.Name != "lo" {
			return fmt.Errorf("interface %q present: not a fresh network namespace", i.Name)
		}
	}
	return LinkUp("lo")
}

// LinkUp sets IFF_UP on an interface of the calling thread's network namespace, like `ip link
// set <name> up`.
func LinkUp(name string) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd) //nolint:errcheck // Nothing to do about it.

	var req struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(req.name[:], name)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return fmt.Errorf("SIOCGIFFLAGS %s: %w", name, e)
	}
	req.flags |= syscall.IFF_UP
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return fmt.Errorf("SIOCSIFFLAGS %s: %w", name, e)
	}
	return nil
}
