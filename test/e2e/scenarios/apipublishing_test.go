package scenarios

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/syncagent"
)

// The APIPublishing scenario: PublishedAPI widgets beside Basic's RootShard root (namespace
// kcp), its agent in namespace e2e-apipub-agents of the service cluster (this cluster,
// reached through a kubeconfig), and a refused one in a tenant's namespace.
const (
	apipubName            = "widgets"
	apipubAgentsNamespace = "e2e-apipub-agents"
	apipubTenantNamespace = "e2e-apipub-tenant"
	apipubProviderConfig  = "e2e-apipub-service-cluster"
	apipubWorkspace       = "root:providers"
	// apipubFieldManager owns data.features.apiPublishing of the shared policy, so the
	// other lane's scenarios, which apply the policy as field manager e2e (or client-side),
	// neither remove it nor own it.
	apipubFieldManager = "e2e-apipublishing"
)

// Names the function gives what PublishedAPI widgets in namespace kcp composes.
const (
	apipubAgent      = "syncagent-kcp-" + apipubName
	apipubRole       = "kcp.crossplane.io:" + apipubAgent
	apipubDeployment = apipubName + "-syncagent"
	apipubKubeconfig = apipubName + "-syncagent"
	apipubSecret     = apipubName + "-syncagent-kubeconfig"
	apipubSelector   = "kcp.crossplane.io/published-api=" + apipubAgent
)

var (
	kcpAPIExports = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha2", Resource: "apiexports"}
	clusterRoles  = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
)

// apipubManifest is PublishedAPI widgets in namespace ns: two resources of two groups, one
// with a related Secret, published from root:providers.
func apipubManifest(ns string) []byte {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "PublishedAPI",
		"metadata": map[string]any{"name": apipubName, "namespace": ns},
		"spec": map[string]any{
			"rootShard": map[string]any{"name": "root"},
			"workspace": apipubWorkspace,
			"resources": []any{
				map[string]any{
					"name": "database", "group": "platform.example.org", "kind": "Database", "plural": "databases", "versions": []string{"v1alpha1"},
					"related": []any{map[string]any{"identifier": "connection", "origin": "Service", "kind": "Secret", "nameTemplate": "{{ .Object.metadata.name }}-connection"}},
				},
				map[string]any{
					"name": "bucket", "group": "storage.example.net", "kind": "Bucket", "plural": "buckets", "versions": []string{"v1", "v1beta1"},
					"projection": map[string]any{"kind": "ObjectBucket", "shortNames": []string{"ob"}},
				},
			},
			"serviceCluster": map[string]any{
				"providerConfigRef": map[string]any{"name": apipubProviderConfig},
				"namespace":         apipubAgentsNamespace,
			},
		},
	})
	return b
}

// policyRule is an RBAC rule as the scenario compares them.
type policyRule struct {
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
	Verbs           []string `json:"verbs"`
}

var (
	verbsManage = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	verbsRead   = []string{"get", "list", "watch"}
	// apipubServiceRules are the agent's cluster-wide rights in the service cluster: CRDs and
	// its PublishedResources read, their status written, namespaces created, events recorded,
	// the published resources (with status) and the related kind (Secrets, which it reads
	// everywhere anyway) managed. Nothing else.
	apipubServiceRules = []policyRule{
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: verbsRead},
		{APIGroups: []string{"syncagent.kcp.io"}, Resources: []string{"publishedresources"}, Verbs: verbsRead},
		{APIGroups: []string{"syncagent.kcp.io"}, Resources: []string{"publishedresources/status"}, Verbs: []string{"get", "patch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch", "create"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"platform.example.org"}, Resources: []string{"databases", "databases/status"}, Verbs: verbsManage},
		{APIGroups: []string{"storage.example.net"}, Resources: []string{"buckets", "buckets/status"}, Verbs: verbsManage},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: verbsManage},
	}
	// apipubNamespaceRules are its rights in its own namespace: its Lease, and the Secrets
	// holding each synced object's last state.
	apipubNamespaceRules = []policyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: verbsManage},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: verbsManage},
	}
	// apipubKCPRules are its rights in the provider workspace: its own export only.
	apipubKCPRules = []policyRule{
		{NonResourceURLs: []string{"/"}, Verbs: []string{"access"}},
		{APIGroups: []string{"core.kcp.io"}, Resources: []string{"logicalclusters"}, ResourceNames: []string{"cluster"}, Verbs: []string{"get"}},
		{APIGroups: []string{"apis.kcp.io"}, Resources: []string{"apiexports"}, ResourceNames: []string{apipubName}, Verbs: []string{"get", "list", "watch", "patch", "update"}},
		{APIGroups: []string{"apis.kcp.io"}, Resources: []string{"apiexports/content"}, ResourceNames: []string{apipubName}, Verbs: []string{"*"}},
		{APIGroups: []string{"apis.kcp.io"}, Resources: []string{"apiexportendpointslices"}, Verbs: verbsRead},
		{APIGroups: []string{"apis.kcp.io"}, Resources: []string{"apiresourceschemas"}, Verbs: []string{"get", "list", "watch", "create"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"get", "create", "patch", "update"}},
	}
	// apipubArgs are the agent's flags, in order.
	apipubArgs = []string{
		"--namespace=" + apipubAgentsNamespace,
		"--agent-name=" + apipubAgent,
		"--apiexportendpointslice-ref=" + apipubName,
		"--kcp-kubeconfig=/etc/api-syncagent/kcp/kubeconfig",
		"--published-resource-selector=" + apipubSelector,
		"--enable-leader-election",
		"--metrics-address=0.0.0.0:8085",
		"--health-address=0.0.0.0:8086",
	}
)

