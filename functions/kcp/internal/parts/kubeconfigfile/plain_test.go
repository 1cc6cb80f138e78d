package kubeconfigfile

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v2"
)

// TestPlainMatchesEncoder holds Marshal, which writes kubeconfigs of plain strings itself, to
// the YAML encoder's bytes for every string in every field: the awkward ones, random ones
// from an alphabet of YAML's special characters, and random data. Kubeconfigs the function
// writes must take the direct path (or the speed-up is gone without a failing test).
func TestPlainMatchesEncoder(t *testing.T) {
	embedded := Embedded{
		Clusters:       map[string]string{"base": "https://root-kcp.kcp.svc.cluster.local:6443", "default": "https://root-kcp.kcp.svc.cluster.local:6443/clusters/root"},
		Contexts:       map[string]string{"base": "base", "default": "default"},
		CurrentContext: "default",
		CAData:         []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
		UserName:       "tenant:team-a:dev",
		CertData:       []byte("-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"),
		KeyData:        []byte("-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n"),
	}
	for name, c := range map[string]Config{"Files": logicalClusterAdmin.Config(), "WithoutTypeMeta": logicalClusterAdmin.Config().WithoutTypeMeta(), "Embedded": embedded.Config()} {
		if _, ok := c.appendPlain(nil); !ok {
			t.Errorf("%s: a kubeconfig the function writes must be written directly, not by the YAML encoder", name)
		}
	}

	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZyYnN0189eExXbB.:/-_+=~#@%&*!|>?,[]{}'\" \t\nü"
	str := func() string {
		b := make([]rune, rng.IntN(7))
		r := []rune(alphabet)
		for i := range b {
			b[i] = r[rng.IntN(len(r))]
		}
		return string(b)
	}
	strs := []string{"", "y", "Yes", "NO", "true", "False", "on", "OFF", "null", "Null", "~", "1234", "0x1F", "1e5", ".5", "+1", "-1", "0b101",
		"2001-12-14", "12:30:45", "a: b", "a:", "a:b", "- x", "#x", "x #y", " lead", "trail ", "'q'", `"dq"`, "multi\nline", "tab\there",
		"ünï", "/path", "https://[::1]:6443/clusters/root", "system:kcp:admin", "root-shard", "..", "---", "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r"}
	for range 300 {
		strs = append(strs, str())
	}
	set := []func(c *Config, s string){
		func(c *Config, s string) { c.APIVersion = s },
		func(c *Config, s string) { c.Kind = s },
		func(c *Config, s string) { c.CurrentContext = s },
		func(c *Config, s string) { c.Clusters[0].Name = s },
		func(c *Config, s string) { c.Clusters[0].Cluster.Server = s },
		func(c *Config, s string) { c.Clusters[0].Cluster.CertificateAuthority = s },
		func(c *Config, s string) { c.Contexts[0].Name = s },
		func(c *Config, s string) { c.Contexts[0].Context.Cluster = s },
		func(c *Config, s string) { c.Contexts[0].Context.User = s },
		func(c *Config, s string) { c.Users[0].Name = s },
		func(c *Config, s string) { c.Users[0].User.ClientCertificate = s },
		func(c *Config, s string) { c.Users[0].User.ClientKey = s },
		func(c *Config, s string) { c.Clusters[0].Cluster.CertificateAuthorityData = Data(s) },
		func(c *Config, s string) { c.Users[0].User.ClientCertificateData = Data(s) },
		func(c *Config, s string) { c.Users[0].User.ClientKeyData = Data(s) },
	}
	check := func(c Config) {
		t.Helper()
		want, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(c.Marshal())); diff != "" {
			t.Fatalf("Marshal must write what the YAML encoder writes.\n-want, +got:\n%s", diff)
		}
	}
	small := Embedded{Clusters: map[string]string{"base": "https://x:6443"}, Contexts: map[string]string{"base": "base"}, CurrentContext: "base",
		CAData: []byte("CA"), UserName: "u", CertData: []byte("CRT"), KeyData: []byte("KEY")}
	for _, s := range strs {
		for _, f := range set {
			c := small.Config()
			f(&c, s)
			check(c)
			c = logicalClusterAdmin.Config()
			f(&c, s)
			check(c)
		}
	}
	for range 1000 {
		d := make([]byte, rng.IntN(12))
		for i := range d {
			d[i] = byte(rng.IntN(256))
		}
		c := small.Config()
		set[12+rng.IntN(3)](&c, string(d))
		check(c)
	}
	// Empty lists and an empty user: the encoder's [] and {}.
	c := embedded.Config()
	c.Users[0].User = User{}
	check(c)
	check(Config{APIVersion: "v1"})
}
