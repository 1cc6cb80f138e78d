package kcpstandin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ServeHTTP is the kcp stand-in front: admin client certificates only, /clusters/<path>/...
// only, proxied to the path's backend.
func (s *StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized", "kcp stand-in: a client certificate signed by the client CA is required")
		return
	}
	leaf := r.TLS.VerifiedChains[0][0]
	if !slices.Contains(leaf.Subject.Organization, AdminGroup) {
		s.mu.Lock()
		s.refused[leaf.Subject.CommonName]++
		s.mu.Unlock()
		writeStatus(w, http.StatusForbidden, "Forbidden", fmt.Sprintf("kcp stand-in: user %q (groups %q) is not in group %s, the only group the stand-in admits",
			leaf.Subject.CommonName, leaf.Subject.Organization, AdminGroup))
		return
	}
	path, rest, ok := splitClusterPath(r.URL.Path)
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("kcp stand-in: %s is not a /clusters/<workspace path>/ URL", r.URL.Path))
		return
	}
	b, err := s.backend(r.Context(), path)
	if err != nil {
		w.Header().Set("Retry-After", "5")
		writeStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", err.Error())
		return
	}
	out := r.Clone(r.Context())
	out.URL.Path, out.URL.RawPath = rest, ""
	if q := r.URL.Query().Get("watch"); q == "true" || q == "1" {
		done := s.watching(path, rest)
		defer done()
	}
	b.proxy.ServeHTTP(w, out)
}

// watching records an open watch request until done is called.
func (s *StandIn) watching(path, rest string) (done func()) {
	key := path + " " + rest
	s.mu.Lock()
	s.watches[key]++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.watches[key]--; s.watches[key] == 0 {
			delete(s.watches, key)
		}
	}
}

// Refused is how many requests of user the front refused for want of the admin group: what
// a client was told, whatever its client library makes of the answer.
func (s *StandIn) Refused(user string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused[user]
}

// OpenWatches lists the watch requests open through the front for a workspace path, as
// their path in the backend (/apis/rbac.authorization.k8s.io/v1/clusterrolebindings), one
// entry per open request, sorted.
func (s *StandIn) OpenWatches(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, n := range s.watches {
		if p, rest, _ := strings.Cut(k, " "); p == path {
			for range n {
				out = append(out, rest)
			}
		}
	}
	sort.Strings(out)
	return out
}

// reverseProxy forwards to a backend as its admin. The client's own credentials and any
// impersonation go no further: the backend would honour impersonation from an admin.
func (s *StandIn) reverseProxy(target *url.URL) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Del("Authorization")
			for h := range pr.Out.Header {
				if strings.HasPrefix(strings.ToLower(h), "impersonate-") {
					pr.Out.Header.Del(h)
				}
			}
		},
		Transport: s.upstream,
		// Watches stream: flush every write.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeStatus(w, http.StatusBadGateway, "ServiceUnavailable", "kcp stand-in: backend: "+err.Error())
		},
	}
}

// segment is a workspace name in a path; kcp's workspace names are DNS labels.
var segment = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// validPath reports whether p is a workspace path such as root or root:org:team.
func validPath(p string) bool {
	if p == "" {
		return false
	}
	for _, s := range strings.Split(p, ":") {
		if !segment.MatchString(s) {
			return false
		}
	}
	return true
}

// splitClusterPath splits /clusters/<path>/<rest> into the workspace path and /<rest>.
func splitClusterPath(p string) (path, rest string, ok bool) {
	after, ok := strings.CutPrefix(p, "/clusters/")
	if !ok {
		return "", "", false
	}
	path, rest, _ = strings.Cut(after, "/")
	if !validPath(path) {
		return "", "", false
	}
	return path, "/" + rest, true
}

// writeStatus answers with a Kubernetes Status, which clients turn into a typed error.
func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	b, _ := json.Marshal(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code,
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
