package names

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDNSOverlap(t *testing.T) {
	cases := map[string]struct {
		reason string
		a, b   string
		want   bool
	}{
		"Same":              {reason: "A name answers for itself.", a: "kcp.example.com", b: "kcp.example.com", want: true},
		"CaseAndDot":        {reason: "DNS is case-insensitive, and a trailing dot is the absolute form of the same name.", a: "KCP.Example.com.", b: "kcp.example.com", want: true},
		"WildcardCovers":    {reason: "*.example.com answers for kcp.example.com.", a: "*.example.com", b: "kcp.example.com", want: true},
		"CoveredByWildcard": {reason: "And the other way round.", a: "kcp.example.com", b: "*.EXAMPLE.com.", want: true},
		"SameWildcard":      {reason: "Two certificates for one wildcard answer for the same hosts.", a: "*.example.com", b: "*.example.com", want: true},
		"NotTheApex":        {reason: "A wildcard does not answer for its zone's own name.", a: "*.example.com", b: "example.com"},
		"OneLabelOnly":      {reason: "A wildcard stands for one label: not a.kcp.example.com.", a: "*.example.com", b: "a.kcp.example.com"},
		"NestedWildcards":   {reason: "*.example.com and *.kcp.example.com answer for no host in common.", a: "*.example.com", b: "*.kcp.example.com"},
		"Different":         {reason: "Two names of one zone.", a: "a.example.com", b: "b.example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DNSOverlap(tc.a, tc.b)); diff != "" {
				t.Errorf("%s\nDNSOverlap(%q, %q): -want, +got:\n%s", tc.reason, tc.a, tc.b, diff)
			}
		})
	}
}

func TestDNSZone(t *testing.T) {
	cases := map[string]struct {
		reason string
		key    string
		want   string
	}{
		"Name":     {reason: "A name's zone is all but its first label.", key: "kcp.example.com", want: "example.com"},
		"Wildcard": {reason: "A wildcard is in the zone it covers, with the names it covers.", key: "*.example.com", want: "example.com"},
		"Single":   {reason: "A single label is in the zone \"\".", key: "localhost", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DNSZone(tc.key)); diff != "" {
				t.Errorf("%s\nDNSZone(%q): -want, +got:\n%s", tc.reason, tc.key, diff)
			}
		})
	}
}
