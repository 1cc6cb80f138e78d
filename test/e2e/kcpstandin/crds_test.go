package kcpstandin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPatchOp(t *testing.T) {
	crd := func() map[string]any {
		return map[string]any{"spec": map[string]any{"versions": []any{
			map[string]any{"name": "v1alpha1", "schema": map[string]any{"properties": map[string]any{"spec": map[string]any{"type": "object"}}}},
			map[string]any{"name": "v1alpha2"},
		}}}
	}
	cases := map[string]struct {
		op      patchOp
		want    func(map[string]any)
		wantErr bool
	}{
		"AddByName": {
			op: patchOp{Op: "add", Path: "/spec/versions/name=v1alpha1/schema/properties/spec/default", Value: map[string]any{}},
			want: func(m map[string]any) {
				v := m["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
				v["schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["default"] = map[string]any{}
			},
		},
		"AddByIndex": {
			op: patchOp{Op: "add", Path: "/spec/versions/1/served", Value: true},
			want: func(m map[string]any) {
				m["spec"].(map[string]any)["versions"].([]any)[1].(map[string]any)["served"] = true
			},
		},
		"AddMissingLevel": {
			op: patchOp{Op: "add", Path: "/spec/versions/name=v1alpha2/schema/x", Value: "y"},
			want: func(m map[string]any) {
				m["spec"].(map[string]any)["versions"].([]any)[1].(map[string]any)["schema"] = map[string]any{"x": "y"}
			},
		},
		"AddTopLevel": {
			op:   patchOp{Op: "add", Path: "/spec/conversion", Value: map[string]any{"strategy": "None"}},
			want: func(m map[string]any) { m["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "None"} },
		},
		"UnknownName":  {op: patchOp{Op: "add", Path: "/spec/versions/name=v9/x", Value: 1}, wantErr: true},
		"IndexRange":   {op: patchOp{Op: "add", Path: "/spec/versions/7/x", Value: 1}, wantErr: true},
		"NotAdd":       {op: patchOp{Op: "remove", Path: "/spec"}, wantErr: true},
		"RelativePath": {op: patchOp{Op: "add", Path: "spec/x", Value: 1}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := crd()
			err := tc.op.apply(got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("apply: %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			want := crd()
			tc.want(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("-want +got:\n%s", d)
			}
		})
	}
}

// LoadCRDs reads only *.kcp.io CRDs and applies their patch files.
func TestLoadCRDs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"tenancy.kcp.io_workspaces.yaml":       "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: workspaces.tenancy.kcp.io}\nspec: {group: tenancy.kcp.io}\n",
		"tenancy.kcp.io_workspaces.yaml-patch": "- op: add\n  path: /spec/conversion\n  value: {strategy: None}\n",
		"core.kcp.io_shards.yaml":              "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: shards.core.kcp.io}\n",
		"rbac.authorization.k8s.io_roles.yaml": "kind: CustomResourceDefinition\nmetadata: {name: roles.rbac.authorization.k8s.io}\n",
	}
	for f, c := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, d := range docs {
		var m map[string]any
		if err := json.Unmarshal(d, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	want := []map[string]any{
		{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "shards.core.kcp.io"}},
		{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "workspaces.tenancy.kcp.io"},
			"spec": map[string]any{"group": "tenancy.kcp.io", "conversion": map[string]any{"strategy": "None"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("-want +got:\n%s", d)
	}
	if _, err := LoadCRDs(t.TempDir()); err == nil {
		t.Error("an empty directory loaded")
	}
}
