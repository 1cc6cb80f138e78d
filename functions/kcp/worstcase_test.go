package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/tenant"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// The worst case the sizing of docs/performance.md must hold: every Tenant of the
// installation's namespace at its limits, each team's XRs as large as the sizing lets a team
// write them, and every object as Crossplane sends it once everything converged: composed
// XRs with their status, provider-kubernetes Objects with the manifest they observed in kcp,
// full-size certificates and keys. Each shared XR's RunFunctionRequest must stay under half
// of the 4 MiB the function and Crossplane receive.

// worstRun runs the function as Crossplane would.
func worstRun(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	f := newFunction(logging.NewNopLogger(), breaker{})
	return f.RunFunction(context.Background(), req)
}

// pem is a PEM block of the size of an RSA 4096 key or certificate, the largest
// cert-manager issues for kcp.
func pemOf(kind string, size int) string {
	body := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", size*3/4)))
	var lines []string
	for len(body) > 64 {
		lines = append(lines, body[:64])
		body = body[64:]
	}
	lines = append(lines, body)
	return "-----BEGIN " + kind + "-----\n" + strings.Join(lines, "\n") + "\n-----END " + kind + "-----\n"
}

// tlsSecret is a cert-manager Secret with full-size certificate, key and CA.
func tlsSecret(name string) map[string]any {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": "kcp", "annotations": map[string]any{"cert-manager.io/certificate-name": name}},
		"data":     map[string]any{"tls.crt": enc(pemOf("CERTIFICATE", 2000)), "tls.key": enc(pemOf("RSA PRIVATE KEY", 3300)), "ca.crt": enc(pemOf("CERTIFICATE", 2000))}}
}

// worstInstallation is the shared installation: RootShard root, FrontProxy fp, and the
// Secrets the RootShard and the Kubeconfigs read, at full size.
func worstInstallation() []map[string]any {
	rs := fnrequest.StructJSON(basicXR).AsMap()
	rs["spec"].(map[string]any)["homeWorkspaces"] = map[string]any{"enabled": false} // shared: no home workspaces
	out := []map[string]any{rs, fnrequest.StructJSON(benchFrontProxyXR).AsMap()}
	for _, n := range []string{"root-ca", "root-server-ca", "root-client-ca", "root-requestheader-client-ca", "root-service-account-ca", "root-front-proxy-client-ca", "root-kcp-operator", "fp-ca"} {
		out = append(out, tlsSecret(n))
	}
	return out
}

// padded returns s padded with suffix characters to n bytes.
func padded(prefix string, n int) string {
	if len(prefix) >= n {
		return prefix[:n]
	}
	return prefix + strings.Repeat("x", n-len(prefix))
}

// hostileTeam is what team writes at the most the sizing allows: MaxTeamXRs Kubeconfigs and
// MaxTeamXRs Workspaces, each of TeamXRBytes, Kubeconfigs binding as many long roles as
// fit, Workspaces binding long groups.
func hostileTeam(team string) []map[string]any {
	var out []map[string]any
	for i := range sharing.MaxTeamXRs {
		var roles []any
		for r := range 14 {
			roles = append(roles, padded(fmt.Sprintf("r%02d-", r), 200))
		}
		out = append(out, map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig",
			"metadata": map[string]any{"name": fmt.Sprintf("k%02d", i), "namespace": team, "uid": fmt.Sprintf("%s-k%02d", team, i), "creationTimestamp": fmt.Sprintf("2026-01-01T00:%02d:00Z", i)},
			"spec": map[string]any{"target": map[string]any{"frontProxyRef": map[string]any{"name": "fp", "namespace": "kcp"}},
				"username": padded("tenant:"+team+":u", 64), "groups": []any{padded("tenant:"+team+":g1-", 120), padded("tenant:"+team+":g2-", 120)}, "validity": "720h",
				"secretRef": map[string]any{"name": fmt.Sprintf("k%02d", i)}, "authorization": map[string]any{"clusterRoleBindings": map[string]any{"clusterRoles": roles}}}})
		var groups []any
		for g := range 12 {
			groups = append(groups, padded(fmt.Sprintf("%s:w%02d-", team, g), 200))
		}
		out = append(out, map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Workspace",
			"metadata": map[string]any{"name": fmt.Sprintf("w%02d", i), "namespace": team, "uid": fmt.Sprintf("%s-w%02d", team, i), "creationTimestamp": fmt.Sprintf("2026-01-01T01:%02d:00Z", i)},
			"spec": map[string]any{"rootShard": map[string]any{"ref": map[string]any{"name": "root", "namespace": "kcp"}},
				"clusterRoleBindings": []any{map[string]any{"clusterRole": padded("edit-", 200), "groups": groups}}}})
	}
	for _, o := range out {
		fillTo(o)
	}
	return out
}

