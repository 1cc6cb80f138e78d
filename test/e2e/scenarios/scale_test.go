package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// scaleSize is one installation of the Scale scenario: a RootShard with that many Shards and
// Kubeconfig XRs.
type scaleSize struct{ shards, kubeconfigs int }

// envScale names the sizes the Scale scenario creates, smallest first, each in a namespace of
// its own: "<shards>x<kubeconfigs>,...". make test creates the one issue 8 names (a RootShard
// with 20 Shards and 50 Kubeconfigs); docs/performance.md measures how convergence grows with
// E2E_SCALE=5x12,10x25,20x50.
const envScale = "E2E_SCALE"

var defaultScale = []scaleSize{{20, 50}}

// scaleSizes parses envScale, or returns defaultScale when it is not set.
func scaleSizes() ([]scaleSize, error) {
	v := os.Getenv(envScale)
	if v == "" {
		return defaultScale, nil
	}
	var sizes []scaleSize
	for _, f := range strings.Split(v, ",") {
		var s scaleSize
		if _, err := fmt.Sscanf(f, "%dx%d", &s.shards, &s.kubeconfigs); err != nil || s.shards < 1 || s.kubeconfigs < 1 {
			return nil, fmt.Errorf("%s=%q: want sizes like 5x12,20x50 (<shards>x<kubeconfigs>, each at least 1)", envScale, v)
		}
		sizes = append(sizes, s)
	}
	return sizes, nil
}

// testScale installs each of scaleSizes and reports, per size: the time from apply to every
// Certificate issued and to every XR Ready, the RunFunction calls (in all, per XR, and per XR
// once the certificates were issued), Crossplane's reconciles, and the watch events per XR that
// Crossplane's circuit breaker counts, by source. It fails unless every XR becomes Ready, and if
// a Kubeconfig XR's circuit breaker opens: a Kubeconfig has one Certificate, and its breaker
// opening would mean the function itself causes a loop. A RootShard's and a Shard's breaker do
// open with Crossplane's default burst of 100 events; docs/performance.md says why (cert-manager
// updates each Certificate about seven times) and what to set.
func testScale(t *testing.T, e *env) {
	ctx := t.Context()
	sizes, err := scaleSizes()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range sizes {
		ns := fmt.Sprintf("scale-%d", size.shards)
		t.Run(fmt.Sprintf("%dShards%dKubeconfigs", size.shards, size.kubeconfigs), func(t *testing.T) {
			r := measureScale(ctx, t, e, ns, size.shards, size.kubeconfigs)
			e.Step("scale %s: %d XRs (1 RootShard, %d Shards, %d Kubeconfigs), %d Certificates issued %.1fs after apply, every XR Ready %.1fs after apply (rolled out by Kubernetes onto kwok fake nodes, which stand in for kubelets)",
				ns, r.xrs, size.shards, size.kubeconfigs, r.certificates, r.issued.Seconds(), r.ready.Seconds())
			e.Step("scale %s: %d RunFunction calls until Ready (%.1f per XR), %d after the certificates were issued (%.1f per XR)",
				ns, r.calls, float64(r.calls)/float64(r.xrs), r.callsAfterIssued, float64(r.callsAfterIssued)/float64(r.xrs))
			e.Step("scale %s: %s", ns, r.reconciles)
			e.Step("scale %s: watch events per XR until Ready: %s", ns, r.events)
			e.Step("scale %s: circuit breaker opened %s; XRs seen Responsive=False: %s", ns, r.breakerOpens, strings.Join(r.unresponsive, ", "))
			for _, x := range r.unresponsive {
				if strings.HasPrefix(x, "Kubeconfig/") {
					t.Errorf("%s was Responsive=False during creation: a Kubeconfig composes one Certificate, so its watch events came from a loop", x)
				}
			}
			if n := r.breakerOpens["kubeconfigs"]; n > 0 {
				t.Errorf("the circuit breaker of Kubeconfig XRs opened %d times during creation: a Kubeconfig composes one Certificate, so its watch events came from a loop", n)
			}
		})
	}
}

// scaleResult is what measureScale saw of one installation.
type scaleResult struct {
	xrs, certificates       int
	issued, ready           time.Duration
	calls, callsAfterIssued int
	reconciles              reconcileCounts
	breakerOpens            kindCounts
	unresponsive            []string
	events                  eventSummary
}

