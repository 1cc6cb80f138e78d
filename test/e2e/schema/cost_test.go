package schema

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
)

// Environment variables of TestCRDCost (make crd-cost sets the first).
const (
	// EnvCRDCost runs TestCRDCost, a measurement rather than a check: make e2e-schema skips it.
	envCRDCost = "E2E_CRD_COST"
	// envKCPOperatorCRDs is a directory of kcp-operator's CRDs (config/crd/bases of its
	// repository at the release compared against); when set, they are measured on a control
	// plane of their own beside this package's.
	envKCPOperatorCRDs = "KCP_OPERATOR_CRDS"
)

// costCRD is one CRD to measure.
type costCRD struct {
	crd
	// Source is where it comes from (an XRD, or a file of kcp-operator's).
	Source string
	JSON   []byte
}

// crdCost is what one CRD costs.
type crdCost struct {
	Name, Kind, Source string
	// JSONBytes is the CRD as sent; SchemaBytes its openAPIV3Schema (every version);
	// StructuralBytes the structural schema the API server derives from it (descriptions
	// included, as it keeps them for OpenAPI); NoDescBytes that structural schema without
	// descriptions, what validation and pruning walk; Nodes the schema's nodes (properties,
	// items and additionalProperties at every depth).
	JSONBytes, SchemaBytes, StructuralBytes, NoDescBytes, Nodes int
	// StoredBytes is the CRD as the API server returns it (status and managedFields
	// included), ManagedFieldsBytes its managedFields.
	StoredBytes, ManagedFieldsBytes int
	// Create is the POST, Established from the POST to the Established condition, Served from
	// the POST to the first list of the new resource answered (the API server builds the
	// resource's validators, CEL programs and field managers on that first request), Update a
	// PUT of the stored CRD unchanged (what Crossplane's XRD reconciler sends on every
	// reconcile).
	Create, Established, Served, Update time.Duration
	// HeapDelta is the kube-apiserver's live heap (after a forced garbage collection)
	// crdSettle after the CRD was served and updated, minus the same before it was created, in
	// KiB.
	HeapDelta int64
}

// setCost is what a set of CRDs costs together.
type setCost struct {
	Name string
	CRDs []crdCost
	// Before and After are samples taken after the control plane had been idle for
	// costSettle, before the first CRD and after the last CRD and the OpenAPI documents.
	Before, After sample
	// OpenAPIV2Before and OpenAPIV2 are the sizes of /openapi/v2 before and after.
	OpenAPIV2Before, OpenAPIV2 int
	// OpenAPIV2Ready is from the last CRD served to /openapi/v2 holding every kind;
	// OpenAPIV2Fetch the median of three fetches after.
	OpenAPIV2Ready, OpenAPIV2Fetch time.Duration
	// OpenAPIV3 is per group-version: the document's size, from the last CRD served to the
	// document holding every kind, and the median of three fetches after.
	OpenAPIV3 []openAPIV3Cost
}

type openAPIV3Cost struct {
	GroupVersion string
	Bytes        int
	Ready, Fetch time.Duration
}

// sample is the state of the control plane at one moment.
type sample struct {
	// APIServerRSS and APIServerHWM are kube-apiserver's VmRSS and VmHWM (peak), APIServerHeap
	// its live heap after a forced garbage collection, EtcdRSS etcd's VmRSS, in KiB.
	APIServerRSS, APIServerHWM, APIServerHeap, EtcdRSS int64
	// Load is /proc/loadavg's first three fields: the machine's load, which the timings
	// depend on.
	Load string
}

// costSettle is how long the control plane idles before RSS is sampled, crdSettle how long
// after each CRD before its heap is.
const (
	costSettle = 15 * time.Second
	crdSettle  = 3 * time.Second
)

