package scenarios

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
	"github.com/configuration-kcp/configuration-kcp/test/shell"
)

// testMigrate plays docs/migrating-from-kcp-operator.md on the basic installation.
//
// No kcp-operator runs here. KCPOperatorStandIn creates what kcp-operator v0.9.0 leaves in a
// namespace for the RootShard, FrontProxy and Kubeconfig of examples/basic: its objects
// (stand-in CRDs with an open schema), the Compiled* objects, and every Issuer, Certificate,
// Secret, ConfigMap, Deployment and Service it composes, owned as kcp-operator owns them and
// labelled as it labels them. Those objects are the reviewed golden render with the
// differences docs/differences-from-kcp-operator.md lists undone (app.kubernetes.io/
// managed-by, ownership, no labels on proxy Deployments, no labels on the kubeconfig Secret,
// no spread of the pods).
// Real cert-manager issues the stand-in's certificates. The migration must then keep every CA
// and every issued certificate, and every Service, and end with the XRs Ready and owning
// everything.
func testMigrate(t *testing.T, e *env) {
	ctx := t.Context()
	ns := basicNamespace
	golden := goldenRender(t, e, "basic")
	_, wantCerts := goldenRefs(t, golden)

	for _, f := range []string{"namespace.yaml", "clusterissuer.yaml"} {
		if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "basic", f)); err != nil {
			t.Fatal(err)
		}
	}
	standIn := createKCPOperatorStandIn(ctx, t, e, ns, golden)
	if err := waitCertificatesReady(ctx, e, ns, wantCerts); err != nil {
		t.Fatal(err)
	}
	e.Step("migrate: KCPOperatorStandIn created %d objects as kcp-operator v0.9.0 leaves them; cert-manager issued their %d certificates", standIn.created, wantCerts)
	before := snapshotPKI(ctx, t, e, ns)

	// A RootShard XR created while kcp-operator still owns the objects takes nothing over.
	if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "basic", "rootshard.yaml")); err != nil {
		t.Fatal(err)
	}
	early, err := waitXR(ctx, e, "RootShard", ns, "root", "Synced", "False")
	if err != nil {
		t.Fatal(err)
	}
	e.Step("migrate: a RootShard XR applied before step 3 reports Synced=False: %s", early.conditions()["Synced"].Message)
	t.Run("EarlyXRTakesNothingOver", func(t *testing.T) {
		for _, name := range []string{"root-ca", "root-server"} {
			var c stack.Object
			if err := e.GetJSON(ctx, &c, "certificate", "-n", ns, name); err != nil {
				t.Fatal(err)
			}
			if got := controllerOf(c); got != "operator.kcp.io/v1alpha1 RootShard root" {
				t.Errorf("Certificate %s is controlled by %q while kcp-operator's RootShard exists, want kcp-operator's RootShard", name, got)
			}
		}
	})

	// The guide's steps, its commands run verbatim (guide.run checks that the guide shows
	// each of them). Step 2 (stop kcp-operator) has nothing to stop here.
	guide := readGuide(t, e)
	revisionsCmd := "kubectl get certificates -n kcp -o custom-columns=NAME:.metadata.name,REVISION:.status.revision"
	revisionsBefore := guide.run(ctx, t, revisionsCmd)
	guide.run(ctx, t, `kubectl patch shards.operator.kcp.io -n kcp shard-1 --type=merge -p '{"metadata":{"finalizers":null}}'`)
	guide.run(ctx, t, "kubectl delete -n kcp rootshards.operator.kcp.io,shards.operator.kcp.io,frontproxies.operator.kcp.io,cacheservers.operator.kcp.io,virtualworkspaces.operator.kcp.io,kubeconfigs.operator.kcp.io --all --cascade=orphan")
	guide.run(ctx, t, "kubectl delete -n kcp compiledrootshards.deploy.operator.kcp.io,compiledshards.deploy.operator.kcp.io,compiledfrontproxies.deploy.operator.kcp.io,compiledcacheservers.deploy.operator.kcp.io,compiledvirtualworkspaces.deploy.operator.kcp.io --all --cascade=orphan")
	owners := guide.run(ctx, t, `kubectl get certificates,issuers,secrets,configmaps,deployments,services -n kcp -o jsonpath='{range .items[*]}{.kind}/{.metadata.name} {.metadata.ownerReferences[*].apiVersion}{"\n"}{end}'`)
	t.Run("OrphanedByKCPOperator", func(t *testing.T) {
		for _, l := range strings.Split(string(owners), "\n") {
			if strings.Contains(l, "operator.kcp.io") {
				t.Errorf("still owned by kcp-operator after step 3: %s", l)
			}
		}
	})
	guide.run(ctx, t, "kubectl delete deployment -n kcp root-kcp root-proxy frontproxy-front-proxy --cascade=orphan")
	guide.run(ctx, t, "kubectl delete secret -n kcp kcp-admin-kubeconfig")

	// The early XR recorded references to objects it could not take over. Now that they are
	// orphaned it either cannot observe them (they lack Crossplane's composition-resource-
	// name annotation) and stays stuck with the message the guide quotes, or, when its cache
	// still showed kcp-operator's controller reference as it read them, it applied them and
	// took them over (Synced=True). The guide's advice holds for both.
	var outcome string
	if err := e.Eventually(ctx, timeout, "the early RootShard reports the objects it cannot observe, or takes them over", func(ctx context.Context) (bool, string, error) {
		x, err := getXR(ctx, e, "RootShard", ns, "root")
		c := x.conditions()["Synced"]
		switch {
		case err != nil:
			return false, "", err
		case c.Status == "False" && c.Message != "" && strings.Contains(guide.text, c.Message):
			outcome = "reported the objects it could not observe, as the guide quotes"
		case c.Status == "True":
			outcome = "took the orphaned objects over (its cache still showed kcp-operator as their controller), as the guide says it may"
		}
		return outcome != "", c.Status + ": " + c.Message, nil
	}); err != nil {
		t.Fatal(err)
	}
	// Paused before the delete: an apply in flight as garbage collection orphans what the XR
	// composed would hand the object back to the doomed XR, and the collector would delete it
	// (stop 48's CI lost two CA Certificates so).
	earlyXRs := "-n kcp rootshards.kcp.crossplane.io,certificatesets.kcp.crossplane.io -l crossplane.io/composite=root"
	guide.run(ctx, t, "kubectl annotate "+earlyXRs+" crossplane.io/paused=true")
	guide.run(ctx, t, "kubectl wait "+earlyXRs+` --for=jsonpath='{.status.conditions[?(@.type=="Synced")].reason}'=ReconcilePaused --timeout=5m`)
	guide.run(ctx, t, "kubectl delete "+earlyXRs+" --cascade=orphan --wait=false")
	guide.run(ctx, t, "kubectl annotate "+earlyXRs+" crossplane.io/paused-")
	guide.run(ctx, t, "kubectl wait "+earlyXRs+" --for=delete --timeout=5m")
	e.Step("migrate: the early RootShard then %s; paused, then deleted with --cascade=orphan", outcome)

	start := time.Now()
	applyExample(ctx, t, e, "basic")
	for _, k := range []struct{ kind, name string }{{"RootShard", "root"}, {"FrontProxy", "frontproxy"}, {"Kubeconfig", "admin"}} {
		if _, err := waitXR(ctx, e, k.kind, ns, k.name, "Ready", "True"); err != nil {
			t.Fatal(err)
		}
	}
	e.Step("migrate: RootShard, FrontProxy and Kubeconfig took over kcp-operator's objects and were Ready %.1fs after apply (rolled out by Kubernetes onto kwok fake nodes, which stand in for kubelets)", time.Since(start).Seconds())
	t.Log(string(guide.run(ctx, t, "kubectl get rootshards.kcp.crossplane.io,frontproxies.kcp.crossplane.io,kubeconfigs.kcp.crossplane.io -n kcp")))
	t.Run("RevisionsAsWrittenDown", func(t *testing.T) {
		if after := guide.run(ctx, t, revisionsCmd); string(after) != string(revisionsBefore) {
			t.Errorf("certificate revisions changed:\nbefore:\n%s\nafter:\n%s", revisionsBefore, after)
		}
	})
	guide.run(ctx, t, "kubectl delete replicaset -n kcp -l app.kubernetes.io/managed-by=kcp-operator")

	after := snapshotPKI(ctx, t, e, ns)
	t.Run("NoCertificateReissued", func(t *testing.T) {
		for name, b := range before.certificates {
			if a, ok := after.certificates[name]; !ok {
				t.Errorf("Certificate %s is gone", name)
			} else if a != b {
				t.Errorf("Certificate %s was reissued by the migration: before %s, after %s", name, b, a)
			}
		}
	})
	t.Run("ServicesKept", func(t *testing.T) {
		for name, uid := range before.services {
			if after.services[name] != uid {
				t.Errorf("Service %s was re-created (uid %s, now %s): its cluster IP or load balancer address may have changed", name, uid, after.services[name])
			}
		}
	})
	t.Run("XRsOwnEverything", func(t *testing.T) {
		var list struct {
			Items []stack.Object `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, strings.Join(composedKinds, ","), "-n", ns); err != nil {
			t.Fatal(err)
		}
		live := map[string]stack.Object{}
		for _, o := range list.Items {
			live[o.Kind+"/"+o.Metadata.Name] = o
		}
		// Every object kcp-operator had composed, including those the guide deletes for
		// the XRs to re-create.
		for _, key := range standIn.objects {
			o, ok := live[key]
			if !ok {
				t.Errorf("%s is gone", key)
				continue
			}
			if got := controllerOf(o); !strings.HasPrefix(got, "kcp.crossplane.io/") {
				t.Errorf("%s is controlled by %q, want one of the XRs", key, got)
			}
			if v := o.Metadata.Labels["app.kubernetes.io/managed-by"]; v == "kcp-operator" {
				t.Errorf("%s still carries app.kubernetes.io/managed-by=kcp-operator", key)
			}
		}
	})
	t.Run("DeploymentsAsRendered", func(t *testing.T) { checkDeployments(ctx, t, e, ns, golden) })
	t.Run("KubeconfigKeepsItsCertificate", func(t *testing.T) {
		cert := checkAdminKubeconfig(ctx, t, e)
		if got := fingerprint(cert.Raw); got != before.kubeconfigCert {
			t.Errorf("the kubeconfig's client certificate changed (%s, was %s): users of the old kubeconfig would need a new one", got, before.kubeconfigCert)
		}
	})

	// Uninstalling kcp-operator: its CRDs go once none of its objects is left.
	if left := guide.run(ctx, t, "kubectl get rootshards.operator.kcp.io,shards.operator.kcp.io,frontproxies.operator.kcp.io -A"); len(strings.TrimSpace(string(left))) > 0 {
		t.Errorf("kcp-operator objects left after the migration:\n%s", left)
	}
	if _, err := e.Kubectl(ctx, nil, "delete", "-f", filepath.Join(e.root, "test", "e2e", "scenarios", "testdata", "kcp-operator-standin-crds.yaml")); err != nil {
		t.Fatal(err)
	}

	// What is left is the basic installation: Delete removes it, and the namespace, for
	// the scenarios after this one.
	testDelete(t, e)
}

// waitGarbageCollectorKnows waits until Kubernetes' garbage collector handles owners of a
// kind whose CRD was just created: it learns new kinds only on its next discovery (every 30
// seconds), and until then it cannot orphan dependents of such an owner (the migration
// guide's --cascade=orphan): once it can map the kind it deletes them instead, as dependents
// of an owner that is gone. A probe ConfigMap owned by a probe owner, the owner deleted in the
// background, is gone once the collector knows the kind.
func waitGarbageCollectorKnows(ctx context.Context, t *testing.T, e *env, ns, apiVersion, kind string) {
	t.Helper()
	name := "gc-probe-" + strings.ToLower(kind)
	owner := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"namespace":%q}}`, apiVersion, kind, name, ns)
	out, err := e.Kubectl(ctx, []byte(owner), "create", "-f", "-", "-o", "jsonpath={.metadata.uid}")
	if err != nil {
		t.Fatalf("create %s %s: %v\n%s", kind, name, err, out)
	}
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q}]}}`,
		name, ns, apiVersion, kind, name, strings.TrimSpace(string(out)))
	if out, err := e.Kubectl(ctx, []byte(cm), "create", "-f", "-"); err != nil {
		t.Fatalf("create ConfigMap %s: %v\n%s", name, err, out)
	}
	resource := strings.ToLower(kind) + "s." + strings.Split(apiVersion, "/")[0]
	if out, err := e.Kubectl(ctx, nil, "delete", resource, "-n", ns, name, "--cascade=background"); err != nil {
		t.Fatalf("delete %s %s: %v\n%s", kind, name, err, out)
	}
	start := time.Now()
	if err := e.Eventually(ctx, 2*time.Minute, "the garbage collector handles owners of kind "+kind, func(ctx context.Context) (bool, string, error) {
		out, err := e.Kubectl(ctx, nil, "get", "configmap", "-n", ns, name, "--ignore-not-found", "-o", "name")
		return err == nil && strings.TrimSpace(string(out)) == "", "probe ConfigMap " + name + " still there", nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("migrate: the garbage collector handles %s owners %.1fs after its CRD was established", kind, time.Since(start).Seconds())
}

// kcpOperatorStandIn is what createKCPOperatorStandIn made: how many objects, and the
// composed ones ("Kind/name") that the XRs must end up owning.
type kcpOperatorStandIn struct {
	created int
	objects []string
}

// createKCPOperatorStandIn creates what kcp-operator v0.9.0 leaves in the namespace for
// examples/basic (see testMigrate).
func createKCPOperatorStandIn(ctx context.Context, t *testing.T, e *env, ns string, golden [][]byte) kcpOperatorStandIn {
	t.Helper()
	crds := filepath.Join(e.root, "test", "e2e", "scenarios", "testdata", "kcp-operator-standin-crds.yaml")
	if _, err := e.ApplyFiles(ctx, crds); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Kubectl(ctx, nil, "wait", "--for=condition=Established", "--timeout=3m", "-f", crds); err != nil {
		t.Fatal(err)
	}
	for _, owner := range []string{"operator.kcp.io/v1alpha1 RootShard", "deploy.operator.kcp.io/v1alpha1 CompiledRootShard"} {
		apiVersion, kind, _ := strings.Cut(owner, " ")
		waitGarbageCollectorKnows(ctx, t, e, ns, apiVersion, kind)
	}
	var standIn kcpOperatorStandIn
	create := func(obj map[string]any) stack.OwnerReference {
		t.Helper()
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		// kcp-operator writes with Update, not server-side apply.
		out, err := e.Kubectl(ctx, b, "create", "--field-manager=kcp-operator", "-o", "json", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		var o stack.Object
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatal(err)
		}
		standIn.created++
		return stack.OwnerReference{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Metadata.Name, UID: o.Metadata.UID}
	}

	// kcp-operator's own objects: the example's manifests in its API group, and the
	// Compiled* objects its config controllers create for the workload controllers.
	owners := map[string]stack.OwnerReference{}
	setOwners := map[string]string{} // CertificateSet name -> the kind of the XR composing it
	for _, d := range golden {
		var o map[string]any
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(o["apiVersion"].(string), "kcp.crossplane.io/") {
			continue
		}
		kind, meta := o["kind"].(string), o["metadata"].(map[string]any)
		if kind == "CertificateSet" {
			// kcp-operator has no such kind: the RootShard owns the certificates itself.
			if refs, _ := meta["ownerReferences"].([]any); len(refs) == 1 {
				setOwners[meta["name"].(string)], _ = refs[0].(map[string]any)["kind"].(string)
			}
			continue
		}
		spec := o["spec"].(map[string]any)
		delete(spec, "crossplane")
		owners[kind] = create(map[string]any{
			"apiVersion": "operator.kcp.io/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": meta["name"], "namespace": ns},
			"spec":     spec,
		})
		if kind == "Kubeconfig" {
			continue
		}
		// The Compiled* spec holds the source's spec under a key named after the kind.
		field := strings.ToLower(kind[:1]) + kind[1:]
		owners["Compiled"+kind] = create(map[string]any{
			"apiVersion": "deploy.operator.kcp.io/v1alpha1", "kind": "Compiled" + kind,
			"metadata": map[string]any{"name": meta["name"], "namespace": ns, "ownerReferences": []stack.OwnerReference{controller(owners[kind])}},
			"spec":     map[string]any{field: spec},
		})
	}

	// A Shard with the finalizer kcp-operator adds to every Shard, so that the scenario
	// runs the guide's step 2a; what kcp-operator composes for a Shard is not stood in.
	create(map[string]any{
		"apiVersion": "operator.kcp.io/v1alpha1", "kind": "Shard",
		"metadata": map[string]any{"name": "shard-1", "namespace": ns, "finalizers": []string{"operator.kcp.io/cleanup-shard"}},
		"spec":     map[string]any{"rootShard": map[string]any{"ref": map[string]any{"name": "root"}}},
	})

	for _, d := range golden {
		var o map[string]any
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		obj, ok := asKCPOperatorWrote(o, owners, setOwners)
		if !ok {
			continue
		}
		create(obj)
		standIn.objects = append(standIn.objects, fmt.Sprintf("%s/%s", obj["kind"], obj["metadata"].(map[string]any)["name"]))
	}
	return standIn
}

// asKCPOperatorWrote turns a composed object of a golden render into the object kcp-operator
// v0.9.0 writes for the same input, undoing the differences in metadata that
// docs/differences-from-kcp-operator.md lists. It reports false for what kcp-operator does
// not write: the XRs, the Secret cert-manager writes for the Kubeconfig, the
// PodDisruptionBudgets (kcp-operator composes none), and what provider-kubernetes acts inside
// kcp with (its ProviderConfigs and Objects, and the RootShard's credentials Secret for them;
// kcp-operator uses its certificate itself).
func asKCPOperatorWrote(o map[string]any, owners map[string]stack.OwnerReference, setOwners map[string]string) (map[string]any, bool) {
	kind := o["kind"].(string)
	meta := o["metadata"].(map[string]any)
	apiVersion := o["apiVersion"].(string)
	if strings.HasPrefix(apiVersion, "kcp.crossplane.io/") || meta["name"] == "kubeconfig-cert-admin" && kind == "Secret" || kind == "PodDisruptionBudget" ||
		strings.HasPrefix(apiVersion, "kubernetes.m.crossplane.io/") || kind == "Secret" && strings.HasSuffix(meta["name"].(string), "-kcp-operator-kubeconfig") {
		return nil, false
	}
	var xrKind string
	if refs, _ := meta["ownerReferences"].([]any); len(refs) == 1 {
		ref := refs[0].(map[string]any)
		xrKind, _ = ref["kind"].(string)
		if xrKind == "CertificateSet" {
			// What a CertificateSet composes, kcp-operator's RootShard (or Shard) owns.
			xrKind = setOwners[ref["name"].(string)]
		}
	}
	delete(o, "status")
	delete(meta, "ownerReferences")
	for _, k := range []string{"labels", "annotations"} {
		m, _ := meta[k].(map[string]any)
		for key := range m {
			if strings.HasPrefix(key, "crossplane.io/") {
				delete(m, key)
			}
		}
		if len(m) == 0 {
			delete(meta, k)
		}
	}
	managedBy(meta["labels"])
	spec, _ := o["spec"].(map[string]any)
	switch kind {
	case "Deployment":
		sel := spec["selector"].(map[string]any)
		managedBy(sel["matchLabels"])
		tmpl := spec["template"].(map[string]any)["metadata"].(map[string]any)
		managedBy(tmpl["labels"])
		// kcp-operator rolls pods with labels, not these annotations.
		delete(tmpl, "annotations")
		// kcp-operator does not spread the pods.
		delete(spec["template"].(map[string]any)["spec"].(map[string]any), "topologySpreadConstraints")
		// Quirk 8: proxy Deployments have no labels of their own.
		if c := sel["matchLabels"].(map[string]any)["app.kubernetes.io/component"]; c == "rootshard-proxy" || c == "front-proxy" {
			delete(meta, "labels")
		}
	case "Service":
		managedBy(spec["selector"])
	}

	switch {
	case xrKind == "Kubeconfig":
		// The Kubeconfig owns nothing; its output Secret has no labels.
		if kind == "Secret" {
			delete(meta, "labels")
		}
	case kind == "Deployment" || kind == "Service" || kind == "ConfigMap" || kind == "Secret" && strings.HasSuffix(meta["name"].(string), "-dynamic-kubeconfig"):
		meta["ownerReferences"] = []stack.OwnerReference{controller(owners["Compiled"+xrKind])}
	default:
		meta["ownerReferences"] = []stack.OwnerReference{controller(owners[xrKind])}
	}
	return o, true
}

// managedBy sets app.kubernetes.io/managed-by to kcp-operator's value in a label map.
func managedBy(labels any) {
	if m, ok := labels.(map[string]any); ok && m["app.kubernetes.io/managed-by"] != nil {
		m["app.kubernetes.io/managed-by"] = "kcp-operator"
	}
}

// controller makes an owner reference the controller reference kcp-operator writes.
func controller(r stack.OwnerReference) stack.OwnerReference {
	r.Controller, r.BlockOwnerDeletion = true, true
	return r
}

// controllerOf names an object's controller as "apiVersion Kind name", or "".
func controllerOf(o stack.Object) string {
	for _, r := range o.Metadata.OwnerReferences {
		if r.Controller {
			return r.APIVersion + " " + r.Kind + " " + r.Name
		}
	}
	return ""
}

// pkiSnapshot is what a migration must keep: each Certificate's revision and the fingerprint
// of the certificate in its Secret, each Service's UID, and the kubeconfig's certificate.
type pkiSnapshot struct {
	certificates   map[string]string
	services       map[string]string
	kubeconfigCert string
}

func snapshotPKI(ctx context.Context, t *testing.T, e *env, ns string) pkiSnapshot {
	t.Helper()
	s := pkiSnapshot{certificates: map[string]string{}, services: map[string]string{}}
	var certs struct {
		Items []struct {
			stack.Object
			Spec struct {
				SecretName string `json:"secretName"`
			} `json:"spec"`
			Status struct {
				Revision int `json:"revision"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &certs, "certificates.cert-manager.io", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, c := range certs.Items {
		data, err := e.SecretData(ctx, ns, c.Spec.SecretName)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := leaf(data["tls.crt"])
		if err != nil {
			t.Fatalf("Secret %s: %v", c.Spec.SecretName, err)
		}
		s.certificates[c.Metadata.Name] = fmt.Sprintf("revision %d, certificate %s", c.Status.Revision, fingerprint(blk.Raw))
		if c.Metadata.Name == "kubeconfig-cert-admin" {
			s.kubeconfigCert = fingerprint(blk.Raw)
		}
	}
	var svcs struct {
		Items []stack.Object `json:"items"`
	}
	if err := e.GetJSON(ctx, &svcs, "services", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, svc := range svcs.Items {
		s.services[svc.Metadata.Name] = svc.Metadata.UID
	}
	if len(s.certificates) == 0 || len(s.services) == 0 || s.kubeconfigCert == "" {
		t.Fatalf("nothing to compare: %d certificates, %d services, kubeconfig certificate %q", len(s.certificates), len(s.services), s.kubeconfigCert)
	}
	return s
}

// fingerprint is a short, printable identity of a DER certificate.
func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:8])
}

// migrationGuide is docs/migrating-from-kcp-operator.md, whose commands the scenario runs.
type migrationGuide struct {
	e    *env
	text string
}

func readGuide(t *testing.T, e *env) migrationGuide {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, "docs", "migrating-from-kcp-operator.md"))
	if err != nil {
		t.Fatal(err)
	}
	return migrationGuide{e: e, text: string(b)}
}

// run runs a kubectl command the guide shows verbatim, and returns its output. It fails the
// test if the guide no longer shows it: what the scenario proves is what the guide says.
func (g migrationGuide) run(ctx context.Context, t *testing.T, command string) []byte {
	t.Helper()
	if !strings.Contains(g.text, command) {
		t.Fatalf("docs/migrating-from-kcp-operator.md does not show the command the scenario runs; update both:\n%s", command)
	}
	cmds, err := shell.Parse(command)
	if err != nil || len(cmds) != 1 || cmds[0].Args[0] != "kubectl" {
		t.Fatalf("not one kubectl command (%v): %s", err, command)
	}
	args := cmds[0].Args[1:]
	out, err := g.e.Kubectl(ctx, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("$ %s\n%s", command, out)
	return out
}
