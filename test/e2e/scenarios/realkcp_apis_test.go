package scenarios

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/netns"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/proc"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
	"github.com/configuration-kcp/configuration-kcp/test/e2e/syncagent"
)

// What testRealKCPAPIs makes: the provider workspace, the PublishedAPI and the namespace its
// agent runs in, the service cluster's ProviderConfig, the service cluster's API (the e2e's
// Database XRD and the demo function composing it), and two teams.
const (
	apisProviderWorkspace = "rk-providers"
	apisExport            = "databases"
	apisAgentNamespace    = "rk-syncagents"
	apisServiceConfig     = "rk-service-cluster"
	apisDemoFunction      = "function-e2e-demo"
	apisXRD               = "databases.e2e.example.org"
	apisGrantedTeam       = "rk-db"
	apisRefusedTeam       = "rk-nodb"
	// envDemoFunctionXpkg is the demo function's package, which make e2e builds with KCP_BIN.
	envDemoFunctionXpkg = "E2E_DEMO_FUNCTION_XPKG"
	// envAPISyncAgent is bin/api-syncagent, which make e2e builds with KCP_BIN.
	envAPISyncAgent = "E2E_API_SYNCAGENT"
)

// testRealKCPAPIs checks a PublishedAPI end to end on real kcp (testRealKCP's processes, with
// Basic's installation shared through Tenants by testRealKCPShared) and the real api-syncagent
// v0.7.0. The service cluster is this e2e cluster: the e2e's own Database XRD, composed by a
// test stand-in function (test/e2e/demofunction) into a connection Secret and status.address.
// The platform allows API publishing in Basic's namespace (the one policy, EnvironmentConfig
// kcp-self-service), makes provider workspace root:rk-providers with a Workspace XR, and
// publishes the XRD from there with a related Secret, through a provider-kubernetes
// ProviderConfig reaching this cluster. The agent runs as a process with exactly the composed
// Deployment's command and args (from the Deployment placed in namespace rk-syncagents) plus
// --kubeconfig for this cluster as its ServiceAccount's user, in a pod network namespace of
// its own whose hosts file resolves kcp's Service names, with the composed kubeconfig Secret
// (the copy in rk-syncagents) at the path of its --kcp-kubeconfig flag, and this cluster's
// API server relayed into the pod's loopback at its own address. Two teams share the
// installation: rk-db's Tenant grants the export (spec.apis) with the claims of the
// PublishedAPI's status.permissionClaims, rk-nodb's grants nothing. rk-db's Workspace binding
// the export reports its APIs bound; a Database created through the front-proxy with rk-db's
// kubeconfig is synced down by the agent, composed by Crossplane through the demo function, and
// its status.address and connection Secret come back into rk-db's workspace; deleting it in
// kcp removes it on both sides. rk-nodb's Workspace binding the export is refused by its
// Tenant naming spec.apiBindings[0].export, and kcp refuses rk-nodb's kubeconfig an APIBinding
// to the export in rk-nodb's own workspace. Everything it makes is deleted again.
func testRealKCPAPIs(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, pods map[string]*realkcp.Pod, admin kubectlFunc) {
	const ns = basicNamespace
	agentBin, demoXpkg, crd := os.Getenv(envAPISyncAgent), os.Getenv(envDemoFunctionXpkg), os.Getenv(syncagent.EnvCRD)
	for env, f := range map[string]string{envAPISyncAgent: agentBin, envDemoFunctionXpkg: demoXpkg, syncagent.EnvCRD: crd} {
		if _, err := os.Stat(f); f == "" || err != nil {
			t.Fatalf("%s=%q: run this through make e2e KCP_BIN=..., which builds it (%v)", env, f, err)
		}
	}
	proxy := pods["frontproxy-front-proxy"]
	exited := anyExited(pods)

	installServiceAPI(ctx, t, e, crd, demoXpkg)
	allowAPIPublishing(ctx, t, e, ns)

	// The provider workspace, and the ProviderConfig reaching the service cluster (this one)
	// with an admin kubeconfig in a Secret, as a platform gives provider-kubernetes another
	// cluster (MultiCluster does the same for cluster B).
	start := time.Now()
	applyOrFail(ctx, t, e, fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Workspace
metadata: {name: %s, namespace: %s}
spec:
  rootShard: {ref: {name: root}}
  deletionPolicy: Delete
`, apisProviderWorkspace, ns))
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "workspaces", ns, apisProviderWorkspace) })
	if _, err := waitXRNudging(ctx, t, e, "Workspace", ns, apisProviderWorkspace, "Ready", "True", "rootshard/root", "workspace/"+apisProviderWorkspace); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP APIs: Workspace %s made provider workspace root:%s, Ready %.1fs after apply", apisProviderWorkspace, apisProviderWorkspace, time.Since(start).Seconds())
	serviceKubeconfig, err := e.EmbeddedKubeconfig("platform:service-cluster", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	applyOrFail(ctx, t, e, fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: %[1]s-kubeconfig, namespace: %[2]s}
data: {kubeconfig: %[3]s}
---
apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: ProviderConfig
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  credentials:
    source: Secret
    secretRef: {namespace: %[2]s, name: %[1]s-kubeconfig, key: kubeconfig}
`, apisServiceConfig, ns, base64.StdEncoding.EncodeToString(serviceKubeconfig)))
	t.Cleanup(func() {
		_, _ = e.Kubectl(context.Background(), nil, "delete", "providerconfigs.kubernetes.m.crossplane.io", "-n", ns, apisServiceConfig, "--ignore-not-found", "--wait=true", "--timeout=2m")
		_, _ = e.Kubectl(context.Background(), nil, "delete", "secret", "-n", ns, apisServiceConfig+"-kubeconfig", "--ignore-not-found")
		_, _ = e.Kubectl(context.Background(), nil, "delete", "namespace", apisAgentNamespace, "--ignore-not-found", "--wait=false")
	})

	// The PublishedAPI.
	start = time.Now()
	applyOrFail(ctx, t, e, fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: PublishedAPI
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  rootShard: {name: root}
  workspace: root:%[3]s
  resources:
  - name: database
    group: e2e.example.org
    kind: Database
    plural: databases
    versions: [v1alpha1]
    related:
    - identifier: connection
      origin: Service
      kind: Secret
      nameTemplate: "{{ .Object.metadata.name }}-connection"
  serviceCluster:
    providerConfigRef: {name: %[4]s}
    namespace: %[5]s
  agent: {replicas: 1}
`, apisExport, ns, apisProviderWorkspace, apisServiceConfig, apisAgentNamespace))
	// The agent stops once its PublishedAPI, and with it its Deployment, is gone, as its pod
	// would.
	var agent *proc.Process
	t.Cleanup(func() {
		deleteXR(context.Background(), t, e, "publishedapis", ns, apisExport)
		if agent != nil {
			agent.Stop(10 * time.Second)
		}
	})
	for _, cond := range []string{"Exported", "CredentialsReady", "Published"} {
		if _, err := waitXRNudging(ctx, t, e, "PublishedAPI", ns, apisExport, cond, "True", "rootshard/root", "publishedapi/"+apisExport, "kubeconfig/"+apisExport+"-syncagent"); err != nil {
			t.Fatal(err)
		}
	}
	pa, err := getXR(ctx, e, "PublishedAPI", ns, apisExport)
	if err != nil {
		t.Fatal(err)
	}
	claims := pa.Status["permissionClaims"]
	claimsJSON, err := json.Marshal(claims)
	if err != nil || claims == nil {
		t.Fatalf("PublishedAPI %s reports no status.permissionClaims: %v", apisExport, pa.Status)
	}
	e.Step("RealKCP APIs: PublishedAPI %s Exported, its kubeconfig issued and its PublishedResource in the service cluster %.1fs after apply; export %v, claims %s", apisExport, time.Since(start).Seconds(), pa.Status["export"], claimsJSON)

	agent = runSyncAgent(ctx, t, e, c, agentBin)
	providers := func(args ...string) []string {
		return append([]string{"--server=https://api.example.com:6443/clusters/root:" + apisProviderWorkspace}, args...)
	}
	start = time.Now()
	var exportClaims string
	if err := e.Eventually(ctx, 3*time.Minute, "the agent writes its schema and claims into APIExport "+apisExport, func(ctx context.Context) (bool, string, error) {
		out, err := admin(ctx, "", providers("get", "apiexports.v1alpha2.apis.kcp.io", apisExport, "-o",
			`jsonpath={.spec.resources[*].schema} claims={range .spec.permissionClaims[*]}{.group}/{.resource}:{.verbs};{end}`)...)
		exportClaims = out
		return err == nil && !strings.HasPrefix(out, " ") && strings.Contains(out, "secrets"), out, agent.Exited()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP APIs: api-syncagent wrote its APIResourceSchema and claims into APIExport root:%s:%s %.1fs after it started: %s", apisProviderWorkspace, apisExport, time.Since(start).Seconds(), exportClaims)
	// Its Deployment in the service cluster is available (kwok plays its pod there; the
	// process above is the agent that works).
	if _, err := waitXRNudging(ctx, t, e, "PublishedAPI", ns, apisExport, "Ready", "True", "publishedapi/"+apisExport); err != nil {
		t.Fatal(err)
	}

	// The teams: rk-db may bind the export with the PublishedAPI's claims, rk-nodb may not.
	grant := map[string]string{
		apisGrantedTeam: fmt.Sprintf("  apis:\n  - export: {path: root:%s, name: %s}\n    permissionClaims: %s\n", apisProviderWorkspace, apisExport, claimsJSON),
		apisRefusedTeam: "",
	}
	access := map[string]kubectlFunc{}
	base := map[string]string{}
	for _, team := range []string{apisGrantedTeam, apisRefusedTeam} {
		access[team], base[team] = apisTeam(ctx, t, e, c, proxy, team, grant[team])
	}
	bind := fmt.Sprintf(`apiVersion: kcp.crossplane.io/v1alpha1
kind: Workspace
metadata: {name: app, namespace: %%[1]s}
spec:
  rootShard: {ref: {name: root, namespace: %[1]s}}
  clusterRoleBindings:
  - clusterRole: cluster-admin
    groups: ["tenant:%%[1]s:admins"]
  apiBindings:
  - export: {path: root:%[2]s, name: %[3]s}
    permissionClaims: %[4]s
  deletionPolicy: Delete
`, ns, apisProviderWorkspace, apisExport, claimsJSON)

	// rk-db binds the export in root:rk-db:app.
	start = time.Now()
	applyOrFail(ctx, t, e, fmt.Sprintf(bind, apisGrantedTeam))
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "workspaces", apisGrantedTeam, "app") })
	acting := apisGrantedTeam + ".app"
	if _, err := waitXRNudging(ctx, t, e, "Workspace", ns, acting, "APIsBound", "True", "rootshard/root", "workspace/"+acting); err != nil {
		t.Fatal(err)
	}
	x, err := waitXRNudging(ctx, t, e, "Workspace", apisGrantedTeam, "app", "Ready", "True", "workspace/app")
	if err != nil {
		t.Fatal(err)
	}
	if b := fmt.Sprint(x.Status["apiBindings"]); !strings.Contains(b, apisExport) {
		t.Errorf("Workspace %s/app status.apiBindings %s, want %s", apisGrantedTeam, b, apisExport)
	}
	e.Step("RealKCP APIs: %s's Workspace app bound APIExport root:%s:%s in root:%s:app, APIsBound and Ready %.1fs after apply (status.apiBindings %v)", apisGrantedTeam, apisProviderWorkspace, apisExport, apisGrantedTeam, time.Since(start).Seconds(), x.Status["apiBindings"])

	apisDatabaseRoundTrip(ctx, t, e, access[apisGrantedTeam], base[apisGrantedTeam], agent, exited)
	// Everything the agent did, it did with the rights the PublishedAPI composed for it, in kcp
	// and in the service cluster: it was refused nothing.
	if log, err := os.ReadFile(agent.Log); err != nil {
		t.Error(err)
	} else {
		var refused []string
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(strings.ToLower(l), "forbidden") {
				refused = append(refused, l)
			}
		}
		if len(refused) > 0 {
			t.Errorf("the agent was refused %d requests, first: %s", len(refused), refused[0])
		}
	}

	// rk-nodb: its Tenant refuses the binding, and kcp refuses it the export.
	applyOrFail(ctx, t, e, fmt.Sprintf(bind, apisRefusedTeam))
	t.Cleanup(func() { deleteXR(context.Background(), t, e, "workspaces", apisRefusedTeam, "app") })
	nudged := time.Time{}
	if err := e.Eventually(ctx, timeout, "Tenant "+apisRefusedTeam+" refuses Workspace app naming spec.apiBindings[0].export", func(ctx context.Context) (bool, string, error) {
		if time.Since(nudged) > 15*time.Second {
			nudge(ctx, t, e, "workspace", apisRefusedTeam, "app")
			nudge(ctx, t, e, "tenant", basicNamespace, apisRefusedTeam)
			nudged = time.Now()
		}
		x, err := getXR(ctx, e, "Workspace", apisRefusedTeam, "app")
		if err != nil {
			return false, "", err
		}
		c := x.conditions()["InputsReady"]
		return c.Status == "False" && c.Reason == "Refused" && strings.Contains(c.Message, "spec.apiBindings[0].export"), c.Reason + ": " + c.Message, nil
	}); err != nil {
		t.Error(err)
	} else {
		x, _ := getXR(ctx, e, "Workspace", apisRefusedTeam, "app")
		e.Step("RealKCP APIs: %s's Workspace app is refused by its Tenant: %s", apisRefusedTeam, x.conditions()["InputsReady"].Message)
	}
	binding := fmt.Sprintf(`apiVersion: apis.kcp.io/v1alpha2
kind: APIBinding
metadata: {name: %s}
spec:
  reference: {export: {path: root:%s, name: %s}}
`, apisExport, apisProviderWorkspace, apisExport)
	own := "--server=" + base[apisRefusedTeam] + "/clusters/root:" + apisRefusedTeam
	out, err := access[apisRefusedTeam](ctx, binding, own, "create", "-f", "-")
	if err == nil || !strings.Contains(out, "bind") {
		t.Errorf("kcp must refuse %s's kubeconfig an APIBinding to root:%s:%s in root:%s: %v\n%s", apisRefusedTeam, apisProviderWorkspace, apisExport, apisRefusedTeam, err, out)
		_, _ = access[apisRefusedTeam](context.Background(), "", own, "delete", "apibindings.apis.kcp.io", apisExport, "--ignore-not-found")
	} else {
		e.Step("RealKCP APIs: kcp refuses %s's own kubeconfig an APIBinding to the export in root:%s: %s", apisRefusedTeam, apisRefusedTeam, strings.TrimSpace(out))
	}
}

// applyOrFail applies manifests, failing the test on error.
func applyOrFail(ctx context.Context, t *testing.T, e *env, manifests string) {
	t.Helper()
	if err := e.Apply(ctx, []byte(manifests)); err != nil {
		t.Fatal(err)
	}
}

// installServiceAPI makes this cluster a service cluster with an API to publish: api-syncagent's
// PublishedResource CRD (which the platform installs once per service cluster), the demo
// function (pushed to the e2e's registry and installed as a Function, served by the e2e's
// package runtime), and the Database XRD with its Composition calling it.
func installServiceAPI(ctx context.Context, t *testing.T, e *env, crd, demoXpkg string) {
	t.Helper()
	start := time.Now()
	if _, err := e.ApplyFiles(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.Kubectl(context.Background(), nil, "delete", "crd", "publishedresources.syncagent.kcp.io", "--ignore-not-found", "--timeout=2m")
	})
	if err := e.WaitCondition(ctx, time.Minute, "Established", "crd", "publishedresources.syncagent.kcp.io"); err != nil {
		t.Fatal(err)
	}
	ref, err := e.Push(ctx, demoXpkg, "e2e/"+apisDemoFunction, "v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	applyOrFail(ctx, t, e, fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: %s}
spec: {package: %s}
---
apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: %s}
spec:
  scope: Namespaced
  group: e2e.example.org
  names: {kind: Database, plural: databases}
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, enum: [small, large]}
            required: [size]
          status:
            type: object
            properties:
              address: {type: string}
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: %[3]s}
spec:
  compositeTypeRef: {apiVersion: e2e.example.org/v1alpha1, kind: Database}
  mode: Pipeline
  pipeline:
  - step: compose
    functionRef: {name: %[1]s}
`, apisDemoFunction, ref, apisXRD))
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = e.Kubectl(ctx, nil, "delete", "compositions.apiextensions.crossplane.io", apisXRD, "--ignore-not-found")
		_, _ = e.Kubectl(ctx, nil, "delete", "compositeresourcedefinitions.apiextensions.crossplane.io", apisXRD, "--ignore-not-found", "--timeout=2m")
		_, _ = e.Kubectl(ctx, nil, "delete", "functions.pkg.crossplane.io", apisDemoFunction, "--ignore-not-found", "--timeout=2m")
	})
	if err := e.WaitCondition(ctx, 3*time.Minute, "Healthy", "functions.pkg.crossplane.io", apisDemoFunction); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitCondition(ctx, 2*time.Minute, "Established", "compositeresourcedefinitions.apiextensions.crossplane.io", apisXRD); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP APIs: service cluster ready %.1fs after start: PublishedResource CRD, Function %s (%s, a test stand-in) Healthy, XRD %s Established", time.Since(start).Seconds(), apisDemoFunction, ref, apisXRD)
}

