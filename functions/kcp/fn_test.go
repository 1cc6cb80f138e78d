package main

import (
	"context"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

const basicXR = `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "RootShard",
	"metadata": {"name": "root", "namespace": "kcp"},
	"spec": {
		"external": {"hostname": "api.example.com", "port": 6443},
		"certificates": {"issuerRef": {"group": "cert-manager.io", "kind": "ClusterIssuer", "name": "kcp-selfsigned"}},
		"cache": {},
		"etcd": {"endpoints": ["http://etcd.kcp.svc.cluster.local:2379"]}
	}
}`

// withSpec replaces the spec of basicXR.
func withSpec(spec string) string {
	i := strings.Index(basicXR, `"spec":`)
	return basicXR[:i] + `"spec": ` + spec + "\n}"
}

func newRequest(xr string) *fnv1.RunFunctionRequest {
	return &fnv1.RunFunctionRequest{
		Meta:     &fnv1.RequestMeta{Tag: "t"},
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: fnrequest.StructJSON(xr)}},
	}
}

func run(t *testing.T, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	f := newFunction(logging.NewNopLogger(), breaker{})
	rsp, err := f.RunFunction(context.Background(), req)
	if err != nil {
		t.Fatalf("RunFunction returned a Go error; errors must be results: %v", err)
	}
	return rsp
}