// testAPIPublishing is issue 54 on kwok: what a PublishedAPI composes, beside Basic's
// RootShard root in namespace kcp, with a kcp stand-in (KCPStandIn, not kcp) for that
// RootShard, so that what acts in kcp is created, and deleted, somewhere. The service
// cluster is this cluster, reached through a kubeconfig Secret and ProviderConfig of the
// platform's (provider-kubernetes runs as a process here: InjectedIdentity would not work).
//
//   - Refused: a PublishedAPI in a namespace the policy does not allow reports Synced=False
//     naming metadata.namespace and data.features.apiPublishing, and composes nothing.
//   - ServiceCluster: the agent's namespace (never deleted), ServiceAccount, ClusterRole
//     (exactly the published resources, CRDs and PublishedResources read, their status,
//     namespaces, events, the related Secrets), ClusterRoleBinding, Role (Lease, state
//     Secrets) and RoleBinding; a PublishedResource per resource,
//     labelled for the agent; its Deployment (args, Pod Security restricted, the ServiceAccount's
//     token mounted) running on kwok nodes; its kubeconfig copied from the Kubeconfig's Secret.
//   - InKCP: the Objects for the APIExport (never deleted) and the agent's ClusterRole in
//     root:providers, as composed and as created in the stand-in; the Kubeconfig XR, its
//     certificate of the RootShard's client CA, and the binding of the role to its group.
//   - Deleted: deleting the PublishedAPI removes the agent's objects in the service cluster,
//     its role and binding in kcp and everything it composed in kcp's namespace; the APIExport
//     stays in kcp.
func testAPIPublishing(t *testing.T, e *env) {
	ctx := t.Context()
	ns := basicNamespace
	started := time.Now()
	if err := e.InstallProviderKubernetes(ctx); err != nil {
		t.Fatal(err)
	}

	// The platform's part: the policy letting namespace kcp publish, the PublishedResource
	// CRD, the agents' namespace (enforcing Pod Security restricted), the service cluster's
	// kubeconfig and ProviderConfig; a kcp stand-in for RootShard root.
	// TestKCP allowed namespace kcp to publish before the lanes started
	// (allowAPIPublishingBeforeLanes): the policy is not changed while other lanes run.
	// Clean up first, while the stand-in still answers for what was created in kcp.
	defer func() {
		apipubCleanUp(ctx, t, e)
		e.CloseKCPStandIn(ns, "root")
	}()
	crd := os.Getenv(syncagent.EnvCRD)
	if crd == "" {
		t.Fatalf("%s is not set: TestMain resolves it before entering the network namespace", syncagent.EnvCRD)
	}
	if _, err := e.ApplyFiles(ctx, crd); err != nil {
		t.Fatal(err)
	}
	// The agents' namespace is the function's to create (Object <deployment>.namespace).
	if _, err := e.Kubectl(ctx, nil, "create", "namespace", apipubTenantNamespace); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := e.EmbeddedKubeconfig("platform:"+apipubProviderConfig, "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	platform, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": apipubProviderConfig + "-kubeconfig", "namespace": ns},
			"data":     map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString(kubeconfig)},
		},
		map[string]any{
			"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "ProviderConfig",
			"metadata": map[string]any{"name": apipubProviderConfig, "namespace": ns},
			"spec": map[string]any{"credentials": map[string]any{"source": "Secret",
				"secretRef": map[string]any{"namespace": ns, "name": apipubProviderConfig + "-kubeconfig", "key": "kubeconfig"}}},
		},
	}})
	if err := e.Apply(ctx, platform); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitCondition(ctx, time.Minute, "Established", "crd", "publishedresources.syncagent.kcp.io"); err != nil {
		t.Fatal(err)
	}
	kcp, err := e.KCPStandInFromSecrets(ctx, ns, "root")
	if err != nil {
		t.Fatal(err)
	}

	// The tenant's PublishedAPI first: it is refused while the platform's converges.
	if err := e.Apply(ctx, apipubManifest(apipubTenantNamespace)); err != nil {
		t.Fatal(err)
	}
	applied := time.Now()
	if err := e.Apply(ctx, apipubManifest(ns)); err != nil {
		t.Fatal(err)
	}

	// The platform makes the agents' namespace enforce Pod Security restricted once the
	// function created it (ServiceCluster checks the pods against it).
	if err := e.Eventually(ctx, timeout, "namespace "+apipubAgentsNamespace+" created by the PublishedAPI", func(ctx context.Context) (bool, string, error) {
		_, err := e.Kubectl(ctx, nil, append([]string{"label", "namespace", apipubAgentsNamespace, "--overwrite"}, restrictedLabels...)...)
		return err == nil, fmt.Sprint(err), nil
	}); err != nil {
		dumpAPIPublishingObjects(ctx, t, e)
		t.Fatal(err)
	}

	t.Run("Refused", func(t *testing.T) { checkAPIPublishingRefused(ctx, t, e) })

	// Ready needs the Kubeconfig's certificate, the RootShard's credentials for
	// root:providers (it reads the Objects that need them on its poll interval: nudged), the
	// Objects in kcp and in the service cluster, and the agent's Deployment available.
	x, err := waitXRNudging(ctx, t, e, "PublishedAPI", ns, apipubName, "Ready", "True",
		"rootshard/root", "publishedapi/"+apipubName, "kubeconfig/"+apipubKubeconfig)
	if err != nil {
		dumpAPIPublishingObjects(ctx, t, e)
		t.Fatal(err)
	}
	e.Step("apipub: PublishedAPI %s/%s Ready %.1fs after apply (agent on kwok fake nodes, APIExport in the kcp stand-in)", ns, apipubName, time.Since(applied).Seconds())
	checkAPIPublishingStatus(t, x)

	t.Run("ServiceCluster", func(t *testing.T) { checkAPIPublishingServiceCluster(ctx, t, e) })
	root := standInWorkspace(ctx, t, kcp.Dynamic, apipubWorkspace)
	t.Run("InKCP", func(t *testing.T) { checkAPIPublishingInKCP(ctx, t, e, root) })
	t.Run("Deleted", func(t *testing.T) { checkAPIPublishingDeleted(ctx, t, e, root) })
	e.Step("apipub: scenario took %.1fs", time.Since(started).Seconds())
}

