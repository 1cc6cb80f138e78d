package render

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestTenantRoleGrantsWhatTheAggregatedRolesDo holds install/tenant-role.yaml, the roles a
// platform binds namespace by namespace, to install/tenant-clusterrole.yaml, which Kubernetes
// aggregates into edit and view everywhere: configuration-kcp:tenant grants exactly what the
// aggregated roles give edit, configuration-kcp:tenant-viewer exactly what they give view,
// and neither carries an aggregation label (which would grant it in every namespace).
func TestTenantRoleGrantsWhatTheAggregatedRolesDo(t *testing.T) {
	aggregated := clusterRoles(t, "tenant-clusterrole.yaml")
	perNamespace := clusterRoles(t, "tenant-role.yaml")

	// Rules in the aggregated roles' name order (tenant-edit, tenant-view), the order
	// tenant-role.yaml writes them in; ranging over the map would compare a random order.
	grantedTo := func(label string) []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for _, name := range slices.Sorted(maps.Keys(aggregated)) {
			if r := aggregated[name]; r.Labels[label] == "true" {
				out = append(out, r.Rules...)
			}
		}
		return out
	}
	cases := map[string]struct {
		reason string
		role   string
		want   []rbacv1.PolicyRule
	}{
		"Tenant": {
			reason: "A tenant bound per namespace may do what edit may do through aggregation.",
			role:   "configuration-kcp:tenant",
			want:   grantedTo("rbac.authorization.k8s.io/aggregate-to-edit"),
		},
		"Viewer": {
			reason: "A viewer bound per namespace may read what view may read through aggregation.",
			role:   "configuration-kcp:tenant-viewer",
			want:   grantedTo("rbac.authorization.k8s.io/aggregate-to-view"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, ok := perNamespace[tc.role]
			if !ok {
				t.Fatalf("%s\ninstall/tenant-role.yaml has no ClusterRole %s", tc.reason, tc.role)
			}
			if diff := cmp.Diff(tc.want, r.Rules); diff != "" {
				t.Errorf("%s\n%s rules: -aggregated, +per namespace:\n%s", tc.reason, tc.role, diff)
			}
			for l := range r.Labels {
				if strings.Contains(l, "aggregate-to-") {
					t.Errorf("%s\n%s carries aggregation label %s: it would be granted in every namespace", tc.reason, tc.role, l)
				}
			}
		})
	}
}

// clusterRoles reads the ClusterRoles of a file in install/, by name.
func clusterRoles(t *testing.T, file string) map[string]rbacv1.ClusterRole {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "install", file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]rbacv1.ClusterRole{}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var r rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if r.Kind == "ClusterRole" {
			out[r.Name] = r
		}
	}
	return out
}
