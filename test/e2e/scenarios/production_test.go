package scenarios

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

const productionNamespace = "kcp-prod"

// testProduction applies examples/production, the production-shaped KcpInstallation, and
// checks what makes it production-shaped on the objects the API server stored: the TLSRoute
// and the Ingress that expose its front-proxies, their ClusterIP Services, three etcd members,
// every pod spread across nodes and zones and tolerating the platform's taint, and the
// PodMonitors of the root shard, the shards and the front-proxies (monitoring_test.go). Then
// where Kubernetes put the pods: kube-scheduler places them on kwok's fake nodes (two zones,
// half of the nodes tainted for kcp; kwok stands in for kubelets), the deployment and
// statefulset controllers roll them out, the disruption controller keeps the budgets' status.
//
// Gateway API's TLSRoute CRD comes from the pinned sigs.k8s.io/gateway-api module; no Gateway
// or Ingress controller runs here, so nothing routes traffic: the test checks what the
// controllers would read.
func testProduction(t *testing.T, e *env) {
	ctx := t.Context()
	ns := productionNamespace
	crd := filepath.Join(os.Getenv(stack.EnvGatewayAPICRDs), "gateway.networking.k8s.io_tlsroutes.yaml")
	if _, err := e.ApplyFiles(ctx, crd); err != nil {
		t.Fatalf("Gateway API's TLSRoute CRD (%s): %v", stack.EnvGatewayAPICRDs, err)
	}
	if err := e.WaitCondition(ctx, time.Minute, "Established", "crd", "tlsroutes.gateway.networking.k8s.io"); err != nil {
		t.Fatal(err)
	}
	installPodMonitorCRD(ctx, t, e)
	golden := goldenRender(t, e, "production")
	wantRefs, wantCerts := goldenRefs(t, golden)

	start := time.Now()
	applyExample(ctx, t, e, "production")
	if err := waitCertificatesReadyWithin(ctx, e, ns, wantCerts, 2*timeout); err != nil {
		t.Fatal(err)
	}
	e.Step("production: %d certificates issued %.1fs after apply", wantCerts, time.Since(start).Seconds())
	inst, err := waitInstallationReady(ctx, e, ns, "prod")
	if err != nil {
		t.Fatal(err)
	}
	e.Step("production: KcpInstallation and its %d composed XRs Ready %.1fs after apply (no Gateway or Ingress controller runs: the TLSRoute and Ingress are checked as stored; kwok fake nodes stand in for kubelets)", len(wantRefs)-1, time.Since(start).Seconds())

	t.Run("Status", func(t *testing.T) {
		if inst.Status["url"] != "https://kcp.example.com:443" {
			t.Errorf("status.url %v, want https://kcp.example.com:443, the Gateway's address", inst.Status["url"])
		}
	})
	// servicePort is the port a front-proxy's Service listens on, which its route must name.
	servicePort := func(t *testing.T, svc string) int {
		t.Helper()
		out, err := e.Kubectl(ctx, nil, "get", "service", "-n", ns, svc, "-o", "jsonpath={.spec.ports[0].port}")
		if err != nil {
			t.Fatal(err)
		}
		port, err := strconv.Atoi(string(out))
		if err != nil {
			t.Fatalf("Service %s port %q: %v", svc, out, err)
		}
		return port
	}
	t.Run("TLSRoute", func(t *testing.T) {
		var r struct {
			Spec struct {
				ParentRefs []struct{ Name, Namespace, SectionName string } `json:"parentRefs"`
				Hostnames  []string                                        `json:"hostnames"`
				Rules      []struct {
					BackendRefs []struct {
						Name string `json:"name"`
						Port int    `json:"port"`
					} `json:"backendRefs"`
				} `json:"rules"`
			} `json:"spec"`
		}
		if err := e.GetJSON(ctx, &r, "tlsroute.gateway.networking.k8s.io", "-n", ns, "prod-public"); err != nil {
			t.Fatal(err)
		}
		s := r.Spec
		if len(s.ParentRefs) != 1 || s.ParentRefs[0].Name != "kcp-passthrough" || s.ParentRefs[0].Namespace != "gateways" || s.ParentRefs[0].SectionName != "kcp-tls" {
			t.Errorf("parentRefs %+v, want gateways/kcp-passthrough, listener kcp-tls", s.ParentRefs)
		}
		if strings.Join(s.Hostnames, ",") != "kcp.example.com" {
			t.Errorf("hostnames %v, want kcp.example.com", s.Hostnames)
		}
		port := servicePort(t, "prod-public-front-proxy")
		if len(s.Rules) != 1 || len(s.Rules[0].BackendRefs) != 1 || s.Rules[0].BackendRefs[0].Name != "prod-public-front-proxy" || s.Rules[0].BackendRefs[0].Port != port {
			t.Errorf("rules %+v, want one backend prod-public-front-proxy:%d, the port its Service listens on", s.Rules, port)
		}
	})
	t.Run("Ingress", func(t *testing.T) {
		out, err := e.Kubectl(ctx, nil, "get", "ingress", "-n", ns, "prod-corp", "-o",
			`jsonpath={.spec.ingressClassName} {.spec.rules[0].host} {.spec.rules[0].http.paths[0].backend.service.name}:{.spec.rules[0].http.paths[0].backend.service.port.number} {.metadata.annotations.nginx\.ingress\.kubernetes\.io/ssl-passthrough}`)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(out), fmt.Sprintf("nginx kcp.corp.example.com prod-corp-front-proxy:%d true", servicePort(t, "prod-corp-front-proxy")); got != want {
			t.Errorf("Ingress prod-corp: %q, want %q (class, host, backend, ssl-passthrough)", got, want)
		}
	})
	t.Run("FrontProxiesBehindTheirRoutes", func(t *testing.T) {
		for _, svc := range []string{"prod-public-front-proxy", "prod-corp-front-proxy"} {
			out, err := e.Kubectl(ctx, nil, "get", "service", "-n", ns, svc, "-o", "jsonpath={.spec.type}")
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != "ClusterIP" {
				t.Errorf("Service %s is %s, want ClusterIP: its route is the way in", svc, out)
			}
		}
	})
	t.Run("SpreadAndTolerations", func(t *testing.T) {
		out, err := e.Kubectl(ctx, nil, "get", "deployments,statefulsets", "-n", ns, "-o",
			`jsonpath={range .items[*]}{.kind}/{.metadata.name} {.spec.template.spec.topologySpreadConstraints[*].topologyKey} {.spec.template.spec.tolerations[*].key}{"\n"}{end}`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) < 7 {
			t.Errorf("%d Deployments and StatefulSets, want at least 7 (root shard, its proxy, two shards, two front-proxies, etcd):\n%s", len(lines), out)
		}
		for _, l := range lines {
			if !strings.HasSuffix(l, " kubernetes.io/hostname topology.kubernetes.io/zone dedicated") {
				t.Errorf("%s: want spread by kubernetes.io/hostname and topology.kubernetes.io/zone and the toleration of dedicated", l)
			}
		}
	})
	t.Run("ManagedEtcd", func(t *testing.T) { checkManagedEtcd(ctx, t, e, ns, "prod", "prod", 3) })
	t.Run("ShardEtcd", func(t *testing.T) {
		// Shard beta's own cluster (shards[].managedEtcd): the same checks, and the shard
		// stores its data there, alone.
		checkManagedEtcd(ctx, t, e, ns, "prod", "prod-beta", 3)
		for dep, want := range map[string]string{
			"prod-beta-shard-kcp":  "--etcd-servers=https://prod-beta-etcd.kcp-prod.svc.cluster.local:2379",
			"prod-alpha-shard-kcp": "--etcd-servers=https://prod-etcd.kcp-prod.svc.cluster.local:2379",
		} {
			out, err := e.Kubectl(ctx, nil, "get", "deployment", "-n", ns, dep, "-o", "jsonpath={.spec.template.spec.containers[0].args}")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), want) {
				t.Errorf("Deployment %s: args %s, want %s", dep, out, want)
			}
		}
	})
	t.Run("PodSecurityRestricted", func(t *testing.T) { checkPodSecurity(ctx, t, e, ns) })
	t.Run("PodMonitors", func(t *testing.T) {
		// Each PodMonitor, by the Secret of the serving certificate it must verify; etcd's,
		// scraped over plain HTTP, by none.
		checkPodMonitors(ctx, t, e, ns, map[string]string{
			"prod-etcd":               "",
			"prod-beta-etcd":          "",
			"prod-kcp":                "prod-server",
			"prod-alpha-shard-kcp":    "prod-alpha-server",
			"prod-beta-shard-kcp":     "prod-beta-server",
			"prod-public-front-proxy": "prod-prod-public-server",
			"prod-corp-front-proxy":   "prod-prod-corp-server",
		}, map[string]string{"release": "prometheus"})
	})

	// Where the scheduler put the pods. Every node is open to them (two of the four only
	// through the toleration), so the preferred spread puts each workload's replicas on
	// distinct nodes and in both zones.
	replicas, err := replicasOf(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Placement", func(t *testing.T) {
		groups, err := placement(ctx, e, ns)
		if err != nil {
			t.Fatal(err)
		}
		var summary []string
		onDedicated := 0
		for _, owner := range slices.Sorted(maps.Keys(groups)) {
			summary = append(summary, groups[owner].String())
			for _, p := range groups[owner].pods {
				for _, n := range stack.FakeNodes {
					if n.Dedicated && n.Name == p.Spec.NodeName {
						onDedicated++
					}
				}
			}
		}
		e.Step("production: pods placed by kube-scheduler on kwok fake nodes: %s", strings.Join(summary, "; "))
		if len(groups) != len(replicas) {
			t.Errorf("pods of %d workloads run, want one group for each of the %d Deployments and StatefulSets %v", len(groups), len(replicas), replicas)
		}
		checkSpread(t, groups, len(stack.FakeNodes))
		// Three etcd members on distinct nodes of four, two of them tainted: the toleration
		// is what lets them spread.
		if onDedicated == 0 {
			t.Errorf("no pod on a node tainted %s, though every pod tolerates it and spreads over four nodes", stack.DedicatedTaint)
		}
		checkStatefulIdentities(ctx, t, e, ns, groups["StatefulSet/prod-etcd"], "prod-etcd", "data", 3)
	})
	t.Run("DisruptionBudgets", func(t *testing.T) { checkDisruptionBudgets(ctx, t, e, ns, replicas) })
	t.Run("EvictionRespectsBudget", func(t *testing.T) {
		checkEvictionBudget(ctx, t, e, ns, []string{"prod-etcd-0", "prod-etcd-1"})
	})

	if _, err := e.Kubectl(ctx, nil, "delete", "kcpinstallation.kcp.crossplane.io", "-n", ns, "prod", "--wait=true", "--timeout=3m"); err != nil {
		t.Fatal(err)
	}
	if err := waitInstallationGone(ctx, e, ns); err != nil {
		t.Fatal(err)
	}
}