// fillTo gives o an annotation that makes its metadata and spec weigh TeamXRBytes, and a
// status of TeamStatusBytes: the most a team's XR may weigh.
func fillTo(o map[string]any) {
	const key = "example.com/filler"
	md := o["metadata"].(map[string]any)
	md["annotations"] = map[string]any{key: ""}
	md["annotations"] = map[string]any{key: strings.Repeat("f", sharing.TeamXRBytes-sharing.Weight(o))}
	cond := map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "lastTransitionTime": "2026-01-01T00:00:00Z", "message": ""}
	o["status"] = map[string]any{"conditions": []any{cond}}
	status, _ := json.Marshal(o["status"])
	cond["message"] = strings.Repeat("m", sharing.TeamStatusBytes-len(status))
}

// teamRequests are the TenantRequests the team's XRs compose, as Crossplane sends them back
// to the Tenant that reads them: what a team's XRs add to their Tenant's request.
func teamRequests(t testing.TB, xrs []map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, xr := range xrs {
		b, _ := json.Marshal(xr)
		rsp, err := worstRun(fnrequest.New(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		rq := rsp.GetDesired().GetResources()[sharing.RequestKey].GetResource().AsMap()
		if rq == nil {
			t.Fatalf("%s %v composes no TenantRequest", xr["kind"], xr["metadata"])
		}
		md := xr["metadata"].(map[string]any)
		o := asObservedXR(rq, "", map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-01-01T00:00:00Z"},
			map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-01-01T00:00:00Z"},
		}})
		om := o["metadata"].(map[string]any)
		om["creationTimestamp"] = md["creationTimestamp"]
		om["ownerReferences"] = []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": xr["kind"], "name": md["name"], "uid": md["uid"], "controller": true, "blockOwnerDeletion": true}}
		out = append(out, o)
	}
	return out
}

// quotaOf is the ResourceQuota the docs ask for, at the largest counts.
func quotaOf(team string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": tenant.QuotaName, "namespace": team},
		"spec": map[string]any{"hard": map[string]any{"count/kubeconfigs.kcp.crossplane.io": fmt.Sprint(sharing.MaxTeamXRs), "count/workspaces.kcp.crossplane.io": fmt.Sprint(sharing.MaxTeamXRs)}}}
}

// worstTenant is Tenant team at limits.
func worstTenant(team string, i int, limits map[string]any) map[string]any {
	var crbs []any
	for r := range 4 {
		crbs = append(crbs, map[string]any{"clusterRole": fmt.Sprintf("role-%d", r), "groups": []any{padded(team+":admins-", 100)}})
	}
	return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant",
		"metadata": map[string]any{"name": team, "namespace": "kcp", "uid": team + "-uid", "creationTimestamp": fmt.Sprintf("2026-01-01T00:00:%02dZ", i)},
		"spec":     map[string]any{"frontProxy": map[string]any{"ref": map[string]any{"name": "fp"}}, "clusterRoleBindings": crbs, "limits": limits}}
}

// jsonSize is the JSON size of an object.
func jsonSize(o map[string]any) int {
	b, _ := json.Marshal(o)
	return len(b)
}

// asObservedXR is a composed XR of Tenant owner as Crossplane sends it back: with the metadata the API server
// and Crossplane write, and the status its own composition reported.
func asObservedXR(o map[string]any, owner string, status map[string]any) map[string]any {
	b, _ := json.Marshal(o)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	md := out["metadata"].(map[string]any)
	md["uid"], md["resourceVersion"], md["generation"], md["creationTimestamp"] = "00000000-0000-0000-0000-000000000000", "123456789", 1, "2026-01-01T00:00:00Z"
	md["ownerReferences"] = []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant", "name": owner, "uid": owner + "-uid", "controller": true, "blockOwnerDeletion": true}}
	md["managedFields"] = appliedFields(out["spec"])
	md["finalizers"] = []any{"composite.apiextensions.crossplane.io"}
	out["status"] = status
	return out
}

// appliedFields is what server-side apply records of spec: every key, and every item of a
// list as a set.
func appliedFields(spec any) []any {
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			m := map[string]any{}
			for k, e := range t {
				m["f:"+k] = walk(e)
			}
			return m
		case []any:
			m := map[string]any{}
			for _, e := range t {
				b, _ := json.Marshal(e)
				m["v:"+string(b)] = map[string]any{}
			}
			return m
		}
		return map[string]any{}
	}
	return []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "fieldsType": "FieldsV1", "manager": "apiextensions.crossplane.io/composed/0123456789abcdef", "operation": "Apply", "time": "2026-01-01T00:00:00Z",
		"fieldsV1": map[string]any{"f:spec": walk(spec)}}}
}

