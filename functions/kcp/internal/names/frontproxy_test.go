package names

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrontProxyNames(t *testing.T) {
	r, f := RootShard("root"), FrontProxy("fp")
	cases := map[string]struct {
		got, want string
	}{
		"Deployment":        {f.Deployment(), "fp-front-proxy"},
		"Config":            {f.Config(), "fp-config"},
		"MergedClientCA":    {f.MergedClientCA(), "fp-merged-client-ca"},
		"MergedCABundle":    {f.MergedCABundle(), "fp-merged-ca-bundle"},
		"ServerCert":        {f.Cert(r, "server"), "root-fp-server"},
		"KubeconfigCert":    {f.Cert(r, "kubeconfig"), "root-fp-kubeconfig"},
		"RequestHeaderCert": {f.Cert(r, "requestheader"), "root-fp-requestheader"},
		"DynamicKubeconfig": {f.DynamicKubeconfig(r), "root-fp-dynamic-kubeconfig"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("kcp-operator v0.9.0's name table (§2.0).\n%s: -want, +got:\n%s", name, diff)
			}
		})
	}
}
