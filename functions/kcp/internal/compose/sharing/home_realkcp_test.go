package sharing

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// homeUser is a team's user as a Tenant's Kubeconfig makes it: a user and a group under the
// team's prefix, and the Kubeconfig's own group kubeconfig:<namespace>.<name>.
type homeUser struct{ ns, name, group string }

func (u homeUser) prefix() string { return "tenant:" + u.ns + ":" }
func (u homeUser) user() string   { return u.prefix() + u.name }
func (u homeUser) groups() []string {
	return []string{u.prefix() + u.group, "kubeconfig:" + Name(u.ns, u.name)}
}

// TestHomeWorkspacesForOnRealKCP holds HomeWorkspacesFor to kcp itself: kcp started with the
// flags parts/kcpserver renders for each spec.homeWorkspaces (TestServerFeatures pins them),
// and team users authenticated by a token file with the identities a Tenant's Kubeconfig
// gives them, must make a home workspace on ~ for exactly the teams HomeWorkspacesFor
// refuses. Skipped without KCP_BIN (a directory holding kcp v0.32.3's kcp), as in CI.
func TestHomeWorkspacesForOnRealKCP(t *testing.T) {
	kcpBin := os.Getenv("KCP_BIN")
	if kcpBin == "" {
		t.Skip("KCP_BIN is not set: set it to a directory holding kcp's binaries to check HomeWorkspacesFor against kcp")
	}
	users := []homeUser{
		{"team-red", "alice", "admins"},
		{"team-blue", "bob", "admins"},
		{"team-green", "carol", "devs"},
		// team-red's name is a prefix of its namespace's.
		{"team-redder", "dave", "admins"},
	}
	cases := map[string]*v1alpha1.HomeWorkspaces{
		"Unset": nil,
		"Off":   {Enabled: false},
		"On":    {Enabled: true},
		// Wildcard-looking groups, another team's group, the platform's, and one
		// Kubeconfig's group: RBAC matches exact names. (Not "tenant:": kcp writes the groups
		// into YAML unquoted, and one ending with a colon stops its root bootstrap.)
		"OnMixedGroups": {Enabled: true, CreatorGroups: []string{"oidc:kcp-users", "tenant:*", "kubeconfig:*", "tenant:team-red", "kubeconfig:team-red.alice", "tenant:team-blue:admins"}},
	}
	for name, hw := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var tokens strings.Builder
			for i, u := range users {
				fmt.Fprintf(&tokens, "token-%d,%s,uid-%d,%q\n", i, u.user(), i, strings.Join(u.groups(), ","))
			}
			if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			url := startHomeKCP(t, filepath.Join(kcpBin, "kcp"), dir, homeWorkspacesArgs(hw)...)
			for i, u := range users {
				start := time.Now()
				made, answer := askHome(t, url, fmt.Sprintf("token-%d", i))
				refusal := HomeWorkspacesFor(u.prefix(), u.ns, "RootShard kcp/root", hw)
				if made != (refusal != "") {
					t.Errorf("%s, groups %v: kcp made a home workspace: %v (%s); HomeWorkspacesFor: %q (logs in %s)", u.user(), u.groups(), made, answer, refusal, dir)
				}
				t.Logf("%s: kcp answered ~ in %.2fs: %s", u.user(), time.Since(start).Seconds(), answer)
			}
		})
	}
}

// homeWorkspacesArgs are kcp's flags for spec.homeWorkspaces, as parts/kcpserver renders them.
func homeWorkspacesArgs(hw *v1alpha1.HomeWorkspaces) []string {
	if hw == nil {
		return nil
	}
	args := []string{"--enable-home-workspaces=" + strconv.FormatBool(hw.Enabled)}
	if hw.Enabled && len(hw.CreatorGroups) > 0 {
		args = append(args, "--home-workspaces-home-creator-groups="+strings.Join(hw.CreatorGroups, ","))
	}
	return args
}

// startHomeKCP runs `kcp start` (embedded etcd, the token file of dir) until the test ends
// and returns its URL once the root workspace holds the binding of the home workspace
// creators (read with the admin's token): before it, every user would be refused ~.
func startHomeKCP(t *testing.T, kcpBin, dir string, args ...string) string {
	t.Helper()
	ports := freeHomePorts(t, 3)
	log, err := os.Create(filepath.Join(dir, "kcp.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kcpBin, append([]string{"start", "--root-directory=" + filepath.Join(dir, "kcp"),
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports[0]),
		fmt.Sprintf("--embedded-etcd-client-port=%d", ports[1]), fmt.Sprintf("--embedded-etcd-peer-port=%d", ports[2]),
		"--batteries-included=admin,workspace-types", "--token-auth-file=" + filepath.Join(dir, "tokens.csv")}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = log.Close()
	})
	url := fmt.Sprintf("https://127.0.0.1:%d", ports[0])
	var token string
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		select {
		case <-exited:
			t.Fatalf("kcp exited (logs in %s)", dir)
		default:
		}
		if token == "" {
			token = adminToken(filepath.Join(dir, "kcp", "admin.kubeconfig"))
			continue
		}
		code, _ := homeGET(t, url+"/clusters/root/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:kcp:configured-group:home-clusterworkspace-create", token)
		if code == http.StatusOK {
			return url
		}
	}
	t.Fatalf("kcp did not bootstrap the root workspace within 3 minutes (logs in %s)", dir)
	return ""
}

// adminToken is kcp-admin's token in the admin kubeconfig kcp writes, "" until it exists.
func adminToken(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var kc struct {
		Users []struct {
			Name string
			User struct{ Token string }
		}
	}
	if yaml.Unmarshal(b, &kc) != nil {
		return ""
	}
	for _, u := range kc.Users {
		if u.Name == "kcp-admin" {
			return u.User.Token
		}
	}
	return ""
}

// askHome asks kcp for ~ with token, as `kubectl ws ~` does, and says whether kcp made (or
// is making) a home workspace, and its answer.
func askHome(t *testing.T, url, token string) (bool, string) {
	t.Helper()
	for range 30 {
		code, body := homeGET(t, url+"/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~", token)
		answer := fmt.Sprintf("%d %s", code, strings.Join(strings.Fields(body), " "))
		switch code {
		case http.StatusOK, http.StatusTooManyRequests: // made; 429 while kcp initializes it
			return true, answer
		case http.StatusForbidden, http.StatusNotFound:
			return false, answer
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("kcp gave no answer to ~ within 30s")
	return false, ""
}

// homeGET is a GET with a bearer token; kcp's serving certificate is its own, made at start.
func homeGET(t *testing.T, url, token string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // A local kcp started a moment ago.
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close() //nolint:errcheck // Read to the end below.
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// freeHomePorts returns n ports free on 127.0.0.1 now.
func freeHomePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close() //nolint:errcheck // Only its port is needed.
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
