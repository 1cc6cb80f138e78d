package kubeconfigfile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEmbedded(t *testing.T) {
	e := Embedded{
		Clusters:       map[string]string{"default": "https://x:6443/clusters/root", "base": "https://x:6443"},
		Contexts:       map[string]string{"shard-base": "base", "default": "default", "base": "base"},
		CurrentContext: "default",
		CAData:         []byte("CA"),
		UserName:       "alice",
		CertData:       []byte("CRT"),
		KeyData:        []byte("KEY"),
	}
	// Byte-identical to clientcmd.Write of the equivalent clientcmdapi.Config: maps written
	// sorted by name, data base64 encoded, no preferences.
	want := `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: Q0E=
    server: https://x:6443
  name: base
- cluster:
    certificate-authority-data: Q0E=
    server: https://x:6443/clusters/root
  name: default
contexts:
- context:
    cluster: base
    user: alice
  name: base
- context:
    cluster: default
    user: alice
  name: default
- context:
    cluster: base
    user: alice
  name: shard-base
current-context: default
kind: Config
users:
- name: alice
  user:
    client-certificate-data: Q1JU
    client-key-data: S0VZ
`
	if diff := cmp.Diff(want, string(e.Config().Marshal())); diff != "" {
		t.Errorf("Embedded.Config().Marshal(): -want, +got:\n%s", diff)
	}
}
