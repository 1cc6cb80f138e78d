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
	"sync"
	"syscall"
	"time"
)

// Process is a started child process.
type Process struct {
	// Name is the binary's base name, for messages.
	Name string
	// Log is the file receiving its standard output and error.
	Log string

	// dir, env, bin and args are what it was started with, to restart it.
	dir, bin  string
	env, args []string
	mu        sync.Mutex // Guards run and down: Outage replaces run.
	run       *run
	// down is set while an Outage keeps the process down on purpose.
	down bool
}

// run is one start of the child: done closes when it ends, after err is set.
type run struct {
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
	p := &Process{Name: filepath.Base(bin), Log: logPath, dir: dir, bin: bin, env: env, args: args}
	return p, p.launch()
}

// launch starts the child. The caller holds mu, or no one else knows p yet.
func (p *Process) launch() error {
	f, err := os.OpenFile(p.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = p.dir
	cmd.Env = append(append(os.Environ(), NoProxy...), p.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return fmt.Errorf("start %s: %w", p.bin, err)
	}
	r := &run{cmd: cmd, done: make(chan struct{})}
	p.run = r
	go func() {
		r.err = cmd.Wait()
		_ = f.Close()
		close(r.done)
	}()
	return nil
}

// Restart kills the process with SIGKILL, as a crash or an evicted pod would end it, keeps it
// down for downtime, and starts it again with the same command line, log and environment.
func (p *Process) Restart(downtime time.Duration) error {
	return p.Outage(func() { time.Sleep(downtime) })
}

// Outage kills the process with SIGKILL, runs during while it is down, and starts it again
// with the same command line, log and environment once during returns: an outage as long as
// the caller needs to act on the rest of the system. Exited reports nothing meanwhile, so
// waits elsewhere (and in during) do not mistake the fault for a failure.
func (p *Process) Outage(during func()) error {
	p.mu.Lock()
	r := p.run
	p.down = true
	p.mu.Unlock()
	_ = r.cmd.Process.Kill()
	<-r.done
	killed := time.Now()
	p.logLine(fmt.Sprintf("killed (SIGKILL) at %s", killed.Format(time.RFC3339)))
	during()
	p.logLine(fmt.Sprintf("started again after %s down", time.Since(killed).Round(time.Second)))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
	return p.launch()
}

// logLine marks an event of the harness in the process's log, so that a reader of the log
// knows why it stops and starts again.
func (p *Process) logLine(msg string) {
	f, err := os.OpenFile(p.Log, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "\n=== e2e: %s ===\n", msg)
	_ = f.Close()
}

// NoProxy clears the proxy variables of a child's environment.
var NoProxy = []string{"HTTPS_PROXY=", "HTTP_PROXY=", "https_proxy=", "http_proxy=", "NO_PROXY=", "no_proxy="}

// PID is the process id.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run.cmd.Process.Pid
}

// Exited returns an error describing the exit, with the log's last lines, if the process
// has ended, and nil while it runs.
func (p *Process) Exited() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil
	}
	select {
	case <-p.run.done:
		return fmt.Errorf("%s exited: %w; last lines of %s:\n%s", p.Name, p.run.err, p.Log, Tail(p.Log, 20))
	default:
		return nil
	}
}

// Wait waits for the process to end and returns its exit error.
func (p *Process) Wait() error {
	p.mu.Lock()
	r := p.run
	p.mu.Unlock()
	<-r.done
	return r.err
}

// Stop sends SIGTERM, then SIGKILL after grace.
func (p *Process) Stop(grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.run
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(grace):
		_ = r.cmd.Process.Kill()
		<-r.done
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
