package stack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/netns"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
)

// podNet is a network namespace of its own for a provider's process, as its pod would have:
// provider-kubernetes binds fixed ports (metrics :8080, webhooks :9443) that Crossplane's RBAC
// manager, or another provider, holds in the stack's namespace. A holder process keeps it, its
// loopback is up, and the harness forwards chosen addresses of the stack's namespace into it
// (the API server, the kcp stand-in fronts): it listens on the same address inside and
// connects to it outside, so the process reaches them at the addresses it is configured with.
type podNet struct {
	holder *proc.Process
	// ns is the namespace's file, /proc/<holder>/ns/net.
	ns string

	mu        sync.Mutex
	listeners map[string]net.Listener
}

func newPodNet(ctx context.Context, logPath string) (*podNet, error) {
	holder, err := proc.Start(logPath, nil, "unshare", "--net", "sleep", "infinity")
	if err != nil {
		return nil, err
	}
	p := &podNet{holder: holder, ns: fmt.Sprintf("/proc/%d/ns/net", holder.PID()), listeners: map[string]net.Listener{}}
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return nil, err
	}
	// unshare has run once the holder's namespace is not ours.
	for {
		if err := holder.Exited(); err != nil {
			return nil, err
		}
		if ns, err := os.Readlink(p.ns); err == nil && ns != self {
			break
		}
		select {
		case <-ctx.Done():
			holder.Stop(time.Second)
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := p.do(func() error { return cluster.LinkUp("lo") }); err != nil {
		p.close()
		return nil, fmt.Errorf("loopback of the provider's network namespace: %w", err)
	}
	return p, nil
}

// do runs f on an OS thread that has entered the namespace. Sockets keep the namespace they
// were made in, so listeners and connections made in f work from any goroutine afterwards.
func (p *podNet) do(f func() error) error { return netns.Do(p.ns, f) }

// forward makes addr (host:port of the stack's namespace) reachable at the same address inside.
// A connection accepted inside is closed at once when nothing answers outside, as a Service
// without endpoints would.
func (p *podNet) forward(addr string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.listeners[addr]; ok {
		return nil
	}
	var l net.Listener
	if err := p.do(func() (err error) {
		l, err = net.Listen("tcp", addr)
		return err
	}); err != nil {
		return err
	}
	p.listeners[addr] = l
	go netns.Serve(l, func() (net.Conn, error) { return net.DialTimeout("tcp", addr, 5*time.Second) })
	return nil
}

// sync forwards exactly the addresses in want.
func (p *podNet) sync(want []string) error {
	p.mu.Lock()
	var stale []string
	for a := range p.listeners {
		if !slices.Contains(want, a) {
			stale = append(stale, a)
		}
	}
	p.mu.Unlock()
	for _, a := range stale {
		p.unforward(a)
	}
	var errs []error
	for _, a := range want {
		errs = append(errs, p.forward(a))
	}
	return errors.Join(errs...)
}

// unforward stops forwarding addr: connecting to it inside is refused again. Connections
// already piped end when the far side closes them.
func (p *podNet) unforward(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.listeners[addr]; ok {
		_ = l.Close()
		delete(p.listeners, addr)
	}
}

// httpClient is a client whose connections start inside the namespace (for the process's
// health endpoint).
func (p *podNet) httpClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			err := p.do(func() (err error) {
				c, err = (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, addr)
				return err
			})
			return c, err
		},
	}}
}

// command wraps a command line so that it runs in the namespace.
func (p *podNet) command(command ...string) []string {
	return append([]string{"nsenter", "--net=" + p.ns, "--"}, command...)
}

func (p *podNet) close() {
	p.mu.Lock()
	for _, l := range p.listeners {
		_ = l.Close()
	}
	p.listeners = map[string]net.Listener{}
	p.mu.Unlock()
	p.holder.Stop(time.Second)
}

// forwardToPods adds addr to what every provider's network namespace reaches, now and for
// providers started later (up), or takes it away, so that connecting to it there is refused
// (!up).
func (s *Stack) forwardToPods(addr string, up bool) error {
	s.mu.Lock()
	s.podForwards = slices.DeleteFunc(s.podForwards, func(a string) bool { return a == addr })
	if up {
		s.podForwards = append(s.podForwards, addr)
	}
	s.mu.Unlock()
	if s.runtime == nil {
		return nil
	}
	s.runtime.mu.Lock()
	defer s.runtime.mu.Unlock()
	var errs []error
	for _, p := range s.runtime.providers {
		if up {
			errs = append(errs, p.net.forward(addr))
		} else {
			p.net.unforward(addr)
		}
	}
	return errors.Join(errs...)
}

// newProviderNet makes a provider's network namespace reaching the API server and every
// address forwardToPods named.
func (s *Stack) newProviderNet(ctx context.Context, name string) (*podNet, error) {
	p, err := newPodNet(ctx, filepath.Join(s.Dir, "providers", name, "netns.log"))
	if err != nil {
		return nil, err
	}
	if err := s.syncPodNet(p); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// syncPodNet makes a provider's network namespace reach the API server and exactly the
// addresses forwardToPods names now. The reconcile loop calls it for every running provider,
// so one that started while a front started or stopped catches up.
func (s *Stack) syncPodNet(p *podNet) error {
	api, err := hostPort(s.URL)
	if err != nil {
		return err
	}
	// Held throughout, so that forwardToPods cannot change the list halfway.
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := p.sync(append([]string{api}, s.podForwards...)); err != nil {
		return fmt.Errorf("forwarding into the provider's network namespace: %w", err)
	}
	return nil
}

// hostPort is the host:port of an https:// URL.
func hostPort(url string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	return req.URL.Host, nil
}
