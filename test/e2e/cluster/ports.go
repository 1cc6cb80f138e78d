package cluster

import (
	"net"
	"sync"
)

// handedOut are the ports FreePorts has returned in this process. Between FreePorts and the
// server binding its port, the port is free again: without this, two servers started side by
// side (the kcp stand-in's backends, the two stacks) can be handed the same one, and the
// second fails with "address already in use".
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreePorts returns n distinct free TCP ports on 127.0.0.1, none of them returned before in
// this process. Inside a private network namespace nothing else competes for them.
func FreePorts(n int) ([]int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	ports := make([]int, 0, n)
	// Every listener stays open until all n are chosen, so the kernel never offers one
	// twice; the ones already handed out are skipped, and stay open meanwhile too.
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		port := l.Addr().(*net.TCPAddr).Port
		if handedOut.ports[port] {
			continue
		}
		handedOut.ports[port] = true
		ports = append(ports, port)
	}
	return ports, nil
}
