package main

import (
	"sort"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
)

// cacheServerXR is the smallest CacheServer: embedded etcd, CA from a ClusterIssuer.
func cacheServerXR(spec string) string {
	return `{
	"apiVersion": "kcp.crossplane.io/v1alpha1",
	"kind": "CacheServer",
	"metadata": {"name": "cache", "namespace": "kcp"},
	"spec": ` + spec + `
}`
}

const basicCacheServerSpec = `{"certificates": {"issuerRef": {"group": "cert-manager.io", "kind": "ClusterIssuer", "name": "kcp-selfsigned"}}}`

func TestRunFunctionCacheServerFatal(t *testing.T) {
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
		"MissingIssuerRef": {
			reason: "quirk 6: kcp-operator panics without issuerRef; the function returns a Fatal result naming the field, and composes nothing.",
			xr:     cacheServerXR(`{"certificates": {}}`),
			want: fatal("invalid CacheServer kcp/cache, nothing was changed: spec.certificates.issuerRef: Required value: a CacheServer's CA must be issued by cert-manager: " +
				"set issuerRef to the Issuer or ClusterIssuer that issues it, for example {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}"),
		},
		"ReplicasWithoutEtcd": {
			reason: "More than one replica needs an external etcd.",
			xr:     cacheServerXR(`{"replicas": 3, "certificates": {"issuerRef": {"name": "x"}}}`),
			want: fatal("invalid CacheServer kcp/cache, nothing was changed: spec.replicas: Invalid value: 3: without spec.etcd the cache server keeps its data in an embedded etcd that only one replica can use; " +
				"remove spec.replicas or set it to 1, or set spec.etcd to an external etcd to run more replicas"),
		},
		"WrongFieldType": {
			reason: "A field of the wrong type cannot be decoded.",
			xr:     cacheServerXR(`{"replicas": "two", "certificates": {"issuerRef": {"name": "x"}}}`),
			want:   fatal("cannot decode CacheServer: spec.replicas must be of type int32, not a JSON string"),
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

func TestRunFunctionCacheServerComposes(t *testing.T) {
	rsp := run(t, newRequest(cacheServerXR(`{"certificates": {"issuerRef": {"name": "x"}}, "certificateTemplates": {"bogus": {}}}`)))

	wantResults := []*fnv1.Result{{
		Severity: fnv1.Severity_SEVERITY_WARNING,
		Message:  `spec.certificateTemplates["bogus"] matches no certificate and is ignored; known keys: [root-ca server client]`,
		Target:   fnv1.Target_TARGET_COMPOSITE.Enum(),
	}}
	if diff := cmp.Diff(wantResults, rsp.GetResults(), protocmp.Transform()); diff != "" {
		t.Errorf("an unknown template key is a warning: -want, +got:\n%s", diff)
	}
	var got []string
	for name := range rsp.GetDesired().GetResources() {
		got = append(got, name)
	}
	// One object of each kind at first (desired.WithholdNewKinds): the server and client
	// certificates follow once the CA's Certificate exists.
	want := []string{"certificate-ca", "issuer-ca", "secret-kubeconfig"}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a fresh CacheServer composes its PKI and kubeconfig: -want, +got:\n%s", diff)
	}
	if got := rsp.GetDesired().GetComposite().GetReady(); got != fnv1.Ready_READY_FALSE {
		t.Errorf("XR readiness = %v, want READY_FALSE until the Deployment exists", got)
	}
	wantReq := &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{
		"secret/cache-ca": {ApiVersion: "v1", Kind: "Secret", Match: &fnv1.ResourceSelector_MatchName{MatchName: "cache-ca"}, Namespace: proto.String("kcp")},
	}}
	if diff := cmp.Diff(wantReq, rsp.GetRequirements(), protocmp.Transform()); diff != "" {
		t.Errorf("an embedded-etcd CacheServer requires only its own CA, which its reference publishes: -want, +got:\n%s", diff)
	}
	status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"]
	wantStatus := map[string]any{"phase": "Provisioning", "url": "https://cache-cache-server.kcp.svc.cluster.local:6443", "storage": "Embedded"}
	if diff := cmp.Diff(wantStatus, status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
	var types []string
	for _, c := range rsp.GetConditions() {
		types = append(types, c.GetType())
	}
	if diff := cmp.Diff([]string{"CertificatesReady", "InputsReady", "Available"}, types); diff != "" {
		t.Errorf("conditions: -want, +got:\n%s", diff)
	}
}

func TestRunFunctionCacheServerRequiresEtcdSecret(t *testing.T) {
	rsp := run(t, newRequest(cacheServerXR(`{"certificates": {"issuerRef": {"name": "x"}},
		"etcd": {"endpoints": ["https://etcd:2379"], "tlsConfig": {"secretRef": {"name": "etcd-client"}}}}`)))
	want := &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{
		"secret/etcd-client": {ApiVersion: "v1", Kind: "Secret", Match: &fnv1.ResourceSelector_MatchName{MatchName: "etcd-client"}, Namespace: proto.String("kcp")},
		"secret/cache-ca":    {ApiVersion: "v1", Kind: "Secret", Match: &fnv1.ResourceSelector_MatchName{MatchName: "cache-ca"}, Namespace: proto.String("kcp")},
	}}
	if diff := cmp.Diff(want, rsp.GetRequirements(), protocmp.Transform()); diff != "" {
		t.Errorf("the etcd TLS Secret is read as a required resource: -want, +got:\n%s", diff)
	}
}

func TestRunFunctionCacheServerConverged(t *testing.T) {
	rsp := run(t, convergedRequest(t, cacheServerXR(basicCacheServerSpec)))
	if len(rsp.GetResults()) != 0 {
		t.Errorf("a valid CacheServer yields no results, got %v", rsp.GetResults())
	}
	if got := len(rsp.GetDesired().GetResources()); got != 8 {
		t.Errorf("a converged CacheServer composes 8 resources (kcp-operator's 7 and its reference), got %d", got)
	}
	for name, r := range rsp.GetDesired().GetResources() {
		if r.GetReady() != fnv1.Ready_READY_TRUE {
			t.Errorf("converged: %s is not ready", name)
		}
	}
	if got := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["phase"]; got != "Running" {
		t.Errorf("converged phase = %v, want Running", got)
	}
}
