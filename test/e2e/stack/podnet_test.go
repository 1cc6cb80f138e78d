package stack

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestPodNet: inside a provider's network namespace, a forwarded address of the stack's
// namespace answers, and one that is not forwarded does not.
func TestPodNet(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace needs root")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "outside") }))
	defer srv.Close()
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer other.Close()

	p, err := newPodNet(t.Context(), filepath.Join(t.TempDir(), "netns.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	addr, _ := hostPort(srv.URL)
	if err := p.forward(addr); err != nil {
		t.Fatal(err)
	}
	c := p.httpClient()
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("forwarded %s: %v", addr, err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(b) != "outside" {
		t.Errorf("forwarded %s answered %q", addr, b)
	}
	if resp, err := c.Get(other.URL); err == nil {
		_ = resp.Body.Close()
		t.Errorf("%s, not forwarded, answered inside the namespace", other.URL)
	}
}
