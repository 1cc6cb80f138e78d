// Package netns runs Go code inside another network namespace: the e2e harness gives
// providers and real kcp pods namespaces of their own and reaches into them.
package netns

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"time"
)

// Do runs f on an OS thread that has entered the network namespace of file ns
// (/proc/<pid>/ns/net). Sockets keep the namespace they were made in, so listeners and
// connections made in f work from any goroutine afterwards.
func Do(ns string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		// If returning to the original namespace fails, the thread stays locked and ends with
		// this goroutine, so no other goroutine ever runs in the wrong namespace.
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer self.Close() //nolint:errcheck // Read-only.
		target, err := os.Open(ns)
		if err != nil {
			errc <- err
			return
		}
		defer target.Close() //nolint:errcheck // Read-only.
		if _, _, e := syscall.RawSyscall(sysSetns, target.Fd(), syscall.CLONE_NEWNET, 0); e != 0 {
			errc <- fmt.Errorf("setns %s: %w", ns, e)
			return
		}
		ferr := f()
		if _, _, e := syscall.RawSyscall(sysSetns, self.Fd(), syscall.CLONE_NEWNET, 0); e != 0 {
			errc <- errors.Join(ferr, fmt.Errorf("setns back: %w", e))
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// Dial connects to addr from inside the network namespace of file ns.
func Dial(ns, addr string) (net.Conn, error) {
	var c net.Conn
	err := Do(ns, func() (err error) {
		c, err = net.DialTimeout("tcp", addr, 5*time.Second)
		return err
	})
	return c, err
}

// Serve accepts connections on l until it is closed, and pipes each to what dial connects.
func Serve(l net.Listener, dial func() (net.Conn, error)) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go Pipe(in, dial)
	}
}

// Pipe connects in to what dial reaches and copies both ways until either side ends. A
// connection is closed at once when nothing answers, as a Service without endpoints would.
func Pipe(in net.Conn, dial func() (net.Conn, error)) {
	defer in.Close() //nolint:errcheck // Done with it.
	out, err := dial()
	if err != nil {
		return
	}
	defer out.Close() //nolint:errcheck // Done with it.
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if c, ok := dst.(*net.TCPConn); ok {
			_ = c.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(out, in)
	go cp(in, out)
	<-done
	<-done
}