// allowAPIPublishing lets namespace ns publish APIs in the platform's one policy, EnvironmentConfig
// kcp-self-service, through the field manager that owns data.features.apiPublishing there
// (setAPIPublishingPolicy, APIPublishing's): the rest of the policy stays the other scenarios'.
// It takes the feature back at the end.
func allowAPIPublishing(ctx context.Context, t *testing.T, e *env, ns string) {
	t.Helper()
	const policy = "environmentconfigs.apiextensions.crossplane.io"
	out, err := e.Kubectl(ctx, nil, "get", policy, "kcp-self-service", "--ignore-not-found", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	existed := len(strings.TrimSpace(string(out))) > 0
	if err := setAPIPublishingPolicy(ctx, e, []string{ns}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		// A policy made here holds nothing else: deleting it leaves the cluster as it was
		// (an apply of no data is refused, data must be an object).
		if !existed {
			if out, err := e.Kubectl(ctx, nil, "delete", policy, "kcp-self-service", "--ignore-not-found"); err != nil {
				t.Errorf("delete the policy: %v\n%s", err, out)
			}
			return
		}
		if err := setAPIPublishingPolicy(ctx, e, nil); err != nil {
			t.Errorf("take data.features.apiPublishing back: %v", err)
		}
	})
	e.Step("RealKCP APIs: the policy (EnvironmentConfig kcp-self-service) lets namespace %s publish APIs (data.features.apiPublishing)", ns)
}

