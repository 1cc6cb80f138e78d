package kcpstandin

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/certs"
)

// frontFixture is a StandIn whose backend for path "root" is an HTTP test server recording
// what reaches it; no kube-apiserver runs.
type frontFixture struct {
	s        *StandIn
	serverCA *certs.CA
	clientCA *certs.CA
	got      chan *http.Request
}

func newFrontFixture(t *testing.T) *frontFixture {
	t.Helper()
	serverCA, err := certs.NewCA("server-ca")
	if err != nil {
		t.Fatal(err)
	}
	clientCA, err := certs.NewCA("client-ca")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := serverCA.Issue(certs.Leaf{CommonName: "front", Usage: x509.ExtKeyUsageServerAuth, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	f := &frontFixture{serverCA: serverCA, clientCA: clientCA, got: make(chan *http.Request, 10)}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.got <- r.Clone(r.Context())
		_, _ = io.WriteString(w, "backend")
	}))
	t.Cleanup(upstream.Close)

	s, err := New(Options{
		Name: "test/rs", Addr: "127.0.0.1:0",
		ServingCert: serving.CertPEM, ServingKey: serving.KeyPEM, ClientCA: clientCA.PEM,
		KubeAPIServer: "unused", EtcdURL: "unused", CRDs: [][]byte{[]byte("{}")}, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.upstream = http.DefaultTransport
	u, _ := url.Parse(upstream.URL)
	b := &backend{path: "root", url: u, proxy: s.reverseProxy(u), ready: make(chan struct{})}
	close(b.ready)
	s.backends["root"] = b
	f.s = s
	return f
}

// client returns an HTTPS client trusting the front, presenting a certificate of ca with the
// given organizations (none if ca is nil).
func (f *frontFixture) client(t *testing.T, ca *certs.CA, orgs ...string) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(f.serverCA.Cert)
	conf := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if ca != nil {
		kp, err := ca.Issue(certs.Leaf{CommonName: "someone", Organization: orgs, Usage: x509.ExtKeyUsageClientAuth})
		if err != nil {
			t.Fatal(err)
		}
		c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		conf.Certificates = []tls.Certificate{c}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil, TLSClientConfig: conf}}
}

func TestFront(t *testing.T) {
	f := newFrontFixture(t)
	cases := map[string]struct {
		noCert   bool
		orgs     []string
		path     string
		header   map[string]string
		wantCode int
		// wantPath is what the backend receives; empty: nothing reaches it.
		wantPath string
	}{
		"AdminReachesBackend": {
			orgs: []string{"other", AdminGroup}, path: "/clusters/root/api/v1/namespaces?watch=true",
			wantCode: http.StatusOK, wantPath: "/api/v1/namespaces",
		},
		"BareClusterURL": {
			orgs: []string{AdminGroup}, path: "/clusters/root", wantCode: http.StatusOK, wantPath: "/",
		},
		"CredentialsAndImpersonationDropped": {
			orgs: []string{AdminGroup}, path: "/clusters/root/apis",
			header:   map[string]string{"Authorization": "Bearer secret", "Impersonate-User": "system:admin", "Impersonate-Group": "x"},
			wantCode: http.StatusOK, wantPath: "/apis",
		},
		"NotAdmin": {
			orgs: []string{"system:masters"}, path: "/clusters/root/api", wantCode: http.StatusForbidden,
		},
		"NoClientCertificate": {
			noCert: true, path: "/clusters/root/api", wantCode: http.StatusUnauthorized,
		},
		"NotClusters": {
			orgs: []string{AdminGroup}, path: "/api/v1/namespaces", wantCode: http.StatusNotFound,
		},
		"Services": {
			orgs: []string{AdminGroup}, path: "/services/apiexport/root/x", wantCode: http.StatusNotFound,
		},
		"WildcardPath": {
			orgs: []string{AdminGroup}, path: "/clusters/*/api", wantCode: http.StatusNotFound,
		},
		"InvalidPath": {
			orgs: []string{AdminGroup}, path: "/clusters/Root:x/api", wantCode: http.StatusNotFound,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ca := f.clientCA
			if tc.noCert {
				ca = nil
			}
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://"+f.s.Addr()+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := f.client(t, ca, tc.orgs...).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.wantCode {
				t.Fatalf("%s: HTTP %d %s, want %d", tc.path, resp.StatusCode, body, tc.wantCode)
			}
			if tc.wantCode != http.StatusOK {
				var st struct{ Kind, Reason string }
				if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
					t.Errorf("want a Kubernetes Status, got %s", body)
				}
			}
			select {
			case r := <-f.got:
				if tc.wantPath == "" {
					t.Fatalf("%s reached the backend as %s", tc.path, r.URL.Path)
				}
				if r.URL.Path != tc.wantPath {
					t.Errorf("backend got path %q, want %q", r.URL.Path, tc.wantPath)
				}
				for _, h := range []string{"Authorization", "Impersonate-User", "Impersonate-Group"} {
					if v := r.Header.Get(h); v != "" {
						t.Errorf("backend got header %s: %s", h, v)
					}
				}
			default:
				if tc.wantPath != "" {
					t.Fatalf("%s did not reach the backend", tc.path)
				}
			}
		})
	}
}