// measureScale applies an installation of the given size into ns and samples it every two
// seconds until every XR is Ready.
func measureScale(ctx context.Context, t *testing.T, e *env, ns string, shards, kubeconfigs int) scaleResult {
	t.Helper()
	watch, err := watchEvents(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.stop()
	opensBefore, err := crossplaneCounts(ctx, e, "circuit_breaker_opens_total")
	if err != nil {
		t.Fatal(err)
	}
	reconcilesBefore, err := crossplaneCounts(ctx, e, "controller_runtime_reconcile_total")
	if err != nil {
		t.Fatal(err)
	}
	callsBefore, err := e.FunctionCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := e.Apply(ctx, scaleManifests(ns, shards, kubeconfigs)); err != nil {
		t.Fatalf("apply the %s installation: %v", ns, err)
	}

	r := scaleResult{xrs: 1 + shards + kubeconfigs}
	type sample struct {
		at                time.Time
		calls             int
		issued, certTotal int
	}
	var samples []sample
	unresponsive := map[string]bool{}
	err = e.Eventually(ctx, 2*timeout+time.Duration(r.xrs)*3*time.Second, "every XR in "+ns+" Ready", func(ctx context.Context) (bool, string, error) {
		calls, err := e.FunctionCalls(ctx)
		if err != nil {
			return false, "", err
		}
		certs, err := certificates(ctx, e, ns)
		if err != nil {
			return false, "", err
		}
		issued, total := 0, len(certs)
		for _, c := range certs {
			if c.issued {
				issued++
			}
		}
		samples = append(samples, sample{at: time.Now(), calls: calls, issued: issued, certTotal: total})
		var list struct {
			Items []xr `json:"items"`
		}
		if err := e.GetJSON(ctx, &list, "rootshards.kcp.crossplane.io,shards.kcp.crossplane.io,kubeconfigs.kcp.crossplane.io", "-n", ns); err != nil {
			return false, "", err
		}
		ready := 0
		for _, x := range list.Items {
			c := x.conditions()
			if c["Ready"].Status == "True" {
				ready++
			}
			if c["Responsive"].Status == "False" {
				unresponsive[x.Kind+"/"+x.Metadata.Name] = true
			}
		}
		return ready == r.xrs, fmt.Sprintf("%d of %d XRs Ready, %d of %d Certificates issued", ready, r.xrs, issued, total), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.ready = time.Since(start)
	last := samples[len(samples)-1]
	r.certificates = last.certTotal
	r.calls = last.calls - callsBefore
	// The certificates count as issued at the first sample that saw all of them issued.
	for _, s := range samples {
		if s.certTotal == r.certificates && s.issued == s.certTotal {
			r.issued = s.at.Sub(start)
			r.callsAfterIssued = last.calls - s.calls
			break
		}
	}
	opensAfter, err := crossplaneCounts(ctx, e, "circuit_breaker_opens_total")
	if err != nil {
		t.Fatal(err)
	}
	r.breakerOpens = opensAfter.minus(opensBefore)
	reconcilesAfter, err := crossplaneCounts(ctx, e, "controller_runtime_reconcile_total")
	if err != nil {
		t.Fatal(err)
	}
	r.reconciles = reconcileCounts{reconciles: reconcilesAfter.minus(reconcilesBefore), calls: r.calls, xrs: map[string]int{"rootshards": 1, "shards": shards, "kubeconfigs": kubeconfigs}}
	r.unresponsive = keys(unresponsive)
	r.events = watch.summary()
	watch.stop()
	if err := os.WriteFile(filepath.Join(e.Dir, ns+"-xr-updates.log"), []byte(strings.Join(watch.updates(), "\n")+"\n"), 0o600); err != nil {
		t.Logf("cannot write the XRs' updates: %v", err)
	}
	return r
}

// scaleManifests is an installation of the given size: a RootShard issued by the
// kcp-selfsigned ClusterIssuer, its Shards, and Kubeconfig XRs spread over the RootShard and
// the Shards.
func scaleManifests(ns string, shards, kubeconfigs int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: kcp-selfsigned
spec:
  selfSigned: {}
---
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata:
  name: root
  namespace: %[1]s
spec:
  external:
    hostname: api.%[1]s.example.com
    port: 6443
  certificates:
    issuerRef:
      group: cert-manager.io
      kind: ClusterIssuer
      name: kcp-selfsigned
  cache: {}
  etcd:
    endpoints:
    - http://etcd.%[1]s.svc.cluster.local:2379
    prefix: /root
`, ns)
	for i := 1; i <= shards; i++ {
		fmt.Fprintf(&b, `---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Shard
metadata:
  name: shard-%[2]d
  namespace: %[1]s
spec:
  rootShard:
    ref:
      name: root
  etcd:
    endpoints:
    - http://etcd.%[1]s.svc.cluster.local:2379
    prefix: /shard-%[2]d
`, ns, i)
	}
	for i := 1; i <= kubeconfigs; i++ {
		// Every third Kubeconfig is for the root shard, the others for a shard in turn.
		target := "rootShardRef:\n      name: root"
		if i%3 != 0 {
			target = fmt.Sprintf("shardRef:\n      name: shard-%d", 1+i%shards)
		}
		fmt.Fprintf(&b, `---
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata:
  name: controller-%[2]d
  namespace: %[1]s
spec:
  target:
    %[3]s
  username: controller-%[2]d
  validity: 720h
  secretRef:
    name: controller-%[2]d-kubeconfig
`, ns, i, target)
	}
	return []byte(b.String())
}

// kindCounts are counts of Crossplane's per XR kind ("rootshards", "shards", ...).
type kindCounts map[string]int

func (c kindCounts) minus(before kindCounts) kindCounts {
	out := kindCounts{}
	for k, v := range c {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func (c kindCounts) String() string {
	if len(c) == 0 {
		return "never"
	}
	var parts []string
	for _, k := range keys(c) {
		parts = append(parts, fmt.Sprintf("%s %d times", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// crossplaneCounts sums one of Crossplane core's counters over the controllers of
// configuration-kcp's XR kinds (controller="composite/<plural>.kcp.crossplane.io").
func crossplaneCounts(ctx context.Context, e *env, metric string) (kindCounts, error) {
	lines, err := stack.Scrape(ctx, "http://"+e.CrossplaneMetrics+"/metrics", metric)
	if err != nil {
		return nil, err
	}
	out := kindCounts{}
	for _, l := range lines {
		_, rest, ok := strings.Cut(l, `controller="composite/`)
		if !ok || !strings.HasPrefix(l, metric+"{") {
			continue
		}
		kind, _, ok := strings.Cut(rest, ".kcp.crossplane.io")
		if !ok {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("metric line %q: %w", l, err)
		}
		out[kind] += int(v)
	}
	return out, nil
}

// reconcileCounts are Crossplane's reconciles per XR kind until Ready, against the XRs of
// each kind and the function calls they made.
type reconcileCounts struct {
	reconciles kindCounts
	calls      int
	xrs        map[string]int
}

func (r reconcileCounts) String() string {
	total := 0
	var parts []string
	for _, k := range keys(r.xrs) {
		total += r.reconciles[k]
		parts = append(parts, fmt.Sprintf("%s %.1f", k, float64(r.reconciles[k])/float64(max(r.xrs[k], 1))))
	}
	return fmt.Sprintf("%d reconciles by Crossplane, per XR: %s; %.1f RunFunction calls per reconcile (Crossplane calls again while the function's requirements change)",
		total, strings.Join(parts, ", "), float64(r.calls)/float64(max(total, 1)))
}

// watchedResources are the kinds whose watch events reach an XR's circuit breaker: the XRs
// themselves and what the function composes.
var watchedResources = []schema.GroupVersionResource{
	{Group: "kcp.crossplane.io", Version: "v1alpha1", Resource: "rootshards"},
	{Group: "kcp.crossplane.io", Version: "v1alpha1", Resource: "shards"},
	{Group: "kcp.crossplane.io", Version: "v1alpha1", Resource: "kubeconfigs"},
	{Group: "kcp.crossplane.io", Version: "v1alpha1", Resource: "frontproxies"},
	{Group: "kcp.crossplane.io", Version: "v1alpha1", Resource: "certificatesets"},
	{Group: "cert-manager.io", Version: "v1", Resource: "certificates"},
	{Group: "cert-manager.io", Version: "v1", Resource: "issuers"},
	{Version: "v1", Resource: "secrets"},
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "services"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
}

// eventWatch counts the watch events of watchedResources in a namespace by the XR they map
// to (the XR itself, or the XR named by a composed object's crossplane.io/composite label)
// and by resource.
type eventWatch struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	changes  []string                     // The XRs' own updates: what their status and references were.
	last     map[string]map[string]string // Each XR's fields at its last update, flattened.
	perXR    map[string]int
	perKind  map[string]map[string]int // XR kind -> resource -> events
	xrKindOf map[string]string
}

func watchEvents(ctx context.Context, e *env, ns string) (*eventWatch, error) {
	client, err := dynamicClient(e)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &eventWatch{cancel: cancel, perXR: map[string]int{}, perKind: map[string]map[string]int{}, xrKindOf: map[string]string{}, last: map[string]map[string]string{}}
	for _, gvr := range watchedResources {
		wi, err := client.Resource(gvr).Namespace(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			cancel()
			return nil, fmt.Errorf("watch %s in %s: %w", gvr.Resource, ns, err)
		}
		consumeEvents(ctx, &w.wg, wi, func(ev watch.Event) {
			if o, ok := ev.Object.(metav1.Object); ok {
				w.count(gvr, o)
			}
		})
	}
	return w, nil
}

func (w *eventWatch) count(gvr schema.GroupVersionResource, o metav1.Object) {
	// A composed object's events reach the XR that composes it (its crossplane.io/composite
	// label); an XR's own events reach it, and, when an XR composes it (a RootShard's
	// CertificateSet, an installation's RootShard), that XR too.
	var to []string
	if parent := o.GetLabels()["crossplane.io/composite"]; parent != "" && parent != o.GetName() {
		to = append(to, parent)
	}
	if gvr.Group == "kcp.crossplane.io" {
		to = append(to, o.GetName())
	}
	if len(to) == 0 {
		return // Not composed: no XR's circuit breaker sees it.
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if gvr.Group == "kcp.crossplane.io" {
		w.xrKindOf[o.GetName()] = gvr.Resource
		key := gvr.Resource + "/" + o.GetName()
		fields := flatten(o)
		w.changes = append(w.changes, time.Now().Format("15:04:05.000")+" "+key+" "+xrState(o)+"\n    changed: "+changedFields(w.last[key], fields))
		w.last[key] = fields
	}
	for _, xrName := range to {
		w.perXR[xrName]++
		if w.perKind[xrName] == nil {
			w.perKind[xrName] = map[string]int{}
		}
		w.perKind[xrName][gvr.Resource]++
	}
}

// xrState is the part of an XR its own updates change: resource references, conditions and
// the other status fields.
func xrState(o metav1.Object) string {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return ""
	}
	refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "crossplane", "resourceRefs")
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var cs []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		cs = append(cs, fmt.Sprintf("%v=%v(%v: %v)", m["type"], m["status"], m["reason"], m["message"]))
	}
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	delete(status, "conditions")
	rest, _ := json.Marshal(status)
	return fmt.Sprintf("gen %d, %d refs; %s; %s", u.GetGeneration(), len(refs), strings.Join(cs, "; "), rest)
}