// asObservedObject is a provider-kubernetes Object as it reports what it observed in kcp: the
// manifest with kcp's metadata and provider-kubernetes' last-applied annotation, and its
// conditions.
func asObservedObject(o map[string]any) map[string]any {
	b, _ := json.Marshal(o)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	manifest := out["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any)
	mb, _ := json.Marshal(manifest)
	var there map[string]any
	_ = json.Unmarshal(mb, &there)
	md, _ := there["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		there["metadata"] = md
	}
	md["uid"], md["resourceVersion"], md["creationTimestamp"] = "00000000-0000-0000-0000-000000000000", "123456789", "2026-01-01T00:00:00Z"
	md["annotations"] = map[string]any{"kubectl.kubernetes.io/last-applied-configuration": string(mb), "kcp.io/cluster": "1a2b3c4d5e6f7g8h"}
	omd := out["metadata"].(map[string]any)
	omd["uid"], omd["resourceVersion"], omd["generation"], omd["creationTimestamp"] = "00000000-0000-0000-0000-000000000000", "123456789", 1, "2026-01-01T00:00:00Z"
	omd["ownerReferences"] = []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig", "name": "owner", "uid": "00000000-0000-0000-0000-000000000000", "controller": true, "blockOwnerDeletion": true}}
	omd["finalizers"] = []any{"finalizer.managedresource.crossplane.io"}
	omd["managedFields"] = appliedFields(out["spec"])
	out["status"] = map[string]any{"atProvider": map[string]any{"manifest": there}, "conditions": []any{
		map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-01-01T00:00:00Z"},
		map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-01-01T00:00:00Z"},
	}}
	return out
}

// convergedWorst runs xr to convergence against world, every requirement answered.
func convergedWorst(t *testing.T, xr map[string]any, world []map[string]any) (*fnv1.RunFunctionRequest, *fnv1.RunFunctionResponse) {
	t.Helper()
	b, _ := json.Marshal(xr)
	req, err := fnrequest.ConvergedAnswered(worstRun, string(b), world...)
	if err != nil {
		t.Fatal(err)
	}
	rsp, err := worstRun(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("%s %v: %s", xr["kind"], xr["metadata"], r.GetMessage())
		}
	}
	// fnrequest offers every object of world under a key of its own; Crossplane sends only
	// what the function required.
	for key := range req.RequiredResources {
		if _, ok := rsp.GetRequirements().GetResources()[key]; !ok {
			delete(req.RequiredResources, key)
		}
	}
	return req, rsp
}

// desiredResources lists the desired composed resources of rsp.
func desiredResources(rsp *fnv1.RunFunctionResponse) []map[string]any {
	var out []map[string]any
	for _, r := range rsp.GetDesired().GetResources() {
		out = append(out, r.GetResource().AsMap())
	}
	return out
}

// teamGrants is, for one team at limits, what its Tenant's grants put in namespace kcp as
// the shared XRs read them: the composed XRs with status, and their Objects as observed.
type teamGrants struct {
	tenant  map[string]any
	xrs     []map[string]any
	objects []map[string]any
	// largest is the largest request of a composed XR.
	largest int
}

// grantTeam converges Tenant team (the i-th) and every XR it composes.
func grantTeam(t *testing.T, team string, i int, limits map[string]any, others []map[string]any) teamGrants {
	t.Helper()
	g := teamGrants{tenant: worstTenant(team, i, limits)}
	world := append(append(worstInstallation(), quotaOf(team)), teamRequests(t, hostileTeam(team))...)
	world = append(append(world, g.tenant), others...)
	_, rsp := convergedWorst(t, g.tenant, world)
	g.tenant["status"] = rsp.GetDesired().GetComposite().GetResource().AsMap()["status"]
	// A hostile team whose XRs were all refused (not its identities, say) would make every
	// figure below an understatement: the team sits at its budget only if it was granted.
	granted := map[string]int{}
	members, _ := g.tenant["status"].(map[string]any)["members"].([]any)
	for _, m := range members {
		if m := m.(map[string]any); m["granted"] == true {
			granted[m["kind"].(string)]++
		}
	}
	if granted["Kubeconfig"] == 0 {
		t.Fatalf("Tenant %s granted %v of the hostile team's XRs: the worst case must be granted, or its figures say nothing", team, granted)
	}
	for _, x := range desiredResources(rsp) {
		// Crossplane created it: it has a UID, which its bindings are named after.
		x["metadata"].(map[string]any)["uid"] = fmt.Sprintf("%s-%s-0000-0000-0000-000000000000", team, x["metadata"].(map[string]any)["name"])
		req, xrsp := convergedWorst(t, x, worstInstallation())
		g.largest = max(g.largest, proto.Size(req))
		status, _ := xrsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)
		g.xrs = append(g.xrs, asObservedXR(x, team, status))
		for _, o := range desiredResources(xrsp) {
			if o["kind"] == "Object" {
				g.objects = append(g.objects, asObservedObject(o))
			}
		}
	}
	return g
}

