package names

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestInKCPNames(t *testing.T) {
	rs := &v1alpha1.RootShard{}
	rs.Name, rs.Namespace = "root", "kcp"
	cases := map[string]struct {
		reason string
		got    string
		want   string
	}{
		"ProviderConfigRoot": {reason: "One ProviderConfig per workspace, named after the identity it acts as.", got: RootShard("root").ProviderConfig("root"), want: "root-kcp-operator.root"},
		"ProviderConfigDeep": {reason: "Colons become dots, which workspace names never hold.", got: RootShard("root").ProviderConfig("root:team-a:dev"), want: "root-kcp-operator.root.team-a.dev"},
		"AccessKubeconfig":   {reason: "One Secret holds every workspace's kubeconfig.", got: RootShard("root").AccessKubeconfig(), want: "root-kcp-operator-kubeconfig"},
		"Registration":       {reason: "A shard's registration Object is the RootShard's.", got: RootShard("root").Registration("alpha"), want: "root-registration-alpha"},
		"ProxyWorkspaceURL":  {reason: "Credentials reach a workspace through the internal proxy.", got: ProxyWorkspaceURL(rs, "root:team"), want: "https://root-proxy.kcp.svc.cluster.local:6443/clusters/root:team"},
		"KubeconfigBinding":  {reason: "kcp-operator's binding name.", got: KubeconfigBinding("uid", "system:kcp:admin"), want: "uid:system:kcp:admin"},
		"Binding":            {reason: "The Object's name ends in a hash of workspace and role.", got: Binding("Kubeconfig", "admin", "root", "view"), want: "admin-binding-" + "fe53113b1b"}, // printf 'Kubeconfig\0root\0view' | sha256sum
		"BindingOtherPlace":  {reason: "The same role in another workspace is another Object.", got: Binding("Kubeconfig", "admin", "root:team", "view"), want: "admin-binding-" + "5d936b3781"},
		"BindingOtherKind":   {reason: "A Workspace of the Kubeconfig's name binding the same role there is another Object.", got: Binding("Workspace", "admin", "root:team", "view"), want: "admin-binding-" + "f6993c8f6c"},
		"WorkspaceObject":    {reason: "A Workspace XR's Object.", got: Workspace("team-a").Object(), want: "team-a-workspace"},
		"WorkspaceBinding":   {reason: "A Workspace XR's binding in kcp.", got: WorkspaceBinding("cluster-admin"), want: "kcp.crossplane.io:cluster-admin"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s\ngot %q, want %q", tc.reason, tc.got, tc.want)
			}
		})
	}
}

func TestValidateWorkspacePath(t *testing.T) {
	cases := map[string]struct {
		path string
		ok   bool
	}{
		"Root":        {path: "root", ok: true},
		"Nested":      {path: "root:team-a:dev", ok: true},
		"Empty":       {path: ""},
		"Slash":       {path: "root/team"},
		"Upper":       {path: "Root"},
		"EmptyPart":   {path: "root::team"},
		"Dot":         {path: "root.team"},
		"LeadingDash": {path: "root:-team"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := ValidateWorkspacePath(tc.path); (err == nil) != tc.ok {
				t.Errorf("ValidateWorkspacePath(%q) = %v, want ok %v", tc.path, err, tc.ok)
			}
		})
	}
	if diff := cmp.Diff("root.team-a", WorkspaceKey("root:team-a")); diff != "" {
		t.Errorf("WorkspaceKey: -want +got:\n%s", diff)
	}
}
