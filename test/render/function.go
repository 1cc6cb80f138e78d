package render

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Function is a running composition function server that render dials.
type Function struct {
	// Address is host:port of the server.
	Address string

	cmd  *exec.Cmd
	logs *syncBuffer
	done chan struct{}
	err  error
}

// StartFunction runs binary on a free loopback port and waits until it accepts connections.
// Its metrics server is disabled: it would bind :8080 and clash with any other copy.
func StartFunction(ctx context.Context, binary string) (*Function, error) {
	var lastErr error
	// Another process can take the port between choosing and binding it; try again then.
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		f := &Function{Address: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), logs: &syncBuffer{}, done: make(chan struct{})}
		f.cmd = exec.Command(binary, "--insecure", "--address="+f.Address, "--metrics-address=")
		f.cmd.Stdout, f.cmd.Stderr = f.logs, f.logs
		if err := f.cmd.Start(); err != nil {
			return nil, fmt.Errorf("cannot start %s: %w", binary, err)
		}
		go func() { f.err = f.cmd.Wait(); close(f.done) }()
		if lastErr = f.waitReady(ctx, 15*time.Second); lastErr == nil {
			return f, nil
		}
		f.Stop()
		if !strings.Contains(f.logs.String(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

func (f *Function) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", f.Address, time.Second)
		if err == nil {
			return c.Close()
		}
		select {
		case <-f.done:
			return fmt.Errorf("function %s exited before listening on %s (%w): %s", f.cmd.Path, f.Address, f.err, f.logs.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("function %s is not listening on %s after %s: %s", f.cmd.Path, f.Address, timeout, f.logs.String())
		}
	}
}

// Stop kills the server and waits for it to exit.
func (f *Function) Stop() {
	select {
	case <-f.done:
		return
	default:
	}
	_ = f.cmd.Process.Kill()
	<-f.done
}

// Logs returns what the server printed so far.
func (f *Function) Logs() string { return f.logs.String() }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close() //nolint:errcheck // Only its port is needed.
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer safe for the writer goroutines exec starts.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
