package kcpserver

import (
	"testing"

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
