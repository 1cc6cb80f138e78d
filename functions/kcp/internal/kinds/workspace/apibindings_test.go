package workspace

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// bindingDatabases binds APIExport databases of root:providers accepting secrets.
func bindingDatabases(ws *v1alpha1.Workspace) {
	ws.Spec.ClusterRoleBindings = nil
	ws.Spec.APIBindings = []v1alpha1.APIBinding{{
		Export:           v1alpha1.APIExportReference{Path: "root:providers", Name: "databases"},
		PermissionClaims: []v1alpha1.APIPermissionClaim{{Resource: "secrets", Verbs: []string{"*"}}},
	}}
}

func TestAPIBindings(t *testing.T) {
	w := testworld.New().Object(testworld.RootShard())
	r := compose(t, team(bindingDatabases), w)
	o, ok := r.Desired.Get("apibinding-databases")
	if !ok {
		t.Fatalf("no APIBinding composed: %v", objects(r))
	}
	u := o.Resource.(*resource.Unstructured)
	spec := u.Object["spec"].(map[string]any)
	got, _ := json.Marshal(spec["forProvider"].(map[string]any)["manifest"])
	want := `{"apiVersion":"apis.kcp.io/v1alpha2","kind":"APIBinding","metadata":{"name":"databases"},"spec":{"permissionClaims":[{"group":"","resource":"secrets","selector":{"matchAll":true},"state":"Accepted","verbs":["*"]}],"reference":{"export":{"name":"databases","path":"root:providers"}}}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("The APIBinding accepts exactly the claims listed, for every object of each.\n-want, +got:\n%s", diff)
	}
	if pc := spec["providerConfigRef"].(map[string]any)["name"]; pc != "root-kcp-operator.root.team-a" {
		t.Errorf("The APIBinding is made in the workspace itself, through its ProviderConfig: got %v", pc)
	}
	i := slices.IndexFunc(r.Conditions, func(c condition.Condition) bool { return c.Type == TypeAPIsBound })
	if i < 0 || r.Conditions[i].Status || !strings.Contains(r.Conditions[i].Message, "databases: waiting for Crossplane to create its Object") || !r.NotReady {
		t.Errorf("Until kcp reports it Bound, APIsBound is False and the Workspace not Ready: %v", r.Conditions)
	}

	// kcp reports the binding Bound.
	w.Exists(r.Desired).Put("apibinding-databases", map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
		"metadata": map[string]any{"name": u.GetName(), "namespace": "kcp"},
		"status":   map[string]any{"atProvider": map[string]any{"manifest": map[string]any{"status": map[string]any{"phase": "Bound"}}}}})
	r = compose(t, team(bindingDatabases), w)
	if diff := cmp.Diff([]string{"databases"}, r.Status.APIBindings); diff != "" {
		t.Errorf("status.apiBindings lists the bindings kcp reports Bound: -want, +got:\n%s", diff)
	}
	i = slices.IndexFunc(r.Conditions, func(c condition.Condition) bool { return c.Type == TypeAPIsBound })
	if i < 0 || !r.Conditions[i].Status {
		t.Errorf("APIsBound is True once kcp reports every binding Bound: %v", r.Conditions)
	}
}

func TestValidateAPIBindings(t *testing.T) {
	export := v1alpha1.APIExportReference{Path: "root:providers", Name: "databases"}
	errs := validateAPIBindings(field.NewPath("spec", "apiBindings"), []v1alpha1.APIBinding{
		{Export: export, PermissionClaims: []v1alpha1.APIPermissionClaim{{Resource: "secrets", Verbs: []string{"*", "get"}}, {Resource: "secrets", Verbs: []string{"get"}}}},
		{Name: "databases", Export: v1alpha1.APIExportReference{Path: "root:other", Name: "x"}},
	})
	var got []string
	for _, e := range errs {
		got = append(got, e.Field)
	}
	want := []string{"spec.apiBindings[0].permissionClaims[0].verbs", "spec.apiBindings[0].permissionClaims[1]", "spec.apiBindings[1].name"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("* beside other verbs, a claim twice and two bindings of one name are refused: -want, +got:\n%s", diff)
	}
}
