package inkcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestRender(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    any
		want   string
	}{
		"Object": {
			reason: "An Object carries its manifest, policies and the ProviderConfig of its workspace.",
			got: Object{Name: "admin-binding-x", Namespace: "kcp", Labels: map[string]string{"l": "v"}, Annotations: map[string]string{"a": "w"},
				ProviderConfig: "root-kcp-operator.root", Policies: PoliciesObserveDelete, Manifest: Shard("alpha", "")}.Unstructured().Object,
			want: `apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: Object
metadata:
  annotations:
    a: w
  labels:
    l: v
  name: admin-binding-x
  namespace: kcp
spec:
  forProvider:
    manifest:
      apiVersion: core.kcp.io/v1alpha1
      kind: Shard
      metadata:
        name: alpha
  managementPolicies:
  - Observe
  - Delete
  providerConfigRef:
    kind: ProviderConfig
    name: root-kcp-operator.root
`,
		},
		"ProviderConfig": {
			reason: "A namespaced ProviderConfig reads a key of a Secret in its own namespace.",
			got:    ProviderConfig("root-kcp-operator.root", "kcp", nil, "root-kcp-operator-kubeconfig", "root").Object,
			want: `apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: ProviderConfig
metadata:
  name: root-kcp-operator.root
  namespace: kcp
spec:
  credentials:
    secretRef:
      key: root
      name: root-kcp-operator-kubeconfig
      namespace: kcp
    source: Secret
`,
		},
		"ClusterRoleBinding": {
			reason: "kcp-operator's binding: roleRef to a ClusterRole, subjects in the RBAC group.",
			got:    ClusterRoleBinding("uid:view", map[string]string{"operator.kcp.io/kubeconfig": "uid"}, "view", []Subject{{Kind: "Group", Name: "kubeconfig:admin"}, {Kind: "User", Name: "alice"}}),
			want: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  labels:
    operator.kcp.io/kubeconfig: uid
  name: uid:view
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: kubeconfig:admin
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: alice
`,
		},
		"Workspace": {
			reason: "A kcp Workspace with its type.",
			got:    Workspace("team-a", nil, &WorkspaceType{Name: "universal", Path: "root"}),
			want: `apiVersion: tenancy.kcp.io/v1alpha1
kind: Workspace
metadata:
  name: team-a
spec:
  type:
    name: universal
    path: root
`,
		},
		"WorkspaceDefaultType": {
			reason: "Without a type kcp chooses; the manifest says nothing.",
			got:    Workspace("team-a", nil, nil),
			want: `apiVersion: tenancy.kcp.io/v1alpha1
kind: Workspace
metadata:
  name: team-a
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := yaml.Marshal(tc.got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(b)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