// flatten maps each leaf of an object to its JSON value, by path; conditions by their type,
// so that a reordering is not a change. resourceVersion and managedFields are left out: every
// update changes them.
func flatten(o metav1.Object) map[string]string {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x)
			}
		case []any:
			for i, x := range v {
				key := strconv.Itoa(i)
				if m, ok := x.(map[string]any); ok && path == ".status.conditions" {
					key = fmt.Sprint(m["type"])
				}
				walk(path+"["+key+"]", x)
			}
		default:
			b, _ := json.Marshal(v)
			out[path] = string(b)
		}
	}
	c := u.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "metadata", "resourceVersion")
	unstructured.RemoveNestedField(c.Object, "metadata", "managedFields")
	walk("", c.Object)
	return out
}

// changedFields lists the paths whose value differs between two flattened updates, with the
// new value ("-" for a removed one), for reading what each write of an XR changed.
func changedFields(before, after map[string]string) string {
	if before == nil {
		return "(created, or first seen)"
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(after)) {
		if v := after[p]; before[p] != v {
			if len(v) > 120 {
				v = v[:120] + "..."
			}
			out = append(out, p+"="+v)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[p]; !ok {
			out = append(out, p+"=-")
		}
	}
	if len(out) == 0 {
		return "nothing but resourceVersion and managedFields"
	}
	return strings.Join(out, ", ")
}

// updates are the XRs' own updates so far, each with what the XR then held.
func (w *eventWatch) updates() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.changes)
}

func (w *eventWatch) stop() {
	w.cancel()
	w.wg.Wait()
}

// eventSummary is, per XR kind, the XR of that kind with the most events.
type eventSummary map[string]xrEvents

// xrEvents is the watch events one XR had, by the resource they came from.
type xrEvents struct {
	xr      string
	events  int
	sources map[string]int
}

func (s eventSummary) String() string {
	var parts []string
	for _, kind := range keys(s) {
		m := s[kind]
		var src []string
		for _, r := range keys(m.sources) {
			src = append(src, fmt.Sprintf("%s %d", r, m.sources[r]))
		}
		parts = append(parts, fmt.Sprintf("%s at most %d (%s: %s)", kind, m.events, m.xr, strings.Join(src, ", ")))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func (w *eventWatch) summary() eventSummary {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := eventSummary{}
	for name, n := range w.perXR {
		kind := w.xrKindOf[name]
		if n > out[kind].events {
			src := map[string]int{}
			for r, c := range w.perKind[name] {
				src[r] = c
			}
			out[kind] = xrEvents{xr: name, events: n, sources: src}
		}
	}
	return out
}