// OpenWatches lists a watch while it streams, and forgets it once it ends.
func TestOpenWatches(t *testing.T) {
	f := newFrontFixture(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		<-release
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	f.s.backends["root"].proxy = f.s.reverseProxy(u)
	done := make(chan error, 1)
	go func() {
		resp, err := f.client(t, f.clientCA, AdminGroup).Get("https://" + f.s.Addr() + "/clusters/root/api/v1/configmaps?watch=true")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(f.s.OpenWatches("root")) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := f.s.OpenWatches("root"); len(got) != 1 || got[0] != "/api/v1/configmaps" {
		t.Errorf("OpenWatches(root) = %q while the watch streams, want [/api/v1/configmaps]", got)
	}
	if got := f.s.OpenWatches("root:other"); len(got) != 0 {
		t.Errorf("OpenWatches(root:other) = %q", got)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := f.s.OpenWatches("root"); len(got) != 0 {
		t.Errorf("OpenWatches(root) = %q after the watch ended", got)
	}
}

// A certificate of another CA is never accepted: the handshake fails, or (Go's client sends
// only certificates of the CAs the server names) the request arrives without one.
func TestFrontRejectsOtherCA(t *testing.T) {
	f := newFrontFixture(t)
	other, err := certs.NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.client(t, other, AdminGroup).Get("https://" + f.s.Addr() + "/clusters/root/api")
	if err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a client certificate of another CA got HTTP %d", resp.StatusCode)
		}
	}
	select {
	case r := <-f.got:
		t.Fatalf("reached the backend: %s", r.URL.Path)
	default:
	}
}

// StopFront refuses connections; StartFront serves again on the same address.
func TestFrontStopStart(t *testing.T) {
	f := newFrontFixture(t)
	c := f.client(t, f.clientCA, AdminGroup)
	addr := f.s.Addr()
	get := func() error {
		c.CloseIdleConnections()
		resp, err := c.Get("https://" + addr + "/clusters/root/api")
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		<-f.got
		return nil
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	f.s.StopFront()
	if err := get(); err == nil {
		t.Fatal("the stopped front answered")
	}
	if err := f.s.StartFront(); err != nil {
		t.Fatal(err)
	}
	if f.s.Addr() != addr {
		t.Errorf("restarted on %s, was %s", f.s.Addr(), addr)
	}
	if err := get(); err != nil {
		t.Fatalf("after StartFront: %v", err)
	}
}

func TestSplitClusterPath(t *testing.T) {
	cases := map[string]struct {
		in, path, rest string
		ok             bool
	}{
		"Root":        {in: "/clusters/root/api/v1", path: "root", rest: "/api/v1", ok: true},
		"Nested":      {in: "/clusters/root:org:team/apis", path: "root:org:team", rest: "/apis", ok: true},
		"NoRest":      {in: "/clusters/root", path: "root", rest: "/", ok: true},
		"TrailingSep": {in: "/clusters/root/", path: "root", rest: "/", ok: true},
		"Empty":       {in: "/clusters/", ok: false},
		"EmptySeg":    {in: "/clusters/root::x/api", ok: false},
		"Upper":       {in: "/clusters/Root/api", ok: false},
		"Other":       {in: "/apis", ok: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path, rest, ok := splitClusterPath(tc.in)
			if ok != tc.ok || path != tc.path || rest != tc.rest {
				t.Errorf("splitClusterPath(%q) = %q, %q, %v; want %q, %q, %v", tc.in, path, rest, ok, tc.path, tc.rest, tc.ok)
			}
		})
	}
}