// apisTeam makes a team's namespace with its quota, the Tenant sharing Basic's installation
// with it (spec.apis from apis, "" for none), and its admin Kubeconfig; it waits until the
// team's kubeconfig reads the team's workspace through the front-proxy and returns kubectl
// with it and the kubeconfig's base URL.
func apisTeam(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, proxy *realkcp.Pod, team, apis string) (kubectlFunc, string) {
	t.Helper()
	const ns = basicNamespace
	applyOrFail(ctx, t, e, fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: kcp-team-xrs, namespace: %[1]s}
spec: {hard: {count/kubeconfigs.kcp.crossplane.io: "5", count/workspaces.kcp.crossplane.io: "5"}}
---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Tenant
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  frontProxy: {ref: {name: frontproxy}}
  clusterRoleBindings:
  - clusterRole: cluster-admin
    groups: ["tenant:%[1]s:admins"]
%[3]s---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: admin, namespace: %[1]s}
spec:
  target: {frontProxyRef: {name: frontproxy, namespace: %[2]s}}
  username: "tenant:%[1]s:admin"
  groups: ["tenant:%[1]s:admins"]
  validity: 720h
  secretRef: {name: admin-kubeconfig}
`, team, ns, apis))
	t.Cleanup(func() {
		ctx := context.Background()
		deleteXR(ctx, t, e, "kubeconfigs", team, "admin")
		deleteXR(ctx, t, e, "tenants", ns, team)
		_, _ = e.Kubectl(ctx, nil, "delete", "namespace", team, "--ignore-not-found", "--wait=false")
	})
	if _, err := waitXRNudging(ctx, t, e, "Workspace", ns, team, "Ready", "True", "rootshard/root", "workspace/"+team); err != nil {
		t.Fatal(err)
	}
	if _, err := waitXRNudging(ctx, t, e, "Kubeconfig", team, "admin", "Ready", "True", "kubeconfig/admin"); err != nil {
		t.Fatal(err)
	}
	kubeconfig := secretKey(ctx, t, e, team, "admin-kubeconfig", "kubeconfig")
	base := kubeconfigBase(t, kubeconfig)
	k := podKubectl(t, c, proxy, team+"-admin", kubeconfig)
	if err := e.Eventually(ctx, timeout, team+"'s kubeconfig reads root:"+team, func(ctx context.Context) (bool, string, error) {
		out, err := k(ctx, "", "--server="+base+"/clusters/root:"+team, "get", "configmaps", "-n", "default")
		return err == nil, out, nil
	}); err != nil {
		t.Fatal(err)
	}
	return k, base
}

// runSyncAgent runs the agent of the PublishedAPI as its Deployment in the service cluster
// would: exactly its container's command and args, in a pod network namespace of the real kcp
// processes (whose hosts file resolves the kcp Service names its kubeconfig and the export's
// endpoint slice name) with the Deployment's mounts (the copy of its kubeconfig Secret in its
// namespace, at the path of --kcp-kubeconfig). In a cluster it reaches its API server with its
// ServiceAccount's token; here --kubeconfig (controller-runtime's flag) names a kubeconfig of a
// client certificate for the ServiceAccount's user and groups, so the RBAC the PublishedAPI
// composed for it is what it gets, and this cluster's API server is relayed into the pod's
// loopback at its own address.
func runSyncAgent(ctx context.Context, t *testing.T, e *env, c *realkcp.Cluster, bin string) *proc.Process {
	t.Helper()
	name := apisExport + "-syncagent"
	var d appsv1.Deployment
	if err := e.Eventually(ctx, timeout, "Deployment "+apisAgentNamespace+"/"+name+" in the service cluster, and its kubeconfig Secret", func(ctx context.Context) (bool, string, error) {
		if err := e.GetJSON(ctx, &d, "deployment", "-n", apisAgentNamespace, name); err != nil {
			return false, "", err
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Secret != nil {
				if _, err := e.SecretData(ctx, apisAgentNamespace, v.Secret.SecretName); err != nil {
					return false, "", err
				}
			}
		}
		return true, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	spec := d.Spec.Template.Spec
	if len(spec.Containers) == 0 || len(spec.Containers[0].Command) == 0 || filepath.Base(spec.Containers[0].Command[0]) != "api-syncagent" {
		t.Fatalf("Deployment %s/%s does not run api-syncagent: %+v", apisAgentNamespace, name, spec.Containers)
	}
	ct := spec.Containers[0]
	pod, err := c.PodOf(ctx, apisAgentNamespace, name, spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ct.Args {
		if path, ok := strings.CutPrefix(a, "--kcp-kubeconfig="); ok {
			rel, _ := strings.CutPrefix(path, "/etc/")
			if _, err := os.Stat(filepath.Join(pod.Dir(), "etc", rel)); err != nil {
				t.Fatalf("the agent's --kcp-kubeconfig %s is not what the Deployment mounts: %v", path, err)
			}
		}
	}
	user := "system:serviceaccount:" + apisAgentNamespace + ":" + spec.ServiceAccountName
	kubeconfig, err := e.UserKubeconfig(user, "system:serviceaccounts", "system:serviceaccounts:"+apisAgentNamespace)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	var l net.Listener
	if err := netns.Do(pod.NetNS(), func() (err error) {
		l, err = net.Listen("tcp", u.Host)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	go netns.Serve(l, func() (net.Conn, error) { return net.DialTimeout("tcp", u.Host, 5*time.Second) })
	t.Cleanup(func() { _ = l.Close() })

	args := append(slices.Clone(ct.Command[1:]), ct.Args...)
	args = append(args, "--kubeconfig="+kubeconfig)
	cmd := pod.Command(context.Background(), nil, bin, args...)
	wd := filepath.Join(pod.Dir(), "workdir")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := proc.StartIn(filepath.Join(pod.Dir(), "api-syncagent.log"), wd, nil, cmd.Path, cmd.Args[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP APIs: api-syncagent runs as Deployment %s/%s's container (pod %s at %s, log %s) with its args %s, plus --kubeconfig for %s",
		apisAgentNamespace, name, pod.Name, pod.IP, p.Log, strings.Join(args[:len(args)-1], " "), user)
	return p
}

// apisDatabaseRoundTrip creates a Database in root:rk-db:app through the front-proxy with the
// team's kubeconfig, follows it to the service cluster and back, and deletes it.
func apisDatabaseRoundTrip(ctx context.Context, t *testing.T, e *env, team kubectlFunc, base string, agent *proc.Process, exited func() error) {
	t.Helper()
	in := func(args ...string) []string {
		return append([]string{"--server=" + base + "/clusters/root:" + apisGrantedTeam + ":app"}, args...)
	}
	down := func() error {
		if err := agent.Exited(); err != nil {
			return err
		}
		return exited()
	}
	if err := e.Eventually(ctx, timeout, "kcp serves databases.e2e.example.org in root:"+apisGrantedTeam+":app", func(ctx context.Context) (bool, string, error) {
		out, err := team(ctx, "", in("get", "databases.e2e.example.org", "-n", "default")...)
		return err == nil, out, down()
	}); err != nil {
		t.Fatal(err)
	}
	const db = "orders"
	created := time.Now()
	if out, err := team(ctx, `apiVersion: e2e.example.org/v1alpha1