// TestCRDCost measures what the CRDs of this package cost the API server: each CRD as
// Crossplane creates it from its XRD (the claim's included), and, when KCP_OPERATOR_CRDS
// names a directory of kcp-operator's CRDs, those on a control plane of their own for
// comparison. It prints a table and writes it to _output/e2e/crd-cost.md. Run it with
// `make crd-cost` (docs/performance.md, "What the CRDs cost the API server").
func TestCRDCost(t *testing.T) {
	if os.Getenv(envCRDCost) == "" {
		t.Skipf("a measurement, not a check: run it with make crd-cost (%s=1)", envCRDCost)
	}
	crossplane := os.Getenv("CROSSPLANE")
	if crossplane == "" {
		t.Fatal("CROSSPLANE is not set: run this test through make (make crd-cost), which builds bin/crossplane and exports it")
	}
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ours, err := ourCRDs(t.Context(), crossplane, root, filepath.Join(cluster.OutputDir(t), "crds"))
	if err != nil {
		t.Fatal(err)
	}
	sets := []struct {
		name string
		crds []costCRD
	}{{"configuration-kcp", ours}}
	if dir := os.Getenv(envKCPOperatorCRDs); dir != "" {
		theirs, err := crdsIn(dir)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, struct {
			name string
			crds []costCRD
		}{"kcp-operator", theirs})
	} else {
		t.Logf("%s is not set: measuring this package's CRDs alone", envKCPOperatorCRDs)
	}

	var results []setCost
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			results = append(results, measureSet(t, s.name, s.crds))
		})
	}
	table := costTable(results)
	t.Log("\n" + table)
	out := filepath.Join(root, "_output", "e2e", "crd-cost.md")
	if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("table written to %s", out)
}

// ourCRDs converts every apis/*/definition.yaml into the CRDs Crossplane creates for it.
func ourCRDs(ctx context.Context, crossplane, root, out string) ([]costCRD, error) {
	defs, err := filepath.Glob(filepath.Join(root, "apis", "*", "definition.yaml"))
	if err != nil || len(defs) == 0 {
		return nil, fmt.Errorf("no apis/*/definition.yaml found under %s: %w", root, err)
	}
	var crds []costCRD
	for _, def := range defs {
		name := filepath.Base(filepath.Dir(def))
		converted, err := convertXRD(ctx, crossplane, def, filepath.Join(out, name))
		if err != nil {
			return nil, err
		}
		for _, c := range converted {
			crds = append(crds, costCRD{crd: c.crd, Source: "apis/" + name, JSON: c.JSON})
		}
	}
	return crds, nil
}

// crdsIn reads every CustomResourceDefinition of the YAML files in dir.
func crdsIn(dir string) ([]costCRD, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s=%s holds no *.yaml: %w", envKCPOperatorCRDs, dir, err)
	}
	var crds []costCRD
	for _, f := range files {
		docs, err := readDocs(f)
		if err != nil {
			return nil, err
		}
		for _, doc := range docs {
			var c costCRD
			if err := json.Unmarshal(doc, &c.crd); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			var tm struct{ Kind string }
			if err := json.Unmarshal(doc, &tm); err != nil || tm.Kind != "CustomResourceDefinition" {
				continue
			}
			c.Source, c.JSON = filepath.Base(f), doc
			crds = append(crds, c)
		}
	}
	return crds, nil
}

