package cluster

import (
	"sync"
	"testing"
)

// TestFreePortsNeverTwice asks FreePorts for ports one at a time, as each server of the
// stacks does before it binds its port, and then from many goroutines at once, as the kcp
// stand-in's backends do, and fails if any port is handed out twice: the second server to
// bind it would fail with "address already in use". A port is free again as soon as
// FreePorts returns it, so without its memory of what it returned, a thousand calls get some
// port twice from the kernel.
func TestFreePortsNeverTwice(t *testing.T) {
	seen := map[int]int{}
	for i := range 1000 {
		ports, err := FreePorts(1)
		if err != nil {
			t.Fatal(err)
		}
		if j, ok := seen[ports[0]]; ok {
			t.Fatalf("port %d handed out by call %d and again by call %d", ports[0], j, i)
		}
		seen[ports[0]] = i
	}

	const callers, each = 16, 8
	got := make([][]int, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			ports, err := FreePorts(each)
			if err != nil {
				t.Error(err)
			}
			got[i] = ports
		})
	}
	wg.Wait()
	for i, ports := range got {
		if len(ports) != each {
			t.Errorf("caller %d got %d ports, want %d", i, len(ports), each)
		}
		for _, p := range ports {
			if _, ok := seen[p]; ok {
				t.Errorf("port %d handed to caller %d, and earlier to another", p, i)
			}
			seen[p] = i
		}
	}
}
