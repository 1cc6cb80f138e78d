package main

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

// TestHeavyTeamXRsStallNothing plays a team that fills its Workspaces to the API server's
// limit, four of 1.35 MB: read whole, they would make its Tenant's RunFunctionRequest 5.4 MB,
// over gRPC's 4 MiB, and the Tenant would apply none of the platform's changes. Each Workspace
// instead asks through a TenantRequest of its own, which says, without the Workspace, that it
// is too heavy: the Tenant's request stays small, names each Workspace refused, and the
// platform's change to the team's workspace (a group revoked) is applied.
func TestHeavyTeamXRsStallNothing(t *testing.T) {
	const team = "team-00"
	var heavy []map[string]any
	for i := range 4 {
		heavy = append(heavy, map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Workspace",
			"metadata": map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": team, "uid": fmt.Sprintf("%s-w%d", team, i), "creationTimestamp": fmt.Sprintf("2026-01-01T00:0%d:00Z", i),
				"annotations": map[string]any{"example.com/filler": strings.Repeat("f", 1_350_000)}},
			"spec": map[string]any{"rootShard": map[string]any{"ref": map[string]any{"name": "root", "namespace": "kcp"}}}})
	}
	requests := teamRequests(t, heavy)
	for _, rq := range requests {
		spec := rq["spec"].(map[string]any)
		if _, carries := spec["xr"]; carries || !strings.Contains(fmt.Sprint(spec["refused"]), "metadata.annotations") {
			t.Errorf("TenantRequest %v: want it refused naming metadata.annotations, without the Workspace; got spec %v", rq["metadata"].(map[string]any)["name"], spec)
		}
	}

	tenant := worstTenant(team, 0, map[string]any{})
	// The platform revokes every group it bound in the team's workspace but one.
	crbs := tenant["spec"].(map[string]any)["clusterRoleBindings"].([]any)
	tenant["spec"].(map[string]any)["clusterRoleBindings"] = crbs[:1]
	req, rsp := convergedWorst(t, tenant, append(append(append(worstInstallation(), quotaOf(team)), requests...), tenant))
	if n := proto.Size(req); n > 256<<10 {
		t.Errorf("the Tenant's RunFunctionRequest is %d bytes with four 1.35 MB Workspaces in its team's namespace; what a team writes must not reach it", n)
	}
	members, _ := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["members"].([]any)
	refused := 0
	for _, m := range members {
		m := m.(map[string]any)
		if m["granted"] != true && strings.Contains(fmt.Sprint(m["message"]), "metadata.annotations: Forbidden") {
			refused++
		}
	}
	if refused != len(heavy) {
		t.Errorf("the Tenant's status names %d of the %d heavy Workspaces refused: %v", refused, len(heavy), members)
	}
	ws := rsp.GetDesired().GetResources()["workspace"].GetResource().AsMap()
	if got := ws["spec"].(map[string]any)["clusterRoleBindings"].([]any); len(got) != 1 {
		t.Errorf("the team's workspace binds %d roles after the platform revoked all but one: the Tenant did not apply the platform's change", len(got))
	}
}