// allowAPIPublishingBeforeLanes lets Basic's namespace publish APIs, for APIPublishing,
// once, before the lanes start, and for the rest of the run. A change of the policy reaches
// every XR that reads it at once; made in the middle of the other lane, while Tenant's
// installation was coming up again, it left that installation's RootShard looping behind
// its circuit breaker for 8 minutes (CertificateSet and PodDisruptionBudget events, twice in
// two full runs on Crossplane v2.3.5), so no scenario changes it mid-run.
func allowAPIPublishingBeforeLanes(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	if err := setAPIPublishingPolicy(ctx, e, []string{basicNamespace}); err != nil {
		t.Fatal(err)
	}
}

// setAPIPublishingPolicy sets data.features.apiPublishing of the platform's policy to
// namespaces, as field manager apipubFieldManager: the rest of the policy is the other
// scenarios', left as it is, and their applies (server-side as field manager e2e, or
// client-side) leave this field, which they do not own.
func setAPIPublishingPolicy(ctx context.Context, e *env, namespaces []string) error {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
		"metadata": map[string]any{"name": "kcp-self-service"},
		"data":     map[string]any{"features": map[string]any{"apiPublishing": namespaces}},
	})
	_, err := e.Kubectl(ctx, b, "apply", "--server-side", "--force-conflicts", "--field-manager="+apipubFieldManager, "-f", "-")
	return err
}

// checkAPIPublishingRefused: the tenant's PublishedAPI says why in Synced, and composes
// nothing, here or in the service cluster.
func checkAPIPublishingRefused(ctx context.Context, t *testing.T, e *env) {
	ns := apipubTenantNamespace
	x, err := waitXR(ctx, e, "PublishedAPI", ns, apipubName, "Synced", "False")
	if err != nil {
		t.Fatal(err)
	}
	msg := x.conditions()["Synced"].Message
	for _, want := range []string{"metadata.namespace", "data.features.apiPublishing", "may not publish APIs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("PublishedAPI %s/%s: Synced=False (%s), want a message naming %q", ns, apipubName, msg, want)
		}
	}
	if r := x.conditions()["Ready"]; r.Status == "True" {
		t.Errorf("PublishedAPI %s/%s is refused, yet Ready=True", ns, apipubName)
	}
	// Some seconds more for anything composed to show.
	time.Sleep(5 * time.Second)
	x, err = getXR(ctx, e, "PublishedAPI", ns, apipubName)
	if err != nil {
		t.Fatal(err)
	}
	if refs := x.Spec.Crossplane.ResourceRefs; len(refs) > 0 {
		t.Errorf("the refused PublishedAPI composed %v", refs)
	}
	left, err := composed(ctx, e, ns, "objects.kubernetes.m.crossplane.io", "kubeconfigs.kcp.crossplane.io", "certificates.cert-manager.io", "secrets")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the refused PublishedAPI composed in %s: %v", ns, keys(left))
	}
	agent := "syncagent-" + ns + "-" + apipubName
	var prs struct {
		Items []stack.Object `json:"items"`
	}
	if err := e.GetJSON(ctx, &prs, "publishedresources.syncagent.kcp.io", "-l", "kcp.crossplane.io/published-api="+agent); err != nil {
		t.Fatal(err)
	}
	if len(prs.Items) > 0 {
		t.Errorf("the refused PublishedAPI's agent has %d PublishedResources in the service cluster", len(prs.Items))
	}
	if _, err := e.Kubectl(ctx, nil, "get", "clusterrole", "kcp.crossplane.io:"+agent); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("ClusterRole kcp.crossplane.io:%s of the refused PublishedAPI: %v, want NotFound", agent, err)
	}
	e.Step("apipub: PublishedAPI %s/%s refused, composing nothing (Synced=False: %s)", ns, apipubName, trim(msg, 300))
}

// checkAPIPublishingStatus checks what the PublishedAPI reports beside its conditions.
func checkAPIPublishingStatus(t *testing.T, x xr) {
	t.Helper()
	c := x.conditions()
	for _, typ := range []string{"Exported", "CredentialsReady", "Available", "Synced"} {
		if c[typ].Status != "True" {
			t.Errorf("PublishedAPI %s: %s=%s (%s: %s), want True", apipubName, typ, c[typ].Status, c[typ].Reason, c[typ].Message)
		}
	}
	if _, ok := c["CertificatesReady"]; ok {
		t.Errorf("PublishedAPI %s reports CertificatesReady, of no certificate of its own", apipubName)
	}
	if got, want := fmt.Sprint(x.Status["export"]), apipubWorkspace+":"+apipubName; got != want {
		t.Errorf("status.export = %s, want %s", got, want)
	}
	if got := fmt.Sprint(x.Status["agentName"]); got != apipubAgent {
		t.Errorf("status.agentName = %s, want %s", got, apipubAgent)
	}
	claims, _ := json.Marshal(x.Status["permissionClaims"])
	if want := `[{"resource":"events","verbs":["*"]},{"resource":"namespaces","verbs":["*"]},{"resource":"secrets","verbs":["*"]}]`; string(claims) != want {
		t.Errorf("status.permissionClaims = %s, want %s", claims, want)
	}
}