func TestRunFunctionFatal(t *testing.T) {
	fatal := func(msg string) *fnv1.RunFunctionResponse {
		return &fnv1.RunFunctionResponse{
			Meta:    &fnv1.ResponseMeta{Tag: "t", Ttl: durationpb.New(60_000_000_000)},
			Results: []*fnv1.Result{{Severity: fnv1.Severity_SEVERITY_FATAL, Message: msg, Target: fnv1.Target_TARGET_COMPOSITE.Enum()}},
		}
	}
	cases := map[string]struct {
		reason string
		xr     string
		want   *fnv1.RunFunctionResponse
	}{
		"BothRootCASources": {
			reason: "issuerRef and caSecretRef are mutually exclusive: Fatal naming the field, nothing composed.",
			xr: withSpec(`{"external": {"hostname": "api.example.com", "port": 6443}, "cache": {},
				"certificates": {"issuerRef": {"name": "x"}, "caSecretRef": {"name": "y"}},
				"etcd": {"endpoints": ["http://etcd:2379"]}}`),
			want: fatal("invalid RootShard kcp/root, nothing was changed: spec.certificates: Forbidden: set either issuerRef (a cert-manager issuer for the root CA) or caSecretRef (an existing CA Secret), not both"),
		},
		"MissingRootCASource": {
			reason: "A RootShard needs a root CA source.",
			xr: withSpec(`{"external": {"hostname": "api.example.com", "port": 6443}, "cache": {}, "certificates": {},
				"etcd": {"endpoints": ["http://etcd:2379"]}}`),
			want: fatal("invalid RootShard kcp/root, nothing was changed: spec.certificates.issuerRef: Required value: set issuerRef to a cert-manager Issuer or ClusterIssuer that issues the root CA, or caSecretRef to an existing CA Secret"),
		},
		"MalformedShardBaseURL": {
			reason: "shardBaseURL must be an https URL.",
			xr: withSpec(`{"external": {"hostname": "api.example.com", "port": 6443}, "cache": {}, "shardBaseURL": "root:6443",
				"certificates": {"issuerRef": {"name": "x"}}, "etcd": {"endpoints": ["http://etcd:2379"]}}`),
			want: fatal(`invalid RootShard kcp/root, nothing was changed: spec.shardBaseURL: Invalid value: "root:6443": must be an https URL with host and optional port and no path, for example https://root.kcp.svc.cluster.local:6443`),
		},
		"BadImageTag": {
			reason: "An image tag with illegal characters never pulls.",
			xr: withSpec(`{"external": {"hostname": "api.example.com", "port": 6443}, "cache": {}, "image": {"tag": "v0.32:3"},
				"certificates": {"issuerRef": {"name": "x"}}, "etcd": {"endpoints": ["http://etcd:2379"]}}`),
			want: fatal(`invalid RootShard kcp/root, nothing was changed: spec.image.tag: Invalid value: "v0.32:3": must be a valid image tag (letters, digits, '_', '.', '-'; at most 128 characters), for example v0.32.3`),
		},
		"MissingRequiredFields": {
			reason: "Every missing required field is named at once.",
			xr:     withSpec(`{"cache": {}, "certificates": {"issuerRef": {"name": "x"}}}`),
			want:   fatal(`invalid RootShard kcp/root, nothing was changed: spec.etcd.endpoints: Required value: list at least one etcd client URL, for example https://etcd:2379; spec.external.hostname: Required value: set the public hostname clients use, for example api.example.com; spec.external.port: Invalid value: 0: must be a port between 1 and 65535, for example 6443`),
		},
		"WrongFieldType": {
			reason: "A field of the wrong type cannot be decoded.",
			xr:     withSpec(`{"replicas": "two"}`),
			want:   fatal(`cannot decode RootShard: spec.replicas must be of type int32, not a JSON string`),
		},
		"KcpInstallationChildInvalid": {
			reason: "A KcpInstallation never composes an XR its own kind would reject: each child is checked by its kind's row of the table, and the error names the installation's field.",
			xr: `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "metadata": {"name": "a-very-long-installation-name", "namespace": "tenant"},
				"spec": {"external": {"hostname": "kcp.example.com"}, "certificates": {"issuerRef": {"name": "x", "kind": "ClusterIssuer"}}}}`,
			want: fatal(`invalid KcpInstallation tenant/a-very-long-installation-name, nothing was changed: spec.frontProxies[0]: Invalid value: "a-very-long-installation-name-public": the FrontProxy a-very-long-installation-name-public this composes: metadata.name: Invalid value: "a-very-long-installation-name-public": with RootShard a-very-long-installation-name (spec.rootShard.ref.name) the front-proxy would mount volumes named a-very-long-installation-name-a-very-long-installation-name-public-dynamic-kubeconfig, a-very-long-installation-name-a-very-long-installation-name-public-kubeconfig, a-very-long-installation-name-a-very-long-installation-name-public-server, a-very-long-installation-name-a-very-long-installation-name-public-requestheader, which are not valid volume names (at most 63 lowercase letters, digits and '-'): shorten the FrontProxy's name; shorten this KcpInstallation's metadata.name or spec.frontProxies[0].name`),
		},
		"UnsupportedKind": {
			reason: "Only kcp.crossplane.io kinds are composed.",
			xr:     `{"apiVersion": "example.org/v1", "kind": "Thing", "metadata": {"name": "x"}}`,
			want:   fatal("unsupported composite resource kind Thing.example.org: this function composes kcp.crossplane.io kinds (CacheServer, CertificateSet, ClaimedKcpInstallation, FrontProxy, KcpInstallation, Kubeconfig, PublishedAPI, RootShard, Shard, Tenant, TenantRequest, VirtualWorkspace, Workspace)"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, newRequest(tc.xr))
			if diff := cmp.Diff(tc.want, rsp, protocmp.Transform()); diff != "" {
				t.Errorf("%s\nf.RunFunction(...): -want rsp, +got rsp:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRunFunctionComposes(t *testing.T) {
	rsp := run(t, newRequest(basicXR))

	if len(rsp.GetResults()) != 0 {
		t.Errorf("a valid RootShard yields no results, got %v", rsp.GetResults())
	}
	// Eight resources (its PKI in three CertificateSets, three kubeconfig Secrets, the proxy
	// config, the ProviderConfig of workspace root), one CertificateSet at first: the other two
	// follow once it exists (desired.WithholdNewKinds; Secrets are never withheld).
	if got := len(rsp.GetDesired().GetResources()); got != 6 {
		t.Errorf("fresh RootShard composes one CertificateSet, three Secrets, the ConfigMap and the ProviderConfig, got %d resources", got)
	}
	if got := rsp.GetDesired().GetComposite().GetReady(); got != fnv1.Ready_READY_FALSE {
		t.Errorf("XR readiness = %v, want READY_FALSE until workloads exist", got)
	}
	sel := rsp.GetRequirements().GetResources()["secret/root-client-ca"]
	want := &fnv1.ResourceSelector{ApiVersion: "v1", Kind: "Secret", Match: &fnv1.ResourceSelector_MatchName{MatchName: "root-client-ca"}, Namespace: proto.String("kcp")}
	if diff := cmp.Diff(want, sel, protocmp.Transform()); diff != "" {
		t.Errorf("requirement for the client CA Secret: -want, +got:\n%s", diff)
	}
	status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)
	if status["phase"] != "Provisioning" || status["externalURL"] != "https://api.example.com:6443" || status["baseURL"] != "https://root-kcp.kcp.svc.cluster.local:6443" {
		t.Errorf("status = %v", status)
	}
	var types []string
	for _, c := range rsp.GetConditions() {
		types = append(types, c.GetType())
	}
	if diff := cmp.Diff([]string{"CertificatesReady", "InputsReady", "Available"}, types); diff != "" {
		t.Errorf("conditions: -want, +got:\n%s", diff)
	}
}

func TestRunFunctionDeterministic(t *testing.T) {
	first, err := proto.MarshalOptions{Deterministic: true}.Marshal(run(t, newRequest(basicXR)))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := proto.MarshalOptions{Deterministic: true}.Marshal(run(t, newRequest(basicXR)))
		if err != nil {
			t.Fatal(err)
		}
		if string(first) != string(again) {
			t.Fatalf("the same request must give a byte-identical response")
		}
	}
}

func TestRunFunctionWarnings(t *testing.T) {
	xr := withSpec(`{"external": {"hostname": "api.example.com", "port": 6443}, "cache": {"embedded": {"enabled": true}},
		"certificates": {"issuerRef": {"name": "x"}}, "etcd": {"endpoints": ["http://etcd:2379"]},
		"certificateTemplates": {"serverr": {"spec": {"dnsNames": ["x"]}}}}`)
	rsp := run(t, newRequest(xr))
	var msgs []string
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() != fnv1.Severity_SEVERITY_WARNING {
			t.Errorf("unexpected result %v", r)
		}
		msgs = append(msgs, r.GetMessage())
	}
	want := []string{
		`spec.certificateTemplates["serverr"] matches no certificate and is ignored; known keys: [server virtual-workspaces service-account logical-cluster-admin external-logical-cluster-admin client kcp-operator root-ca server-ca client-ca requestheader-client-ca service-account-ca]`,
		"spec.cache.embedded is deprecated and ignored: the root shard runs an embedded cache whenever spec.cache.ref is empty",
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("warnings: -want, +got:\n%s", diff)
	}
	if len(rsp.GetDesired().GetResources()) == 0 {
		t.Errorf("warnings must not stop composition")
	}
}