func TestWorstCaseRequests(t *testing.T) {
	for _, sc := range []struct {
		name   string
		limits map[string]any
	}{
		{"default limits", map[string]any{}},
		{"largest limits", map[string]any{"kubeconfigs": 50, "workspaces": 50, "bindings": 400, "bytes": 512 << 10}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			// How many Tenants of this size the namespace admits (tenant.checkCapacity).
			one := &v1alpha1.Tenant{}
			b, _ := json.Marshal(worstTenant("team-00", 0, sc.limits))
			if err := json.Unmarshal(b, one); err != nil {
				t.Fatal(err)
			}
			w := tenant.Worst(one)
			n := tenant.SharedCapacity/w - 1
			g := grantTeam(t, "team-00", 0, sc.limits, nil)
			actual := 0
			for _, o := range append(append([]map[string]any{g.tenant}, g.xrs...), g.objects...) {
				actual += jsonSize(o)
			}
			// Each path the Objects act in costs the RootShard a ProviderConfig and a
			// kubeconfig; what the team's grants actually add is measured below, with them.
			if actual > w {
				t.Errorf("a Tenant at %s adds %d bytes of objects to namespace kcp, more than tenant.Worst's %d: the budget under-counts", sc.name, actual, w)
			}
			// Every other Tenant granted as much: copies of team-00's objects, renamed.
			var tenants, xrs, objects []map[string]any
			for i := range n {
				team := fmt.Sprintf("team-%02d", i)
				for _, src := range [][]map[string]any{{g.tenant}, g.xrs, g.objects} {
					for _, o := range src {
						b, _ := json.Marshal(o)
						var c map[string]any
						_ = json.Unmarshal([]byte(strings.ReplaceAll(string(b), "team-00", team)), &c)
						switch c["kind"] {
						case "Tenant":
							tenants = append(tenants, c)
						case "Object":
							objects = append(objects, c)
						default:
							xrs = append(xrs, c)
						}
					}
				}
			}
			// The RootShard reads every Object acting in its kcp.
			rsReq, _ := convergedWorst(t, fnrequest.StructJSON(basicXR).AsMap(), append(worstInstallation(), objects...))
			baseReq, _ := convergedWorst(t, fnrequest.StructJSON(basicXR).AsMap(), worstInstallation())
			// The last Tenant reads what its team's XRs ask for, every Tenant and every XR they
			// composed.
			last := fmt.Sprintf("team-%02d", n-1)
			tReq, _ := convergedWorst(t, tenants[n-1], append(append(append(append(worstInstallation(), quotaOf(last)), teamRequests(t, hostileTeam(last))...), tenants...), xrs...))
			// A team's Kubeconfig of the shared installation reads every Tenant.
			team := hostileTeam("team-00")[0]
			kcReq, _ := convergedWorst(t, team, append(tenants, xrs...))
			sizes := []struct {
				what string
				n    int
			}{
				{"the shared RootShard", proto.Size(rsReq)},
				{"a Tenant", proto.Size(tReq)},
				{"a team's shared Kubeconfig", proto.Size(kcReq)},
				{"a Kubeconfig or Workspace a Tenant composes", g.largest},
			}
			t.Logf("%s: %d Tenants fit SharedCapacity %d at tenant.Worst %d bytes each; the installation alone: RootShard request %d bytes; one Tenant's objects %d bytes", sc.name, n, tenant.SharedCapacity, w, proto.Size(baseReq), actual)
			if grown := proto.Size(rsReq) - proto.Size(baseReq); grown > n*w {
				t.Errorf("%d Tenants grow the RootShard's request by %d bytes, more than the %d the sizing allows them", n, grown, n*w)
			}
			if base := proto.Size(baseReq); base > tenant.InstallationBytes {
				t.Errorf("the RootShard alone sends %d bytes, over tenant.InstallationBytes %d", base, tenant.InstallationBytes)
			}
			for _, s := range sizes {
				t.Logf("%s: largest RunFunctionRequest %d bytes (limit %d)", s.what, s.n, tenant.RequestLimit)
				if s.n > tenant.RequestLimit {
					t.Errorf("%s at %s: a RunFunctionRequest of %d bytes, over half of the 4 MiB gRPC limit (%d)", s.what, sc.name, s.n, tenant.RequestLimit)
				}
			}
		})
	}
}