// agentPod is what the scenario reads of the agent's pods and their template.
type agentPod struct {
	ServiceAccountName           string `json:"serviceAccountName"`
	AutomountServiceAccountToken *bool  `json:"automountServiceAccountToken"`
	NodeName                     string `json:"nodeName"`
	SecurityContext              struct {
		RunAsNonRoot   *bool  `json:"runAsNonRoot"`
		RunAsUser      *int64 `json:"runAsUser"`
		RunAsGroup     *int64 `json:"runAsGroup"`
		SeccompProfile *struct {
			Type string `json:"type"`
		} `json:"seccompProfile"`
	} `json:"securityContext"`
	Containers []struct {
		Name            string   `json:"name"`
		Image           string   `json:"image"`
		Command         []string `json:"command"`
		Args            []string `json:"args"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem"`
			Capabilities             struct {
				Drop []string `json:"drop"`
				Add  []string `json:"add"`
			} `json:"capabilities"`
			SeccompProfile *struct {
				Type string `json:"type"`
			} `json:"seccompProfile"`
		} `json:"securityContext"`
		VolumeMounts []struct {
			Name      string `json:"name"`
			MountPath string `json:"mountPath"`
			ReadOnly  bool   `json:"readOnly"`
		} `json:"volumeMounts"`
	} `json:"containers"`
	Volumes []struct {
		Name   string `json:"name"`
		Secret *struct {
			SecretName string `json:"secretName"`
		} `json:"secret"`
		Projected *struct {
			Sources []struct {
				ServiceAccountToken *struct {
					Path string `json:"path"`
				} `json:"serviceAccountToken"`
			} `json:"sources"`
		} `json:"projected"`
	} `json:"volumes"`
}

// checkAgentPodSpec checks the agent's pod spec: its ServiceAccount, Pod Security
// restricted, its image, command and args, and its kubeconfig mounted read-only.
func checkAgentPodSpec(t *testing.T, where string, p agentPod) {
	t.Helper()
	if p.ServiceAccountName != apipubDeployment {
		t.Errorf("%s: serviceAccountName %q, want %s", where, p.ServiceAccountName, apipubDeployment)
	}
	if p.AutomountServiceAccountToken == nil || !*p.AutomountServiceAccountToken {
		t.Errorf("%s: automountServiceAccountToken %v, want true: the agent talks to the service cluster's API server", where, p.AutomountServiceAccountToken)
	}
	sc := p.SecurityContext
	if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65534 || sc.RunAsGroup == nil || *sc.RunAsGroup != 65534 ||
		sc.SeccompProfile == nil || sc.SeccompProfile.Type != "RuntimeDefault" {
		b, _ := json.Marshal(sc)
		t.Errorf("%s: pod securityContext %s, want runAsNonRoot, runAsUser and runAsGroup 65534, seccomp RuntimeDefault", where, b)
	}
	if len(p.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", where, len(p.Containers))
	}
	c := p.Containers[0]
	if c.Name != "api-syncagent" || c.Image != "ghcr.io/kcp-dev/api-syncagent:v0.7.0" || !slices.Equal(c.Command, []string{"api-syncagent"}) {
		t.Errorf("%s: container %s image %s command %v, want api-syncagent ghcr.io/kcp-dev/api-syncagent:v0.7.0 [api-syncagent]", where, c.Name, c.Image, c.Command)
	}
	if !slices.Equal(c.Args, apipubArgs) {
		t.Errorf("%s: args\n got: %q\nwant: %q", where, c.Args, apipubArgs)
	}
	csc := c.SecurityContext
	if csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem ||
		!slices.Equal(csc.Capabilities.Drop, []string{"ALL"}) || len(csc.Capabilities.Add) > 0 {
		b, _ := json.Marshal(csc)
		t.Errorf("%s: container securityContext %s, want no privilege escalation, a read-only root filesystem, capabilities ALL dropped", where, b)
	}
	var kubeconfigVolume string
	for _, v := range p.Volumes {
		if v.Secret != nil && v.Secret.SecretName == apipubSecret {
			kubeconfigVolume = v.Name
		}
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		if m.Name == kubeconfigVolume && m.MountPath == "/etc/api-syncagent/kcp" && m.ReadOnly {
			mounted = true
		}
	}
	if kubeconfigVolume == "" || !mounted {
		t.Errorf("%s: Secret %s is not mounted read-only at /etc/api-syncagent/kcp (volumes %+v, mounts %+v)", where, apipubSecret, p.Volumes, c.VolumeMounts)
	}
}

