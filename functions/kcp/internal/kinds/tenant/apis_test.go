package tenant

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// databasesExport is APIExport databases of root:providers.
var databasesExport = v1alpha1.APIExportReference{Path: "root:providers", Name: "databases"}

// claim is a permission claim on a core resource.
func claim(resource string, verbs ...string) v1alpha1.APIPermissionClaim {
	return v1alpha1.APIPermissionClaim{Resource: resource, Verbs: verbs}
}

// grantingDatabases is Tenant team-a granting the databases export with every verb on
// events and secrets, and read-only namespaces.
func grantingDatabases() *composer {
	return &composer{t: &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Namespace: "kcp"},
		Spec: v1alpha1.TenantSpec{APIs: []v1alpha1.TenantAPI{{
			Export:           databasesExport,
			PermissionClaims: []v1alpha1.APIPermissionClaim{claim("events", "*"), claim("secrets", "*"), claim("namespaces", "get", "list", "watch")},
		}}},
	}}
}

func TestCheckAPIBindings(t *testing.T) {
	cases := map[string]struct {
		reason   string
		bindings []v1alpha1.APIBinding
		// errs are the fields refused, with a substring of each message; none when granted.
		errs map[string]string
	}{
		"Granted": {
			reason:   "A binding to a granted export accepting granted claims, fewer verbs included, is granted.",
			bindings: []v1alpha1.APIBinding{{Export: databasesExport, PermissionClaims: []v1alpha1.APIPermissionClaim{claim("secrets", "*"), claim("namespaces", "get")}}},
		},
		"NoClaims": {
			reason:   "A binding accepting no claim gives the provider nothing of the workspace: always within the grant.",
			bindings: []v1alpha1.APIBinding{{Export: databasesExport}},
		},
		"ExportNotGranted": {
			reason:   "An export the Tenant does not list is refused, whoever's it is.",
			bindings: []v1alpha1.APIBinding{{Export: v1alpha1.APIExportReference{Path: "root:providers", Name: "queues"}}},
			errs:     map[string]string{"spec.apiBindings[0].export": "APIExport queues of workspace root:providers is not one Tenant team-a lets the team bind (spec.apis: root:providers:databases)"},
		},
		"AnotherTeamsProviderWorkspace": {
			reason:   "An export of the same name in another team's workspace is another export: refused.",
			bindings: []v1alpha1.APIBinding{{Export: v1alpha1.APIExportReference{Path: "root:team-b", Name: "databases"}}},
			errs:     map[string]string{"spec.apiBindings[0].export": "APIExport databases of workspace root:team-b is not one"},
		},
		"ClaimNotAllowed": {
			reason:   "A claim the grant does not list would let the provider into the team's ConfigMaps: refused.",
			bindings: []v1alpha1.APIBinding{{Export: databasesExport, PermissionClaims: []v1alpha1.APIPermissionClaim{claim("configmaps", "*")}}},
			errs:     map[string]string{"spec.apiBindings[0].permissionClaims[0]": "does not let the team accept a claim on configmaps"},
		},
		"ClaimOfAnotherGroup": {
			reason:   "The group is part of the claim: secrets of another group are another resource.",
			bindings: []v1alpha1.APIBinding{{Export: databasesExport, PermissionClaims: []v1alpha1.APIPermissionClaim{{Group: "example.org", Resource: "secrets", Verbs: []string{"get"}}}}},
			errs:     map[string]string{"spec.apiBindings[0].permissionClaims[0]": "a claim on secrets.example.org"},
		},
		"VerbsBeyond": {
			reason:   "Every verb of namespaces is more than the read-only grant: refused naming the verbs beyond it.",
			bindings: []v1alpha1.APIBinding{{Export: databasesExport, PermissionClaims: []v1alpha1.APIPermissionClaim{claim("namespaces", "*")}}},
			errs:     map[string]string{"spec.apiBindings[0].permissionClaims[0].verbs": "lets the team accept get, list, watch on namespaces for APIExport root:providers:databases, not *"},
		},
		"SomeVerbsBeyond": {
			reason:   "Only the verbs beyond the grant are named.",
			bindings: []v1alpha1.APIBinding{{Export: databasesExport, PermissionClaims: []v1alpha1.APIPermissionClaim{claim("namespaces", "get", "delete")}}},
			errs:     map[string]string{"spec.apiBindings[0].permissionClaims[0].verbs": "not delete"},
		},
		"SecondBindingOnly": {
			reason: "Each binding is checked on its own, and named by its index.",
			bindings: []v1alpha1.APIBinding{
				{Export: databasesExport},
				{Name: "other", Export: v1alpha1.APIExportReference{Path: "root", Name: "tenancy.kcp.io"}},
			},
			errs: map[string]string{"spec.apiBindings[1].export": "APIExport tenancy.kcp.io of workspace root"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := grantingDatabases().checkAPIBindings(field.NewPath("spec", "apiBindings"), tc.bindings)
			got := map[string]string{}
			for _, e := range errs {
				got[e.Field] = e.Detail
			}
			if len(got) != len(tc.errs) {
				t.Fatalf("%s\ncheckAPIBindings(...): %v, want refusals of %v", tc.reason, errs, tc.errs)
			}
			for f, want := range tc.errs {
				if !strings.Contains(got[f], want) {
					t.Errorf("%s\ncheckAPIBindings(...): %s: %q, want it to say %q", tc.reason, f, got[f], want)
				}
			}
		})
	}
}

func TestNoAPIsByDefault(t *testing.T) {
	c := &composer{t: &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}}
	errs := c.checkAPIBindings(field.NewPath("spec", "apiBindings"), []v1alpha1.APIBinding{{Export: databasesExport}})
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "(spec.apis: none)") {
		t.Errorf("A Tenant without spec.apis grants no export: checkAPIBindings = %v", errs)
	}
}

func TestValidateAPIs(t *testing.T) {
	errs := validateAPIs(field.NewPath("spec", "apis"), []v1alpha1.TenantAPI{
		{Export: databasesExport, PermissionClaims: []v1alpha1.APIPermissionClaim{claim("secrets", "*", "get"), claim("secrets", "get")}},
		{Export: databasesExport},
	})
	var got []string
	for _, e := range errs {
		got = append(got, e.Field)
	}
	want := "spec.apis[0].permissionClaims[0].verbs spec.apis[0].permissionClaims[1] spec.apis[1].export"
	if strings.Join(got, " ") != want {
		t.Errorf("validateAPIs refuses * beside other verbs, a claim twice and an export twice: got %v, want %s", got, want)
	}
}
