package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestValidateFrontProxyGroups(t *testing.T) {
	withAuth := func(a *v1alpha1.AuthSpec, admin ...string) v1alpha1.KcpInstallationSpec {
		s := v1alpha1.KcpInstallationSpec{FrontProxies: []v1alpha1.InstallationFrontProxy{{Name: "public", Auth: a}, {Name: "edge"}}}
		if len(admin) > 0 {
			s.Admin = &v1alpha1.InstallationAdmin{Groups: admin}
		}
		return s
	}
	cases := map[string]struct {
		reason string
		spec   v1alpha1.KcpInstallationSpec
		want   []string // substrings of the errors, in order; none for valid
	}{
		"NoFilters": {
			reason: "kcp's own drop list passes both groups on.",
			spec:   withAuth(&v1alpha1.AuthSpec{}),
		},
		"PassOnOnlyOIDC": {
			reason: "passOnGroups [oidc:*] keeps the admin's and kcp's own groups from the shards: the admin would be refused everything.",
			spec:   withAuth(&v1alpha1.AuthSpec{PassOnGroups: []string{"oidc:*"}}),
			want: []string{
				`spec.frontProxies[0].auth.passOnGroups: Invalid value: ["oidc:*"]: group system:kcp:external-logical-cluster-admin of kcp's external logical cluster admin`,
				`spec.frontProxies[0].auth.passOnGroups: Invalid value: ["oidc:*"]: group system:kcp:admin of the admin kubeconfig (spec.admin.groups) goes through this front-proxy, and would not reach the shards: add "system:kcp:admin"`,
			},
		},
		"PassOnWithPrefix": {
			reason: "A trailing * passes a prefix on, as kcp reads it.",
			spec:   withAuth(&v1alpha1.AuthSpec{PassOnGroups: []string{"oidc:*", "system:kcp:*"}}),
		},
		"AdminGroupsOfItsOwn": {
			reason: "The admin's groups are spec.admin.groups when set.",
			spec:   withAuth(&v1alpha1.AuthSpec{PassOnGroups: []string{"system:kcp:*"}}, "platform-admins"),
			want:   []string{`group platform-admins of the admin kubeconfig`},
		},
		"DropsTheAdmin": {
			reason: "dropGroups removes groups after passOnGroups.",
			spec:   withAuth(&v1alpha1.AuthSpec{DropGroups: []string{"system:masters", "system:kcp:admin"}}),
			want:   []string{`spec.frontProxies[0].auth.dropGroups: Invalid value: ["system:masters","system:kcp:admin"]: group system:kcp:admin of the admin kubeconfig`},
		},
		"DropsByPrefix": {
			reason: "A prefix drop of system:kcp:* takes both.",
			spec:   withAuth(&v1alpha1.AuthSpec{DropGroups: []string{"system:kcp:*"}}),
			want:   []string{`group system:kcp:external-logical-cluster-admin`, `group system:kcp:admin`},
		},
		"EmptyDropList": {
			reason: "dropGroups: [] drops nothing.",
			spec:   withAuth(&v1alpha1.AuthSpec{DropGroups: []string{}}),
		},
		"OtherFrontProxy": {
			reason: "Only the first front-proxy carries the admin kubeconfig and kcp's own requests; another may pass on OIDC groups alone.",
			spec: v1alpha1.KcpInstallationSpec{FrontProxies: []v1alpha1.InstallationFrontProxy{{Name: "public"},
				{Name: "edge", Auth: &v1alpha1.AuthSpec{PassOnGroups: []string{"oidc:*"}}}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := validateFrontProxyGroups(tc.spec)
			if len(errs) != len(tc.want) {
				t.Fatalf("%s\ngot %d errors, want %d: %v", tc.reason, len(errs), len(tc.want), errs)
			}
			for i, w := range tc.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("%s\nerror %d: %q\nwant it to contain %q", tc.reason, i, errs[i].Error(), w)
				}
			}
		})
	}
}
