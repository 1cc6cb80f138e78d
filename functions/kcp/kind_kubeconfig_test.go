package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// selfSignedPEM is a throwaway self-signed CA certificate and its key, in PEM.
func selfSignedPEM(tb testing.TB, cn string) (crt, key []byte) {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, k.Public(), k)
	if err != nil {
		tb.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd})
}

func secretData(name string, data map[string][]byte) map[string]any {
	enc := map[string]any{}
	for k, v := range data {
		enc[k] = base64.StdEncoding.EncodeToString(v)
	}
	return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": "kcp"}, "data": enc}
}

// kubeconfigWorld is what a Kubeconfig targeting the basic RootShard reads once cert-manager
// issued its certificate: the RootShard, its CAs with a valid server CA, and the client
// certificate Secret with its key.
func kubeconfigWorld(tb testing.TB) []map[string]any {
	serverCA, _ := selfSignedPEM(tb, "root-server-ca")
	crt, key := selfSignedPEM(tb, "kcp-admin")
	return append(rootShardWorld(tb),
		secretData("root-server-ca", map[string][]byte{"tls.crt": serverCA}),
		secretData("kubeconfig-cert-admin", map[string][]byte{"tls.crt": crt, "tls.key": key}))
}

func TestConvergedKubeconfig(t *testing.T) {
	rsp := run(t, convergedRequest(t, benchKubeconfigXR, kubeconfigWorld(t)...))
	if len(rsp.GetResults()) != 0 {
		t.Errorf("a valid Kubeconfig yields no results, got %v", rsp.GetResults())
	}
	var keys []string
	for k := range rsp.GetDesired().GetResources() {
		keys = append(keys, k)
	}
	if diff := cmp.Diff([]string{"certificate-kubeconfig-cert-admin", "secret-admin-kubeconfig", "secret-kubeconfig-cert-admin"}, keys, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("a converged Kubeconfig composes its Certificate, its kubeconfig Secret, and adopts the issued certificate Secret.\n-want, +got:\n%s", diff)
	}
	if rsp.GetDesired().GetComposite().GetReady() == fnv1.Ready_READY_FALSE {
		t.Errorf("a converged Kubeconfig is not forced not ready")
	}
	status := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"]
	want := map[string]any{"phase": "Ready", "targetName": "RootShard/root", "secretName": "admin-kubeconfig"}
	if diff := cmp.Diff(want, status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
	var conds []string
	for _, c := range rsp.GetConditions() {
		conds = append(conds, c.GetType()+"="+c.GetStatus().String()+"/"+c.GetReason())
	}
	wantConds := []string{"CertificatesReady=STATUS_CONDITION_TRUE/Issued", "InputsReady=STATUS_CONDITION_TRUE/AllPresent", "KubeconfigReady=STATUS_CONDITION_TRUE/SecretWritten"}
	if diff := cmp.Diff(wantConds, conds); diff != "" {
		t.Errorf("conditions: -want, +got:\n%s", diff)
	}
	for _, k := range []string{"rootshard/root", "secret/kubeconfig-cert-admin", "secret/root-server-ca", "secret/admin-kubeconfig"} {
		if _, ok := rsp.GetRequirements().GetResources()[k]; !ok {
			t.Errorf("requirement %s missing", k)
		}
	}

	secret := rsp.GetDesired().GetResources()["secret-admin-kubeconfig"].GetResource().AsMap()
	data, err := base64.StdEncoding.DecodeString(secret["data"].(map[string]any)["kubeconfig"].(string))
	if err != nil {
		t.Fatal(err)
	}
	var cfg kubeconfigfile.Config
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "default" || len(cfg.Clusters) != 2 || cfg.Clusters[1].Cluster.Server != "https://root-kcp.kcp.svc.cluster.local:6443/clusters/root" {
		t.Errorf("kubeconfig: %s", data)
	}
	if md := secret["metadata"].(map[string]any); md["annotations"] != nil || len(md["labels"].(map[string]any)) != 1 {
		t.Errorf("the kubeconfig Secret carries only its ownership label: %v", md)
	}
}

func TestKubeconfigFresh(t *testing.T) {
	rsp := run(t, newRequest(benchKubeconfigXR))
	if n := len(rsp.GetDesired().GetResources()); n != 0 {
		t.Errorf("without its RootShard a Kubeconfig composes nothing, got %d resources", n)
	}
	if rsp.GetDesired().GetComposite().GetReady() != fnv1.Ready_READY_FALSE {
		t.Errorf("a Kubeconfig without its target is not ready")
	}
	sel := rsp.GetRequirements().GetResources()["rootshard/root"]
	if sel.GetApiVersion() != "kcp.crossplane.io/v1alpha1" || sel.GetKind() != "RootShard" || sel.GetMatchName() != "root" || sel.GetNamespace() != "kcp" {
		t.Errorf("the RootShard is required by name in the XR's namespace: %v", sel)
	}
}

func TestKubeconfigResults(t *testing.T) {
	withSpec := func(spec string) string {
		i := strings.Index(benchKubeconfigXR, `"spec":`)
		return benchKubeconfigXR[:i] + `"spec":` + spec + "}"
	}
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
		"TwoTargets": {
			reason: "Exactly one target, named: Fatal naming every bad field, nothing composed or deleted.",
			xr:     withSpec(`{"target":{"rootShardRef":{"name":"root"},"shardRef":{"name":"alpha"}},"username":"","validity":"8760h","secretRef":{"name":"x"}}`),
			want:   fatal("invalid Kubeconfig kcp/admin, nothing was changed: spec.target: Forbidden: set exactly one of rootShardRef, shardRef, frontProxyRef or referenceSecretRef; spec.username: Required value: set the user name, the common name of the client certificate"),
		},
		"SecretIsACA": {
			reason: "The output Secret must not be one the installation uses.",
			xr:     withSpec(`{"target":{"rootShardRef":{"name":"root"}},"username":"a","validity":"8760h","secretRef":{"name":"root-ca"}}`),
			want:   fatal(`invalid Kubeconfig kcp/admin, nothing was changed: spec.secretRef.name: Invalid value: "root-ca": is a Secret of RootShard root; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`),
		},
		"WrongType": {
			reason: "A field of the wrong type cannot be decoded.",
			xr:     withSpec(`{"target":{"rootShardRef":{"name":"root"}},"username":"a","validity":"8760h","groups":"ops","secretRef":{"name":"x"}}`),
			want:   fatal("cannot decode Kubeconfig: spec.groups must be of type []string, not a JSON string"),
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

	// The deprecated workspace field loses to targetWorkspace, as in kcp-operator; the user is
	// told which one binds.
	rsp := run(t, newRequest(withSpec(`{"target":{"rootShardRef":{"name":"root"}},"username":"a","validity":"8760h","secretRef":{"name":"x"},"targetWorkspace":"root:a","authorization":{"clusterRoleBindings":{"cluster":"root:b","clusterRoles":["cluster-admin"]}}}`)))
	var msgs []string
	for _, r := range rsp.GetResults() {
		msgs = append(msgs, r.GetSeverity().String()+": "+r.GetMessage())
	}
	want := []string{"SEVERITY_WARNING: spec.authorization.clusterRoleBindings.cluster (root:b) is deprecated and ignored while spec.targetWorkspace (root:a) is set: the roles are bound in root:a"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("spec.authorization: -want, +got:\n%s", diff)
	}
}