kind: Database
metadata: {name: `+db+`, namespace: default}
spec: {size: small}
`, in("create", "-f", "-")...); err != nil {
		t.Fatalf("create Database %s in root:%s:app: %v\n%s", db, apisGrantedTeam, err, out)
	}

	// Down: the agent's copy in the service cluster, which Crossplane composes.
	type local struct{ namespace, name string }
	var copyOf local
	var synced time.Duration
	if err := e.Eventually(ctx, timeout, "the Database synced down into the service cluster", func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, "get", "databases.e2e.example.org", "-A", "-o", `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}`)
		if err != nil {
			return false, string(out), nil
		}
		items := strings.Fields(string(out))
		if len(items) != 1 {
			return false, string(out), down()
		}
		copyOf.namespace, copyOf.name, _ = strings.Cut(items[0], "/")
		synced = time.Since(created)
		return true, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.Kubectl(context.Background(), nil, "delete", "namespace", copyOf.namespace, "--ignore-not-found", "--wait=false")
	})
	var address string
	var composed time.Duration
	if err := e.Eventually(ctx, timeout, "Crossplane composes the copy through the demo function", func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, "get", "databases.e2e.example.org", "-n", copyOf.namespace, copyOf.name, "-o", "jsonpath={.status.address}")
		address = string(out)
		if err != nil || address == "" {
			return false, address, down()
		}
		_, err = e.SecretData(ctx, copyOf.namespace, copyOf.name+"-connection")
		composed = time.Since(created)
		return err == nil, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	// Up: status and the connection Secret, in the team's workspace.
	var statusUp, secretUp time.Duration
	if err := e.Eventually(ctx, timeout, "status.address and Secret "+db+"-connection in root:"+apisGrantedTeam+":app", func(ctx context.Context) (bool, string, error) {
		if statusUp == 0 {
			out, err := team(ctx, "", in("get", "databases.e2e.example.org", "-n", "default", db, "-o", "jsonpath={.status.address}")...)
			if err != nil || out != address {
				return false, "status.address in kcp: " + out, down()
			}
			statusUp = time.Since(created)
		}
		out, err := team(ctx, "", in("get", "secret", "-n", "default", db+"-connection", "-o", "jsonpath={.data.address}")...)
		if err != nil {
			return false, "connection Secret in kcp: " + out, down()
		}
		got, _ := base64.StdEncoding.DecodeString(out)
		if string(got) != address {
			return false, fmt.Sprintf("connection Secret in kcp says %q, want %q", got, address), down()
		}
		secretUp = time.Since(created)
		return true, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP APIs: Database %s created in root:%s:app through the front-proxy: synced down to %s/%s after %.1fs, composed by Crossplane (status.address %q, Secret %s-connection) after %.1fs; status.address in kcp %.1fs and Secret %s-connection in kcp %.1fs after create",
		db, apisGrantedTeam, copyOf.namespace, copyOf.name, synced.Seconds(), address, copyOf.name, composed.Seconds(), statusUp.Seconds(), db, secretUp.Seconds())

	deleted := time.Now()
	if out, err := team(ctx, "", in("delete", "databases.e2e.example.org", "-n", "default", db, "--wait=false")...); err != nil {
		t.Fatalf("delete Database %s in kcp: %v\n%s", db, err, out)
	}
	var goneBelow, goneAbove time.Duration
	if err := e.Eventually(ctx, timeout, "Database "+db+" gone in kcp and in the service cluster, with its connection Secrets", func(ctx context.Context) (bool, string, error) {
		var left []string
		if out, err := e.Kubectl(ctx, nil, "get", "databases.e2e.example.org", "-n", copyOf.namespace, copyOf.name, "--ignore-not-found", "-o", "name"); err != nil || len(strings.TrimSpace(string(out))) > 0 {
			left = append(left, "service cluster: "+strings.TrimSpace(string(out)))
		}
		if out, err := e.Kubectl(ctx, nil, "get", "secret", "-n", copyOf.namespace, copyOf.name+"-connection", "--ignore-not-found", "-o", "name"); err != nil || len(strings.TrimSpace(string(out))) > 0 {
			left = append(left, "service cluster: "+strings.TrimSpace(string(out)))
		}
		if len(left) == 0 && goneBelow == 0 {
			goneBelow = time.Since(deleted)
		}
		for _, what := range []string{"databases.e2e.example.org/" + db, "secret/" + db + "-connection"} {
			if out, err := team(ctx, "", in("get", what, "-n", "default", "--ignore-not-found", "-o", "name")...); err != nil || strings.TrimSpace(out) != "" {
				left = append(left, "kcp: "+strings.TrimSpace(out))
			}
		}
		if len(left) == 0 {
			goneAbove = time.Since(deleted)
		}
		return len(left) == 0, strings.Join(left, "; "), down()
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("RealKCP APIs: deleting Database %s in kcp removed it and its connection Secret in the service cluster (%.1fs) and in kcp (%.1fs)", db, goneBelow.Seconds(), goneAbove.Seconds())
}
