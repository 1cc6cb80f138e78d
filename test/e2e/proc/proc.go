// Package proc runs the long-lived processes of an end-to-end control plane (etcd,
// kube-apiserver, Crossplane, cert-manager, the function): output to a log file, killed with
// the process that started them, stopped politely.
package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Process is a started child process.
type Process struct {
	// Name is the binary's base name, for messages.
	Name string
	// Log is the file receiving its standard output and error.
	Log string

	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Start runs bin with args, standard output and error appended to logPath, and env added to
// this process's environment (proxy variables are cleared: nothing here may leave the
// machine). The child gets SIGKILL if the thread that started it dies, so a crashed or killed
// test never leaves servers behind.
func Start(logPath string, env []string, bin string, args ...string) (*Process, error) {
	return StartIn(logPath, "", env, bin, args...)
}

// StartIn is Start with working directory dir (empty: this process's).
func StartIn(logPath, dir string, env []string, bin string, args ...string) (*Process, error) {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), NoProxy...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &Process{Name: filepath.Base(bin), Log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	return p, nil
}

// NoProxy clears the proxy variables of a child's environment.
var NoProxy = []string{"HTTPS_PROXY=", "HTTP_PROXY=", "https_proxy=", "http_proxy=", "NO_PROXY=", "no_proxy="}

// PID is the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited returns an error describing the exit, with the log's last lines, if the process
// has ended, and nil while it runs.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v; last lines of %s:\n%s", p.Name, p.err, p.Log, Tail(p.Log, 20))
	default:
		return nil
	}
}

// Wait waits for the process to end and returns its exit error.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Stop sends SIGTERM, then SIGKILL after grace.
func (p *Process) Stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Tail returns the last n lines of a file.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
