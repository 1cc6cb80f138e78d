package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReservedFor(t *testing.T) {
	p := Policy{Hostnames: Hostnames{Reserved: []string{"kcp.example.com", "*.platform.example.com"}}, PlatformNamespaces: []string{"platform"}}
	cases := map[string]struct {
		reason    string
		namespace string
		host      string
		want      string
	}{
		"ExactName":       {reason: "A reserved name.", namespace: "team-a", host: "kcp.example.com", want: "kcp.example.com"},
		"CaseAndDot":      {reason: "In capitals with a trailing dot, the same name.", namespace: "team-a", host: "KCP.example.COM.", want: "kcp.example.com"},
		"WildcardCovers":  {reason: "A wildcard answering for a reserved name.", namespace: "team-a", host: "*.example.com", want: "kcp.example.com"},
		"InTheZone":       {reason: "*.<zone> reserves every name under the zone.", namespace: "team-a", host: "kcp.platform.example.com", want: "*.platform.example.com"},
		"DeepInTheZone":   {reason: "At any depth, unlike a certificate's wildcard.", namespace: "team-a", host: "a.b.platform.example.com", want: "*.platform.example.com"},
		"WildcardInZone":  {reason: "Wildcards of the zone or under it.", namespace: "team-a", host: "*.eu.platform.example.com", want: "*.platform.example.com"},
		"TheZonesApex":    {reason: "The zone's own name is reserved only when listed.", namespace: "team-a", host: "platform.example.com"},
		"AnotherName":     {reason: "A name of the same zone as a reserved one.", namespace: "team-a", host: "kcp2.example.com"},
		"Deeper":          {reason: "A name under a reserved exact name is not reserved.", namespace: "team-a", host: "a.kcp.example.com"},
		"PlatformsOwn":    {reason: "The platform's namespaces serve its names.", namespace: "platform", host: "kcp.example.com"},
		"SuffixNotZone":   {reason: "A zone is matched by labels, not by characters.", namespace: "team-a", host: "myplatform.example.com"},
		"WildcardOfOther": {reason: "*.kcp.example.com answers for names under kcp.example.com, not for it.", namespace: "team-a", host: "*.kcp.example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, p.ReservedFor(tc.namespace, tc.host)); diff != "" {
				t.Errorf("%s\nReservedFor(%q, %q): -want, +got:\n%s", tc.reason, tc.namespace, tc.host, diff)
			}
		})
	}
}

func TestReservedUnder(t *testing.T) {
	p := Policy{Hostnames: Hostnames{Reserved: []string{"kcp.example.com", "*.platform.example.com", "etcd.team-a.svc.corp.internal"}}, PlatformNamespaces: []string{"platform"}}
	cases := map[string]struct {
		reason    string
		namespace string
		zone      string
		want      string
	}{
		"DefaultDomain": {reason: "cluster.local holds no reserved name.", namespace: "team-a", zone: "team-a.svc.cluster.local"},
		"InReserved":    {reason: "A zone inside a reserved one.", namespace: "team-a", zone: "team-a.svc.platform.example.com", want: "*.platform.example.com"},
		"HoldsReserved": {reason: "A zone holding a reserved zone.", namespace: "team-a", zone: "example.com", want: "kcp.example.com"},
		"HoldsAName":    {reason: "A zone holding a reserved exact name.", namespace: "team-a", zone: "team-a.svc.corp.internal", want: "etcd.team-a.svc.corp.internal"},
		"PlatformsOwn":  {reason: "The platform's namespaces may.", namespace: "platform", zone: "platform.svc.platform.example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, p.ReservedUnder(tc.namespace, tc.zone)); diff != "" {
				t.Errorf("%s\nReservedUnder(%q, %q): -want, +got:\n%s", tc.reason, tc.namespace, tc.zone, diff)
			}
		})
	}
}
