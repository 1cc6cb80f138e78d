package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
)

func TestRead(t *testing.T) {
	object := func(data any) map[string]any {
		return map[string]any{"apiVersion": APIVersion, "kind": Kind, "metadata": map[string]any{"name": Name}, "data": data}
	}
	cases := map[string]struct {
		reason   string
		answered bool
		object   map[string]any
		want     Policy
		known    bool
		err      bool
	}{
		"NotAnswered": {
			reason: "Before Crossplane answers, the policy is not known.",
		},
		"Missing": {
			reason:   "No policy object: the empty policy, every namespace a tenant's.",
			answered: true,
			known:    true,
		},
		"PlatformNamespaces": {
			reason:   "data.platformNamespaces is read.",
			answered: true,
			object:   object(map[string]any{"platformNamespaces": []any{"kcp-platform"}}),
			want:     Policy{PlatformNamespaces: []string{"kcp-platform"}},
			known:    true,
		},
		"Unreadable": {
			reason:   "A policy of the wrong shape is an error the platform must fix.",
			answered: true,
			object:   object(map[string]any{"platformNamespaces": "kcp-platform"}),
			known:    true,
			err:      true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := observed.New(nil)
			if tc.answered {
				st.Answer(Requirement.Key())
			}
			if tc.object != nil {
				st.WithObject(tc.object)
			}
			got, known, err := Read(st)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nRead: -want, +got:\n%s", tc.reason, diff)
			}
			if known != tc.known || (err != nil) != tc.err {
				t.Errorf("%s\nknown %v, err %v; want known %v, an error %v", tc.reason, known, err, tc.known, tc.err)
			}
		})
	}
}

func TestPlatform(t *testing.T) {
	p := Policy{PlatformNamespaces: []string{"kcp-platform", "*"}}
	for ns, want := range map[string]bool{"kcp-platform": true, "team-a": false, "": false} {
		if got := p.Platform(ns); got != want {
			t.Errorf("Platform(%q) = %v, want %v: only listed namespaces are the platform's; \"*\" stands for no other", ns, got, want)
		}
	}
}

func TestAllows(t *testing.T) {
	p := Policy{Issuers: []AllowedIssuer{
		{Kind: "ClusterIssuer", Name: "kcp-selfsigned", Namespaces: []string{"*"}},
		{Kind: "ClusterIssuer", Name: "letsencrypt", Namespaces: []string{"team-a"}},
		{Group: "awspca.cert-manager.io", Kind: "AWSPCAClusterIssuer", Name: "*", Namespaces: []string{"team-b"}},
	}}
	cases := map[string]struct {
		reason    string
		namespace string
		ref       v1alpha1.ObjectReference
		want      bool
	}{
		"OwnIssuer":          {reason: "cert-manager's Issuer is the namespace's own.", namespace: "team-c", ref: v1alpha1.ObjectReference{Name: "x"}, want: true},
		"Everywhere":         {reason: "Allowed in \"*\".", namespace: "team-c", ref: v1alpha1.ObjectReference{Name: "kcp-selfsigned", Kind: "ClusterIssuer"}, want: true},
		"ListedNamespace":    {reason: "Allowed where listed.", namespace: "team-a", ref: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}, want: true},
		"OtherNamespace":     {reason: "Not where it is not listed.", namespace: "team-b", ref: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}},
		"OtherGroupAnyName":  {reason: "Another group's kind, name \"*\".", namespace: "team-b", ref: v1alpha1.ObjectReference{Name: "pca", Kind: "AWSPCAClusterIssuer", Group: "awspca.cert-manager.io"}, want: true},
		"OtherGroupSameKind": {reason: "ClusterIssuer of another group is not cert-manager's.", namespace: "team-c", ref: v1alpha1.ObjectReference{Name: "kcp-selfsigned", Kind: "ClusterIssuer", Group: "example.com"}},
		"IssuerOtherGroup":   {reason: "Issuer of another group is not the namespace's own.", namespace: "team-c", ref: v1alpha1.ObjectReference{Name: "x", Kind: "Issuer", Group: "example.com"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := p.Allows(tc.namespace, tc.ref); got != tc.want {
				t.Errorf("%s\nAllows = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}