// checkAPIPublishingServiceCluster checks what the agent gets in the service cluster.
func checkAPIPublishingServiceCluster(ctx context.Context, t *testing.T, e *env) {
	ns := apipubAgentsNamespace
	type rbacObject struct {
		stack.Object
		Rules   []policyRule `json:"rules"`
		RoleRef struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"roleRef"`
		Subjects []struct {
			Kind      string `json:"kind"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"subjects"`
	}
	get := func(args ...string) rbacObject {
		t.Helper()
		var o rbacObject
		if err := e.GetJSON(ctx, &o, args...); err != nil {
			t.Error(err)
		}
		if got := o.Metadata.Labels["kcp.crossplane.io/published-api"]; o.Metadata.Name != "" && got != apipubAgent {
			t.Errorf("%s %s: label kcp.crossplane.io/published-api=%q, want %s", o.Kind, o.Metadata.Name, got, apipubAgent)
		}
		return o
	}
	wantSubject := fmt.Sprintf("[{ServiceAccount %s %s}]", apipubDeployment, ns)
	get("serviceaccount", "-n", ns, apipubDeployment)
	if cr := get("clusterrole", apipubRole); !reflect.DeepEqual(cr.Rules, apipubServiceRules) {
		t.Errorf("ClusterRole %s rules:\n got: %s\nwant: %s", apipubRole, rulesJSON(cr.Rules), rulesJSON(apipubServiceRules))
	}
	if crb := get("clusterrolebinding", apipubRole); crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != apipubRole || fmt.Sprint(crb.Subjects) != wantSubject {
		t.Errorf("ClusterRoleBinding %s binds %+v to %v, want ClusterRole %s to %s", apipubRole, crb.RoleRef, crb.Subjects, apipubRole, wantSubject)
	}
	if r := get("role", "-n", ns, apipubRole); !reflect.DeepEqual(r.Rules, apipubNamespaceRules) {
		t.Errorf("Role %s/%s rules:\n got: %s\nwant: %s", ns, apipubRole, rulesJSON(r.Rules), rulesJSON(apipubNamespaceRules))
	}
	if rb := get("rolebinding", "-n", ns, apipubRole); rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != apipubRole || fmt.Sprint(rb.Subjects) != wantSubject {
		t.Errorf("RoleBinding %s/%s binds %+v to %v, want Role %s to %s", ns, apipubRole, rb.RoleRef, rb.Subjects, apipubRole, wantSubject)
	}
	// What the API server authorizes the ServiceAccount to do (SubjectAccessReviews: kubectl
	// auth can-i cannot name resources no CRD serves).
	sa := "system:serviceaccount:" + ns + ":" + apipubDeployment
	for _, c := range []struct {
		verb, group, resource, subresource, namespace string
		want                                          bool
	}{
		{"list", "platform.example.org", "databases", "", "", true},
		{"update", "storage.example.net", "buckets", "status", "some-team", true},
		{"delete", "", "secrets", "", "some-team", true},
		{"patch", "syncagent.kcp.io", "publishedresources", "status", "", true},
		{"create", "", "namespaces", "", "", true},
		{"create", "coordination.k8s.io", "leases", "", ns, true},
		{"create", "", "events", "", "some-team", true},
		{"create", "syncagent.kcp.io", "publishedresources", "", "", false},
		{"delete", "", "namespaces", "", "", false},
		{"list", "", "configmaps", "", "", false},
		{"create", "coordination.k8s.io", "leases", "", "kcp", false},
		{"list", "kubernetes.m.crossplane.io", "objects", "", "", false},
		{"list", "platform.example.org", "widgets", "", "", false},
	} {
		got, err := allowed(ctx, e, sa, []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			c.verb, c.group, c.resource, c.subresource, c.namespace)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("the agent's ServiceAccount may %s %s.%s/%s in namespace %q: %v, want %v", c.verb, c.resource, c.group, c.subresource, c.namespace, got, c.want)
		}
	}

	// The namespace's Object never deletes it: other agents and the platform's objects may
	// live there.
	var nsObject apipubObject
	if err := e.GetJSON(ctx, &nsObject, "objects.kubernetes.m.crossplane.io", "-n", basicNamespace, apipubDeployment+".namespace"); err != nil {
		t.Error(err)
	} else if p := nsObject.Spec.ManagementPolicies; slices.Contains(p, "Delete") || slices.Contains(p, "*") {
		t.Errorf("Object %s.namespace may delete namespace %s: managementPolicies %v", apipubDeployment, ns, p)
	}

	// One PublishedResource per resource, labelled for this agent.
	var prs struct {
		Items []struct {
			stack.Object
			Spec map[string]any `json:"spec"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &prs, "publishedresources.syncagent.kcp.io", "-l", apipubSelector); err != nil {
		t.Fatal(err)
	}
	wantPRs := map[string]string{
		apipubName + "-bucket":   `{"projection":{"kind":"ObjectBucket","shortNames":["ob"]},"resource":{"apiGroup":"storage.example.net","kind":"Bucket","versions":["v1","v1beta1"]}}`,
		apipubName + "-database": `{"related":[{"cleanup":true,"identifier":"connection","object":{"template":{"template":"{{ .Object.metadata.name }}-connection"}},"origin":"service","resource":"secrets","version":"v1"}],"resource":{"apiGroup":"platform.example.org","kind":"Database","versions":["v1alpha1"]}}`,
	}
	got := map[string]string{}
	for _, pr := range prs.Items {
		b, _ := json.Marshal(pr.Spec)
		got[pr.Metadata.Name] = string(b)
	}
	if !reflect.DeepEqual(got, wantPRs) {
		t.Errorf("PublishedResources labelled %s:\n got: %v\nwant: %v", apipubSelector, got, wantPRs)
	}

	// The Deployment, and its pods running on kwok fake nodes.
	var dep struct {
		stack.Object
		Spec struct {
			Replicas *int `json:"replicas"`
			Template struct {
				Spec agentPod `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := e.GetJSON(ctx, &dep, "deployment", "-n", ns, apipubDeployment); err != nil {
		t.Fatal(err)
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 2 {
		t.Errorf("Deployment %s/%s: replicas %v, want 2 (one leads, one waits)", ns, apipubDeployment, dep.Spec.Replicas)
	}
	checkAgentPodSpec(t, "Deployment "+ns+"/"+apipubDeployment, dep.Spec.Template.Spec)
	groups, err := placement(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	var podNames []string
	for _, g := range groups {
		if !strings.HasPrefix(g.owner, "ReplicaSet/"+apipubDeployment+"-") || len(g.pods) != 2 {
			t.Errorf("pods in %s: %s, want the 2 of Deployment %s", ns, g, apipubDeployment)
		}
		for _, p := range g.pods {
			podNames = append(podNames, p.Metadata.Name)
		}
	}
	checkOffDedicatedNodes(t, groups)
	for _, name := range podNames {
		var p struct {
			Spec agentPod `json:"spec"`
		}
		if err := e.Get(ctx, "/api/v1/namespaces/"+ns+"/pods/"+name, &p); err != nil {
			t.Fatal(err)
		}
		checkAgentPodSpec(t, "pod "+name, p.Spec)
		// The ServiceAccount admission mounted the token of the agent's ServiceAccount.
		tokenVolume := ""
		for _, v := range p.Spec.Volumes {
			if v.Projected == nil {
				continue
			}
			for _, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil {
					tokenVolume = v.Name
				}
			}
		}
		mounted := false
		for _, c := range p.Spec.Containers {
			for _, m := range c.VolumeMounts {
				mounted = mounted || (m.Name == tokenVolume && m.MountPath == "/var/run/secrets/kubernetes.io/serviceaccount")
			}
		}
		if tokenVolume == "" || !mounted {
			t.Errorf("pod %s mounts no ServiceAccount token (volumes %+v)", name, p.Spec.Volumes)
		}
	}
	checkPodSecurity(ctx, t, e, ns)

	// The agent's kubeconfig: a copy of the Kubeconfig XR's Secret.
	orig, err := e.SecretData(ctx, basicNamespace, apipubSecret)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := e.SecretData(ctx, ns, apipubSecret)
	if err != nil {
		t.Fatal(err)
	}
	if len(orig["kubeconfig"]) == 0 || !reflect.DeepEqual(orig, cp) {
		t.Errorf("Secret %s/%s (keys %v) is not a copy of %s/%s (keys %v)", ns, apipubSecret, keys(cp), basicNamespace, apipubSecret, keys(orig))
	}
	sort.Strings(podNames)
	e.Step("apipub: the agent's namespace, ServiceAccount, ClusterRole of %d rules, Role, bindings, 2 PublishedResources and kubeconfig copy in %s; its pods %v Running on kwok fake nodes, admitted under enforce=restricted",
		len(apipubServiceRules), ns, podNames)
}

// allowed asks the API server whether user of groups may verb the resource (a
// SubjectAccessReview).
func allowed(ctx context.Context, e *env, user string, groups []string, verb, group, resource, subresource, namespace string) (bool, error) {
	sar, _ := json.Marshal(map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
		"spec": map[string]any{"user": user, "groups": groups, "resourceAttributes": map[string]any{
			"verb": verb, "group": group, "resource": resource, "subresource": subresource, "namespace": namespace,
		}},
	})
	out, err := e.Kubectl(ctx, sar, "create", "-f", "-", "-o", "json")
	if err != nil {
		return false, err
	}
	var r struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	}
	return r.Status.Allowed, json.Unmarshal(out, &r)
}

// rulesJSON shows rules for a failure message.
func rulesJSON(rules []policyRule) string {
	b, _ := json.Marshal(rules)
	return string(b)
}

// apipubObject is what the scenario reads of a provider-kubernetes Object.
type apipubObject struct {
	stack.Object
	Spec struct {
		ManagementPolicies []string `json:"managementPolicies"`
		ProviderConfigRef  struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"providerConfigRef"`
		ForProvider struct {
			Manifest map[string]any `json:"manifest"`
		} `json:"forProvider"`
	} `json:"spec"`
}

// checkAPIPublishingInKCP checks the Objects acting in kcp, what they created in the stand-in,
// and the Kubeconfig XR the agent reaches kcp with.
func checkAPIPublishingInKCP(ctx context.Context, t *testing.T, e *env, root dynamic.Interface) {
	ns := basicNamespace
	for _, c := range []struct {
		name     string
		policies []string
		manifest string
	}{
		// Never deleted: teams' bindings and their objects rest on the APIExport.
		{apipubName + "-apiexport", []string{"Observe", "Create", "Update", "LateInitialize"},
			`{"apiVersion":"apis.kcp.io/v1alpha2","kind":"APIExport","metadata":{"name":"` + apipubName + `"},"spec":{}}`},
		{apipubName + "-syncagent-kcp-role", []string{"*"},
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"` + apipubRole + `"},"rules":` + rulesJSON(apipubKCPRules) + `}`},
	} {
		var o apipubObject
		if err := e.GetJSON(ctx, &o, "objects.kubernetes.m.crossplane.io", "-n", ns, c.name); err != nil {
			t.Error(err)
			continue
		}
		if !slices.Equal(o.Spec.ManagementPolicies, c.policies) {
			t.Errorf("Object %s: managementPolicies %v, want %v", c.name, o.Spec.ManagementPolicies, c.policies)
		}
		if want := "root-kcp-operator." + strings.ReplaceAll(apipubWorkspace, ":", "."); o.Spec.ProviderConfigRef.Kind != "ProviderConfig" || o.Spec.ProviderConfigRef.Name != want {
			t.Errorf("Object %s acts through %+v, want ProviderConfig %s (RootShard root's for the provider workspace)", c.name, o.Spec.ProviderConfigRef, want)
		}
		if o.Metadata.Labels["kcp.crossplane.io/root-shard"] != "root" || o.Metadata.Annotations["kcp.crossplane.io/workspace"] != apipubWorkspace {
			t.Errorf("Object %s: labels %v, annotations %v; want root-shard root and workspace %s", c.name, o.Metadata.Labels, o.Metadata.Annotations, apipubWorkspace)
		}
		var want, got any
		_ = json.Unmarshal([]byte(c.manifest), &want)
		b, _ := json.Marshal(o.Spec.ForProvider.Manifest)
		_ = json.Unmarshal(b, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Object %s manifest:\n got: %s\nwant: %s", c.name, b, c.manifest)
		}
		if s := o.Condition("Synced"); s.Status != "True" {
			t.Errorf("Object %s: Synced=%s (%s)", c.name, s.Status, s.Message)
		}
	}
	if policies := apipubExportPolicies(ctx, t, e); slices.Contains(policies, "Delete") || slices.Contains(policies, "*") {
		t.Errorf("the APIExport's Object may delete it: managementPolicies %v", policies)
	}

	// In the stand-in's root:providers: the export, the role with exactly the agent's rights,
	// bound to the Kubeconfig's group.
	if _, err := root.Resource(kcpAPIExports).Get(ctx, apipubName, metav1.GetOptions{}); err != nil {
		t.Errorf("APIExport %s in %s: %v", apipubName, apipubWorkspace, err)
	}
	role, err := root.Resource(clusterRoles).Get(ctx, apipubRole, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ClusterRole %s in %s: %v", apipubRole, apipubWorkspace, err)
	}
	var rules []policyRule
	b, _ := json.Marshal(role.Object["rules"])
	_ = json.Unmarshal(b, &rules)
	if !reflect.DeepEqual(rules, apipubKCPRules) {
		t.Errorf("ClusterRole %s in %s rules:\n got: %s\nwant: %s", apipubRole, apipubWorkspace, b, rulesJSON(apipubKCPRules))
	}
	uid := kubeconfigUID(ctx, t, e, ns, apipubKubeconfig)
	if got := subjects(ctx, t, root, uid+":"+apipubRole); got != "Group/kubeconfig:"+apipubKubeconfig {
		t.Errorf("ClusterRoleBinding %s:%s in %s has subjects %q, want Group/kubeconfig:%s", uid, apipubRole, apipubWorkspace, got, apipubKubeconfig)
	}

	// The Kubeconfig XR and the certificate it issued.
	var kc struct {
		stack.Object
		Spec map[string]any `json:"spec"`
	}
	if err := e.GetJSON(ctx, &kc, "kubeconfigs.kcp.crossplane.io", "-n", ns, apipubKubeconfig); err != nil {
		t.Fatal(err)
	}
	delete(kc.Spec, "crossplane")
	spec, _ := json.Marshal(kc.Spec)
	if want := `{"authorization":{"clusterRoleBindings":{"clusterRoles":["` + apipubRole + `"]}},"secretRef":{"name":"` + apipubSecret +
		`"},"target":{"rootShardRef":{"name":"root"}},"targetWorkspace":"` + apipubWorkspace + `","username":"` + apipubAgent + `","validity":"8760h0m0s"}`; string(spec) != want {
		t.Errorf("Kubeconfig %s spec:\n got: %s\nwant: %s", apipubKubeconfig, spec, want)
	}
	if !slices.ContainsFunc(kc.Metadata.OwnerReferences, func(o stack.OwnerReference) bool {
		return o.Kind == "PublishedAPI" && o.Name == apipubName && o.Controller
	}) {
		t.Errorf("Kubeconfig %s is not controlled by PublishedAPI %s: %+v", apipubKubeconfig, apipubName, kc.Metadata.OwnerReferences)
	}
	if r := kc.Condition("Ready"); r.Status != "True" {
		t.Errorf("Kubeconfig %s: Ready=%s (%s)", apipubKubeconfig, r.Status, r.Message)
	}
	server, _, cert := kubeconfigSecret(ctx, t, e, ns, apipubSecret)
	if want := "/clusters/" + apipubWorkspace; !strings.HasSuffix(server, want) {
		t.Errorf("the agent's kubeconfig opens %s, want a URL ending in %s", server, want)
	}
	if cn, o := cert.Leaf.Subject.CommonName, cert.Leaf.Subject.Organization; cn != apipubAgent || !slices.Contains(o, "kubeconfig:"+apipubKubeconfig) {
		t.Errorf("the agent's client certificate is %s of %v, want %s of group kubeconfig:%s", cn, o, apipubAgent, apipubKubeconfig)
	}
	ca, err := e.SecretData(ctx, ns, "root-client-ca")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool(ca["tls.crt"]), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the agent's client certificate does not verify against RootShard root's client CA: %v", err)
	}
	e.Step("apipub: Objects for the APIExport (policies %v) and the agent's ClusterRole created them in the kcp stand-in's %s; Kubeconfig %s issued %s of group kubeconfig:%s, bound there",
		apipubExportPolicies(ctx, t, e), apipubWorkspace, apipubKubeconfig, apipubAgent, apipubKubeconfig)
}

// apipubExportPolicies are the managementPolicies of the APIExport's Object.
func apipubExportPolicies(ctx context.Context, t *testing.T, e *env) []string {
	t.Helper()
	var o apipubObject
	if err := e.GetJSON(ctx, &o, "objects.kubernetes.m.crossplane.io", "-n", basicNamespace, apipubName+"-apiexport"); err != nil {
		t.Fatal(err)
	}
	return o.Spec.ManagementPolicies
}

// checkAPIPublishingDeleted deletes the PublishedAPI and waits until what it composed is gone,
// but for the APIExport.
func checkAPIPublishingDeleted(ctx context.Context, t *testing.T, e *env, root dynamic.Interface) {
	ns, agents := basicNamespace, apipubAgentsNamespace
	if _, err := e.Kubectl(ctx, nil, "delete", "publishedapis.kcp.crossplane.io", "-n", ns, apipubName, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	present := func(ctx context.Context, args ...string) (bool, error) {
		_, err := e.Kubectl(ctx, nil, append([]string{"get"}, args...)...)
		if err != nil && strings.Contains(err.Error(), "NotFound") {
			return false, nil
		}
		return err == nil, err
	}
	if err := e.Eventually(ctx, timeout, "what PublishedAPI "+apipubName+" composed deleted", func(ctx context.Context) (bool, string, error) {
		var left []string
		for _, args := range [][]string{
			{"publishedapis.kcp.crossplane.io", "-n", ns, apipubName},
			{"deployment", "-n", agents, apipubDeployment},
			{"service", "-n", agents, apipubDeployment},
			{"poddisruptionbudget", "-n", agents, apipubDeployment},
			{"serviceaccount", "-n", agents, apipubDeployment},
			{"secret", "-n", agents, apipubSecret},
			{"role", "-n", agents, apipubRole},
			{"rolebinding", "-n", agents, apipubRole},
			{"clusterrole", apipubRole},
			{"clusterrolebinding", apipubRole},
		} {
			ok, err := present(ctx, args...)
			if err != nil {
				return false, "", err
			}
			if ok {
				left = append(left, strings.Join(args, " "))
			}
		}
		var prs struct {
			Items []stack.Object `json:"items"`
		}
		if err := e.GetJSON(ctx, &prs, "publishedresources.syncagent.kcp.io", "-l", apipubSelector); err != nil {
			return false, "", err
		}
		for _, pr := range prs.Items {
			left = append(left, "PublishedResource "+pr.Metadata.Name)
		}
		inNS, err := composed(ctx, e, ns, "objects.kubernetes.m.crossplane.io", "kubeconfigs.kcp.crossplane.io", "certificates.cert-manager.io", "secrets")
		if err != nil {
			return false, "", err
		}
		for k, o := range inNS {
			if o.Metadata.Labels["crossplane.io/composite"] == apipubName {
				left = append(left, k)
			}
		}
		if _, err := root.Resource(clusterRoles).Get(ctx, apipubRole, metav1.GetOptions{}); !kerrors.IsNotFound(err) {
			left = append(left, fmt.Sprintf("ClusterRole %s in kcp (%v)", apipubRole, err))
		}
		sort.Strings(left)
		return len(left) == 0, fmt.Sprintf("%d left: %s", len(left), strings.Join(left, "; ")), nil
	}); err != nil {
		dumpAPIPublishingObjects(ctx, t, e)
		t.Fatal(err)
	}
	gone := time.Since(deleted)
	if _, err := root.Resource(kcpAPIExports).Get(ctx, apipubName, metav1.GetOptions{}); err != nil {
		t.Errorf("APIExport %s in %s after the PublishedAPI was deleted: %v, want it kept", apipubName, apipubWorkspace, err)
	}
	if ok, err := present(ctx, "namespace", agents); !ok {
		t.Errorf("namespace %s in the service cluster after the PublishedAPI was deleted: %v, want it kept", agents, err)
	}
	e.Step("apipub: deleting PublishedAPI %s removed the agent's Deployment, RBAC, PublishedResources and kubeconfig in the service cluster, its role in kcp and its Kubeconfig %.1fs later; APIExport %s kept in kcp",
		apipubName, gone.Seconds(), apipubName)
}

// dumpAPIPublishingObjects logs the conditions of the Objects and XRs of namespace kcp, on
// failure.
func dumpAPIPublishingObjects(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	var list struct {
		Items []stack.Object `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "objects.kubernetes.m.crossplane.io,providerconfigs.kubernetes.m.crossplane.io,kubeconfigs.kcp.crossplane.io,publishedapis.kcp.crossplane.io", "-n", basicNamespace); err != nil {
		t.Log(err)
		return
	}
	var b bytes.Buffer
	for _, o := range list.Items {
		fmt.Fprintf(&b, "%s/%s deleting=%v:", o.Kind, o.Metadata.Name, o.Metadata.DeletionTimestamp != "")
		for _, c := range o.Status.Conditions {
			fmt.Fprintf(&b, " %s=%s (%s: %s);", c.Type, c.Status, c.Reason, trim(c.Message, 300))
		}
		b.WriteString("\n")
	}
	t.Logf("objects in %s:\n%s", basicNamespace, b.String())
}

// apipubCleanUp leaves namespace kcp as Basic left it for the scenarios after this one:
// the PublishedAPIs, the platform's ProviderConfig and Secret, the scenario's namespaces and
// the policy's field go. The PublishedResource CRD stays (no objects of it are left), as kcp's
// APIExport stays in the stand-in's etcd.
func apipubCleanUp(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	for _, args := range [][]string{
		{"delete", "publishedapis.kcp.crossplane.io", "-n", basicNamespace, apipubName, "--ignore-not-found", "--wait=false"},
		{"delete", "publishedapis.kcp.crossplane.io", "-n", apipubTenantNamespace, apipubName, "--ignore-not-found", "--wait=true", "--timeout=2m"},
		{"delete", "namespace", apipubTenantNamespace, "--ignore-not-found", "--wait=false"},
	} {
		if _, err := e.Kubectl(ctx, nil, args...); err != nil {
			t.Errorf("clean-up: %v", err)
		}
	}
	// The ProviderConfig goes once no Object uses it.
	if err := e.Eventually(ctx, timeout, "no Object of PublishedAPI "+apipubName+" left", func(ctx context.Context) (bool, string, error) {
		left, err := composed(ctx, e, basicNamespace, "objects.kubernetes.m.crossplane.io", "kubeconfigs.kcp.crossplane.io")
		var mine []string
		for k, o := range left {
			if o.Metadata.Labels["crossplane.io/composite"] == apipubName {
				mine = append(mine, k)
			}
		}
		return err == nil && len(mine) == 0, fmt.Sprint(mine), err
	}); err != nil {
		dumpAPIPublishingObjects(ctx, t, e)
		t.Errorf("clean-up: %v", err)
	}
	for _, args := range [][]string{
		{"delete", "providerconfigs.kubernetes.m.crossplane.io", "-n", basicNamespace, apipubProviderConfig, "--ignore-not-found", "--wait=true", "--timeout=1m"},
		{"delete", "secret", "-n", basicNamespace, apipubProviderConfig + "-kubeconfig", "--ignore-not-found"},
		{"delete", "namespace", apipubAgentsNamespace, "--ignore-not-found", "--wait=false"},
	} {
		if _, err := e.Kubectl(ctx, nil, args...); err != nil {
			t.Errorf("clean-up: %v", err)
		}
	}
	// The RootShard drops its credentials for root:providers, which nothing uses now.
	nudge(ctx, t, e, "rootshard", basicNamespace, "root")
}
