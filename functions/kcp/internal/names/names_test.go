package names

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLabels(t *testing.T) {
	want := map[string]string{
		"app.kubernetes.io/managed-by": "configuration-kcp",
		"app.kubernetes.io/name":       "kcp",
		"app.kubernetes.io/instance":   "root",
		"app.kubernetes.io/component":  "rootshard-proxy",
	}
	if diff := cmp.Diff(want, Labels("root", ComponentRootShardProxy)); diff != "" {
		t.Errorf("kcp-operator's resource labels, managed by configuration-kcp.\nLabels(...): -want, +got:\n%s", diff)
	}
	a := Labels("root", ComponentRootShard)
	a["x"] = "y"
	if _, ok := Labels("root", ComponentRootShard)["x"]; ok {
		t.Errorf("Labels returns a fresh map on every call")
	}
}

func TestComponents(t *testing.T) {
	got := []string{ComponentRootShard, ComponentRootShardProxy, ComponentShard, ComponentFrontProxy, ComponentCacheServer, ComponentVirtualWS}
	want := []string{"rootshard", "rootshard-proxy", "shard", "front-proxy", "cache-server", "virtual-workspace"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kcp-operator's component label values.\nComponent*: -want, +got:\n%s", diff)
	}
	owners := []string{LabelOwnerRootShard, LabelOwnerShard, LabelOwnerFrontProxy, LabelOwnerCacheServer}
	wantOwners := []string{"operator.kcp.io/rootshard", "operator.kcp.io/shard", "operator.kcp.io/front-proxy", "operator.kcp.io/cache-server"}
	if diff := cmp.Diff(wantOwners, owners); diff != "" {
		t.Errorf("kcp-operator's ownership label keys.\nLabelOwner*: -want, +got:\n%s", diff)
	}
}

func TestServiceFQDN(t *testing.T) {
	cases := map[string]struct {
		reason        string
		clusterDomain string
		want          string
	}{
		"Default": {reason: "An empty cluster domain means cluster.local.", want: "root-kcp.kcp.svc.cluster.local"},
		"Custom":  {reason: "A custom cluster domain is used as given.", clusterDomain: "k8s.example", want: "root-kcp.kcp.svc.k8s.example"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ServiceFQDN("root-kcp", "kcp", tc.clusterDomain)); diff != "" {
				t.Errorf("%s\nServiceFQDN(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNameTable(t *testing.T) {
	r := RootShard("root")
	c := CacheServer("cache")
	v := VirtualWorkspace("vw")
	cases := map[string]struct {
		got, want string
	}{
		"RootCA":                                {r.RootCA(), "root-ca"},
		"ServerCA":                              {r.CA(CAServer), "root-server-ca"},
		"ClientCA":                              {r.CA(CAClient), "root-client-ca"},
		"RequestHeaderClientCA":                 {r.CA(CARequestHeaderClient), "root-requestheader-client-ca"},
		"ServiceAccountCA":                      {r.CA(CAServiceAccount), "root-service-account-ca"},
		"ServerCert":                            {r.Cert("server"), "root-server"},
		"Deployment":                            {r.Deployment(), "root-kcp"},
		"LogicalClusterAdminKubeconfig":         {r.LogicalClusterAdminKubeconfig(), "root-logical-cluster-admin-kubeconfig"},
		"ExternalLogicalClusterAdminKubeconfig": {r.ExternalLogicalClusterAdminKubeconfig(), "root-external-logical-cluster-admin-kubeconfig"},
		"MergedCABundle":                        {r.MergedCABundle(), "root-merged-ca-bundle"},
		"MergedClientCA":                        {r.MergedClientCA(), "root-merged-client-ca"},
		"Proxy":                                 {r.Proxy(), "root-proxy"},
		"ProxyServerCert":                       {r.ProxyCert("server"), "root-proxy-server"},
		"ProxyKubeconfigCert":                   {r.ProxyCert("kubeconfig"), "root-proxy-kubeconfig"},
		"ProxyRequestHeaderCert":                {r.ProxyCert("requestheader"), "root-proxy-requestheader"},
		"ProxyConfig":                           {r.ProxyConfig(), "root-proxy-config"},
		"ProxyDynamicKubeconfig":                {r.ProxyDynamicKubeconfig(), "root-proxy-dynamic-kubeconfig"},
		"ProxyMergedClientCA":                   {r.ProxyMergedClientCA(), "root-proxy-merged-client-ca"},
		"ProxyMergedCABundle":                   {r.ProxyMergedCABundle(), "root-proxy-merged-ca-bundle"},
		"CacheKubeconfig":                       {c.Kubeconfig(), "cache-kubeconfig"},
		"CacheCA":                               {c.CA(), "cache-ca"},
		"CacheClientCertificate":                {c.ClientCertificate(), "cache-client-certificate"},
		"CacheDeployment":                       {c.Deployment(), "cache-cache-server"},
		"VirtualWorkspaceDeployment":            {v.Deployment(), "vw-virtual-workspace"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("kcp-operator v0.9.0's name table (§2.0).\n%s: -want, +got:\n%s", name, diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"server", "client", "requestheader-client", "service-account"}, IntermediateCAs); diff != "" {
		t.Errorf("The four intermediate CAs, in kcp-operator's order.\nIntermediateCAs: -want, +got:\n%s", diff)
	}
}