// measureSet starts a control plane of its own, creates the CRDs one after the other and
// measures each, then the OpenAPI documents and the API server's memory.
func measureSet(t *testing.T, name string, crds []costCRD) setCost {
	o := cluster.FromEnv(t)
	o.APIServerArgs = []string{"--profiling=true"} // for liveHeap
	c := cluster.Start(t, o)
	// No client timeout: a slow answer is a figure, not a failure (each step has its own).
	client := &http.Client{Transport: c.HTTP.Transport}
	api, etcd := c.Process("kube-apiserver"), c.Process("etcd")
	res := setCost{Name: name}

	time.Sleep(costSettle)
	res.Before = takeSample(t, client, c.URL, api.PID(), etcd.PID())
	v2, _, err := fetch(t.Context(), client, c.URL+"/openapi/v2")
	if err != nil {
		t.Fatal(err)
	}
	res.OpenAPIV2Before = len(v2)

	kinds := map[string][]string{} // group-version -> kinds
	heap := res.Before.APIServerHeap
	for _, crd := range crds {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		cost, err := measureCRD(ctx, c, client, crd)
		if err == nil {
			// What the API server does once a CRD changes (its OpenAPI, discovery) goes on
			// after it is served: let it settle before weighing the heap.
			time.Sleep(crdSettle)
			var now int64
			now, err = liveHeap(ctx, client, c.URL)
			cost.HeapDelta, heap = now-heap, now
		}
		cancel()
		if err != nil {
			t.Fatalf("%s (%s): %v", crd.Metadata.Name, crd.Source, err)
		}
		t.Logf("%s: create %s, Established %s, served %s, no-op update %s, heap %+.1f MiB",
			cost.Name, ms(cost.Create), ms(cost.Established), ms(cost.Served), ms(cost.Update), float64(cost.HeapDelta)/1024)
		res.CRDs = append(res.CRDs, cost)
		for _, v := range servedVersions(crd.JSON) {
			gv := crd.Spec.Group + "/" + v
			kinds[gv] = append(kinds[gv], crd.Spec.Names.Kind)
		}
	}
	last := time.Now()

	// OpenAPI: the API server publishes a CRD's schema asynchronously; wait until every kind
	// is in the documents, then time fetches of the complete documents.
	for _, gv := range slices.Sorted(maps.Keys(kinds)) {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		doc, err := waitOpenAPI(ctx, client, c.URL+"/openapi/v3/apis/"+gv, "components", kinds[gv])
		cancel()
		if err != nil {
			t.Fatalf("/openapi/v3/apis/%s: %v", gv, err)
		}
		res.OpenAPIV3 = append(res.OpenAPIV3, openAPIV3Cost{
			GroupVersion: gv, Bytes: len(doc), Ready: time.Since(last),
			Fetch: medianFetch(t, client, c.URL+"/openapi/v3/apis/"+gv),
		})
	}
	var all []string
	for _, k := range kinds {
		all = append(all, k...)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	v2, err = waitOpenAPI(ctx, client, c.URL+"/openapi/v2", "definitions", all)
	cancel()
	if err != nil {
		t.Fatalf("/openapi/v2: %v", err)
	}
	res.OpenAPIV2, res.OpenAPIV2Ready = len(v2), time.Since(last)
	res.OpenAPIV2Fetch = medianFetch(t, client, c.URL+"/openapi/v2")

	time.Sleep(costSettle)
	res.After = takeSample(t, client, c.URL, api.PID(), etcd.PID())
	return res
}

// measureCRD creates one CRD and measures it.
func measureCRD(ctx context.Context, c *cluster.Cluster, client *http.Client, crd costCRD) (crdCost, error) {
	cost := crdCost{Name: crd.Metadata.Name, Kind: crd.Spec.Names.Kind, Source: crd.Source, JSONBytes: len(crd.JSON)}
	if err := schemaSizes(crd.JSON, &cost); err != nil {
		return cost, err
	}
	crdsURL := c.URL + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	start := time.Now()
	created, err := do(ctx, client, http.MethodPost, crdsURL, crd.JSON, http.StatusCreated)
	if err != nil {
		return cost, fmt.Errorf("create: %w", err)
	}
	cost.Create = time.Since(start)
	var meta struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(created, &meta); err != nil {
		return cost, err
	}
	if err := watchEstablished(ctx, client, crdsURL, crd.Metadata.Name, meta.Metadata.ResourceVersion); err != nil {
		return cost, err
	}
	cost.Established = time.Since(start)

	// The first request for the resource makes the API server build what serves it.
	list := fmt.Sprintf("%s/apis/%s/%s/%s?limit=1", c.URL, crd.Spec.Group, servedVersions(crd.JSON)[0], crd.Spec.Names.Plural)
	for {
		if _, err := do(ctx, client, http.MethodGet, list, nil, http.StatusOK); err == nil {
			break
		} else if ctx.Err() != nil {
			return cost, fmt.Errorf("never served: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cost.Served = time.Since(start)

	stored, err := do(ctx, client, http.MethodGet, crdsURL+"/"+crd.Metadata.Name, nil, http.StatusOK)
	if err != nil {
		return cost, err
	}
	cost.StoredBytes = len(stored)
	var mf struct {
		Metadata struct {
			ManagedFields json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(stored, &mf); err != nil {
		return cost, err
	}
	cost.ManagedFieldsBytes = len(mf.Metadata.ManagedFields)
	start = time.Now()
	if _, err := do(ctx, client, http.MethodPut, crdsURL+"/"+crd.Metadata.Name, stored, http.StatusOK); err != nil {
		return cost, fmt.Errorf("no-op update: %w", err)
	}
	cost.Update = time.Since(start)
	return cost, nil
}

// schemaSizes sets the schema figures of cost from a CRD's JSON, deriving the structural
// schema as the API server does.
func schemaSizes(b []byte, cost *crdCost) error {
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(b, &v1); err != nil {
		return err
	}
	for _, v := range v1.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return err
		}
		cost.SchemaBytes += len(raw)
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return err
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return fmt.Errorf("version %s: not structural: %w", v.Name, err)
		}
		full, err := json.Marshal(s.ToKubeOpenAPI())
		if err != nil {
			return err
		}
		cost.StructuralBytes += len(full)
		bare, err := json.Marshal(withoutDescription(s.DeepCopy()).ToKubeOpenAPI())
		if err != nil {
			return err
		}
		cost.NoDescBytes += len(bare)
		cost.Nodes += nodes(s)
	}
	return nil
}

// nodes counts a structural schema's nodes.
func nodes(s *structuralschema.Structural) int {
	if s == nil {
		return 0
	}
	n := 1 + nodes(s.Items)
	for _, p := range s.Properties {
		n += nodes(&p)
	}
	if s.AdditionalProperties != nil {
		n += nodes(s.AdditionalProperties.Structural)
	}
	return n
}

// withoutDescription clears the descriptions of s, at every depth, and returns it.
func withoutDescription(s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	s.Description = ""
	withoutDescription(s.Items)
	for k, p := range s.Properties {
		s.Properties[k] = *withoutDescription(&p)
	}
	if s.AdditionalProperties != nil {
		withoutDescription(s.AdditionalProperties.Structural)
	}
	return s
}

// servedVersions lists the versions a CRD serves.
func servedVersions(b []byte) []string {
	var c struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Served bool   `json:"served"`
			} `json:"versions"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(b, &c)
	var out []string
	for _, v := range c.Spec.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	return out
}

// watchEstablished watches one CRD from resourceVersion rv until it is Established.
func watchEstablished(ctx context.Context, client *http.Client, crdsURL, name, rv string) error {
	url := fmt.Sprintf("%s?watch=true&fieldSelector=metadata.name%%3D%s&resourceVersion=%s", crdsURL, name, rv)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close() //nolint:errcheck // Read-only.
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("watch: HTTP %d: %s", resp.StatusCode, b)
	}
	d := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Status struct {
					Conditions []struct{ Type, Status string } `json:"conditions"`
				} `json:"status"`
			} `json:"object"`
		}
		if err := d.Decode(&ev); err != nil {
			return fmt.Errorf("watching %s until Established: %w", name, err)
		}
		for _, c := range ev.Object.Status.Conditions {
			if c.Type == "Established" && c.Status == "True" {
				return nil
			}
		}
	}
}

// waitOpenAPI fetches an OpenAPI document until its schemas (under section: definitions for
// v2, components.schemas for v3) name every kind, and returns it.
func waitOpenAPI(ctx context.Context, client *http.Client, url, section string, kinds []string) ([]byte, error) {
	var missing []string
	for {
		doc, _, err := fetch(ctx, client, url)
		if err == nil {
			var names map[string]json.RawMessage
			if section == "components" {
				var d struct {
					Components struct {
						Schemas map[string]json.RawMessage `json:"schemas"`
					} `json:"components"`
				}
				err = json.Unmarshal(doc, &d)
				names = d.Components.Schemas
			} else {
				var d struct {
					Definitions map[string]json.RawMessage `json:"definitions"`
				}
				err = json.Unmarshal(doc, &d)
				names = d.Definitions
			}
			if err == nil {
				missing = missing[:0]
				for _, k := range kinds {
					if !slices.ContainsFunc(slices.Collect(maps.Keys(names)), func(n string) bool { return strings.HasSuffix(n, "."+k) }) {
						missing = append(missing, k)
					}
				}
				if len(missing) == 0 {
					return doc, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("kinds %v still missing: %w (last error: %w)", missing, ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

// medianFetch is the median time of three fetches of url.
func medianFetch(t *testing.T, client *http.Client, url string) time.Duration {
	t.Helper()
	var ds []time.Duration
	for range 3 {
		_, d, err := fetch(t.Context(), client, url)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[1]
}

// fetch GETs url as JSON and returns the body and how long it took.
func fetch(ctx context.Context, client *http.Client, url string) ([]byte, time.Duration, error) {
	start := time.Now()
	b, err := do(ctx, client, http.MethodGet, url, nil, http.StatusOK)
	return b, time.Since(start), err
}

// do sends a JSON request and returns the body of a response with status want.
func do(ctx context.Context, client *http.Client, method, url string, body []byte, want int) ([]byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close() //nolint:errcheck // Read-only.
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return b, fmt.Errorf("%s %s: HTTP %d: %.300s", method, url, resp.StatusCode, b)
	}
	return b, nil
}

// takeSample reads the processes' memory and the machine's load.
func takeSample(t *testing.T, client *http.Client, url string, apiPID, etcdPID int) sample {
	t.Helper()
	heap, err := liveHeap(t.Context(), client, url)
	if err != nil {
		t.Fatal(err)
	}
	api := procStatus(apiPID)
	load, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	return sample{
		APIServerRSS: api["VmRSS"], APIServerHWM: api["VmHWM"], APIServerHeap: heap, EtcdRSS: procStatus(etcdPID)["VmRSS"],
		Load: strings.Join(strings.Fields(string(load))[:3], " "),
	}
}

// liveHeap forces a garbage collection in the kube-apiserver at url (its heap profile with
// gc=1; it runs with --profiling=true) and returns its heap then (go_memstats_heap_alloc_bytes),
// in KiB. Unlike RSS, which follows the collector's pace, it is what the server holds.
func liveHeap(ctx context.Context, client *http.Client, url string) (int64, error) {
	if _, err := do(ctx, client, http.MethodGet, url+"/debug/pprof/heap?gc=1", nil, http.StatusOK); err != nil {
		return 0, err
	}
	metrics, err := do(ctx, client, http.MethodGet, url+"/metrics", nil, http.StatusOK)
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(metrics)) {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_alloc_bytes "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f) / 1024, err
		}
	}
	return 0, fmt.Errorf("%s/metrics has no go_memstats_heap_alloc_bytes", url)
}

// procStatus reads the kB fields of /proc/<pid>/status (VmRSS, VmHWM, ...).
func procStatus(pid int) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		f := strings.Fields(v)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			out[k] = n
		}
	}
	return out
}

// costTable renders the results as Markdown.
func costTable(sets []setCost) string {
	var b strings.Builder
	fmt.Fprintln(&b, "| set | CRD | source | JSON | schema | structural | without descriptions | nodes | stored | managedFields | create | Established | served | no-op update | heap Δ |")
	fmt.Fprintln(&b, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, s := range sets {
		var sum crdCost
		for _, c := range s.CRDs {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n",
				s.Name, c.Kind, c.Source, kb(c.JSONBytes), kb(c.SchemaBytes), kb(c.StructuralBytes), kb(c.NoDescBytes), c.Nodes,
				kb(c.StoredBytes), kb(c.ManagedFieldsBytes), ms(c.Create), ms(c.Established), ms(c.Served), ms(c.Update), mib(c.HeapDelta))
			sum.JSONBytes += c.JSONBytes
			sum.SchemaBytes += c.SchemaBytes
			sum.StructuralBytes += c.StructuralBytes
			sum.NoDescBytes += c.NoDescBytes
			sum.Nodes += c.Nodes
			sum.StoredBytes += c.StoredBytes
			sum.ManagedFieldsBytes += c.ManagedFieldsBytes
			sum.Create += c.Create
			sum.Established += c.Established
			sum.Served += c.Served
			sum.Update += c.Update
			sum.HeapDelta += c.HeapDelta
		}
		fmt.Fprintf(&b, "| **%s** | **%d CRDs** | | **%s** | **%s** | **%s** | **%s** | **%d** | **%s** | **%s** | **%s** | **%s** | **%s** | **%s** | **%s** |\n",
			s.Name, len(s.CRDs), kb(sum.JSONBytes), kb(sum.SchemaBytes), kb(sum.StructuralBytes), kb(sum.NoDescBytes), sum.Nodes,
			kb(sum.StoredBytes), kb(sum.ManagedFieldsBytes), ms(sum.Create), ms(sum.Established), ms(sum.Served), ms(sum.Update),
			mib(sum.HeapDelta))
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| set | kube-apiserver RSS before → after (peak) | kube-apiserver heap before → after | etcd RSS before → after | /openapi/v2 before → after | /openapi/v2 complete after, fetch | /openapi/v3 group-version: size, complete after, fetch | load before; after |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	for _, s := range sets {
		var v3 []string
		for _, o := range s.OpenAPIV3 {
			v3 = append(v3, fmt.Sprintf("%s: %s, %s, %s", o.GroupVersion, kb(o.Bytes), ms(o.Ready), ms(o.Fetch)))
		}
		fmt.Fprintf(&b, "| %s | %s → %s (%s) | %s → %s | %s → %s | %s → %s | %s, %s | %s | %s; %s |\n",
			s.Name, mib(s.Before.APIServerRSS), mib(s.After.APIServerRSS), mib(s.After.APIServerHWM),
			mib(s.Before.APIServerHeap), mib(s.After.APIServerHeap),
			mib(s.Before.EtcdRSS), mib(s.After.EtcdRSS), kb(s.OpenAPIV2Before), kb(s.OpenAPIV2),
			ms(s.OpenAPIV2Ready), ms(s.OpenAPIV2Fetch), strings.Join(v3, "; "), s.Before.Load, s.After.Load)
	}
	return b.String()
}

// kb formats bytes as KB (1,000 bytes, as the issue counts them).
func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }

// mib formats KiB as MiB.
func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
