package names

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestExternalAdminURL(t *testing.T) {
	cases := map[string]struct {
		reason string
		ext    v1alpha1.ExternalConfig
		want   string
	}{
		"Public":          {reason: "Without a private address the public URL is used.", ext: v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 443}, want: "https://api.example.com:443"},
		"PrivatePortless": {reason: "A private hostname without port keeps the public port.", ext: v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 443, PrivateHostname: "fp.kcp.svc"}, want: "https://fp.kcp.svc:443"},
		"Private":         {reason: "A private hostname and port replace both.", ext: v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 443, PrivateHostname: "fp.kcp.svc", PrivatePort: ptr.To[uint32](6443)}, want: "https://fp.kcp.svc:6443"},
		"IPv6":            {reason: "IPv6 literals are bracketed.", ext: v1alpha1.ExternalConfig{Hostname: "2001:db8::1", Port: 6443}, want: "https://[2001:db8::1]:6443"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ExternalAdminURL(tc.ext); got != tc.want {
				t.Errorf("%s\nExternalAdminURL(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestHostOf(t *testing.T) {
	cases := map[string]struct{ raw, want string }{
		"WithPort": {raw: "https://root.example.com:6443", want: "root.example.com"},
		"Empty":    {raw: "", want: ""},
		"Invalid":  {raw: "https://[::1", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := HostOf(tc.raw); got != tc.want {
				t.Errorf("HostOf(%q) = %q, want %q", tc.raw, got, tc.want)
			}
		})
	}
}

// TestURLsBracketIPv6 holds every URL the function derives from a host to the bracketed form
// an IPv6 literal needs: https://fd00::10:6443 would be a host fd00 with a bad port.
func TestURLsBracketIPv6(t *testing.T) {
	const v6 = "fd00::10"
	rs := &v1alpha1.RootShard{Spec: v1alpha1.RootShardSpec{External: v1alpha1.ExternalConfig{Hostname: v6, Port: 443}}}
	cases := map[string]struct {
		reason string
		got    string
		want   string
	}{
		"HTTPS":                        {reason: "A host and port.", got: HTTPS(v6, 6443), want: "https://[fd00::10]:6443"},
		"HTTPSName":                    {reason: "A DNS name is left as it is.", got: HTTPS("api.example.com", 443), want: "https://api.example.com:443"},
		"ExternalURL":                  {reason: "An installation's or virtual workspace's public URL.", got: ExternalURL(v1alpha1.ExternalConfig{Hostname: v6, Port: 6443}), want: "https://[fd00::10]:6443"},
		"PrivateAdminURL":              {reason: "The external admin kubeconfig's private address.", got: ExternalAdminURL(v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 443, PrivateHostname: v6}), want: "https://[fd00::10]:443"},
		"FrontProxyOwn":                {reason: "A front-proxy's own spec.external.", got: FrontProxyURL(&v1alpha1.FrontProxy{Spec: v1alpha1.FrontProxySpec{External: v1alpha1.ExternalConfig{Hostname: v6, Port: 8443}}}, rs), want: "https://[fd00::10]:8443"},
		"FrontProxyRoot":               {reason: "A front-proxy without an address of its own uses its RootShard's.", got: FrontProxyURL(&v1alpha1.FrontProxy{}, rs), want: "https://[fd00::10]:443"},
		"FrontProxyDeprecatedHost":     {reason: "The deprecated spec.externalHostname without a port gets kcp's.", got: FrontProxyURL(&v1alpha1.FrontProxy{Spec: v1alpha1.FrontProxySpec{ExternalHostname: v6}}, nil), want: "https://[fd00::10]:6443"},
		"FrontProxyDeprecatedHostPort": {reason: "A bracketed host with a port is used as written.", got: FrontProxyURL(&v1alpha1.FrontProxy{Spec: v1alpha1.FrontProxySpec{ExternalHostname: "[fd00::10]:9443"}}, nil), want: "https://[fd00::10]:9443"},
		"HostOf":                       {reason: "The host of a bracketed URL, for a certificate's SANs.", got: HostOf("https://[fd00::10]:6443"), want: v6},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s\ngot %q, want %q", tc.reason, tc.got, tc.want)
			}
		})
	}
}

// TestServiceURLs holds the in-cluster URLs other components reach each kind at.
func TestServiceURLs(t *testing.T) {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: "kcp"} }
	cases := map[string]struct {
		reason string
		got    string
		want   string
	}{
		"RootShard":        {reason: "The root shard's Service.", got: RootShardURL(&v1alpha1.RootShard{ObjectMeta: meta("root")}), want: "https://root-kcp.kcp.svc.cluster.local:6443"},
		"RootShardBaseURL": {reason: "spec.shardBaseURL wins.", got: RootShardURL(&v1alpha1.RootShard{ObjectMeta: meta("root"), Spec: v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{ShardBaseURL: "https://[fd00::1]:6443"}}}), want: "https://[fd00::1]:6443"},
		"Shard":            {reason: "A shard's Service, in its cluster domain.", got: ShardURL(&v1alpha1.Shard{ObjectMeta: meta("alpha"), Spec: v1alpha1.ShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{ClusterDomain: "corp.internal"}}}), want: "https://alpha-shard-kcp.kcp.svc.corp.internal:6443"},
		"CacheServer":      {reason: "The cache server's Service.", got: CacheServerURL(&v1alpha1.CacheServer{ObjectMeta: meta("cache")}), want: "https://cache-cache-server.kcp.svc.cluster.local:6443"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s\ngot %q, want %q", tc.reason, tc.got, tc.want)
			}
		})
	}
}
