package scenarios

import (
	"fmt"
	"strings"
)

// Lane says when TestKCP runs a scenario. The control plane is shared: scenarios that run
// side by side keep to namespaces of their own, and a lane runs its scenarios in order.
type Lane string

// TestKCP's lanes, in the order they start.
const (
	// LaneAlone runs first, with nothing else on the machine: its figures are its own.
	LaneAlone Lane = "alone, first"
	// LaneBasic runs in order in Basic's namespace `kcp` (and then MultiCluster's), beside
	// LaneIndependent.
	LaneBasic Lane = "basic lane"
	// LaneIndependent runs in order, beside LaneBasic, each scenario in namespaces of its own.
	LaneIndependent Lane = "independent lane"
	// LaneLast runs alone once both lanes have ended: Scale counts calls and events per XR.
	LaneLast Lane = "alone, last"
)

// Scenario is one scenario of TestKCP, as test/e2e/README.md lists it.
type Scenario struct {
	Name string
	Lane Lane
	// Needs are the scenarios it builds on: it starts from what they leave (their objects,
	// or a namespace they emptied). Run alone (E2E_RUN), it runs them first; when one did not
	// pass, it is skipped.
	Needs []string
	// Namespaces it writes to.
	Namespaces []string
	// Policy is the platform's issuer policy it applies (EnvironmentConfig kcp-self-service,
	// cluster-wide: the independent lane's scenarios apply theirs in turn); "" for none.
	Policy string
}

// Plan is TestKCP's scenarios, in the order each lane runs them.
var Plan = []Scenario{
	{Name: "Basic", Lane: LaneAlone, Namespaces: []string{"kcp"}},

	{Name: "DemoCommands", Lane: LaneBasic, Needs: []string{"Basic"}, Namespaces: []string{"kcp"}},
	{Name: "Renewal", Lane: LaneBasic, Needs: []string{"Basic"}, Namespaces: []string{"kcp"}},
	{Name: "BadInput", Lane: LaneBasic, Needs: []string{"Basic"}, Namespaces: []string{"kcp"}},
	{Name: "APIPublishing", Lane: LaneBasic, Needs: []string{"Basic"}, Namespaces: []string{"kcp", "e2e-apipub-agents", "e2e-apipub-tenant"}, Policy: "data.features.apiPublishing [kcp], set before the lanes"},
	{Name: "Delete", Lane: LaneBasic, Needs: []string{"Basic"}, Namespaces: []string{"kcp"}},
	{Name: "Migrate", Lane: LaneBasic, Needs: []string{"Delete"}, Namespaces: []string{"kcp"}},
	{Name: "Sharded", Lane: LaneBasic, Needs: []string{"Migrate"}, Namespaces: []string{"kcp"}},
	{Name: "KeepsWhatRuns", Lane: LaneBasic, Needs: []string{"Sharded"}, Namespaces: []string{"kcp"}},
	{Name: "InKCP", Lane: LaneBasic, Needs: []string{"KeepsWhatRuns"}, Namespaces: []string{"kcp"}},
	{Name: "MultiCluster", Lane: LaneBasic, Namespaces: []string{"kcp-multi", "kcp-multi (cluster B)"}},

	{Name: "Tenant", Lane: LaneIndependent, Namespaces: []string{"team-a"}, Policy: "examples/installation"},
	{Name: "HostileTenant", Lane: LaneIndependent, Namespaces: []string{"team-h"}, Policy: "examples/installation"},
	{Name: "Claim", Lane: LaneIndependent, Namespaces: []string{"team-b"}, Policy: "examples/installation"},
	{Name: "Upgrade", Lane: LaneIndependent, Namespaces: []string{"upgrade"}, Policy: "examples/installation"},
	{Name: "Production", Lane: LaneIndependent, Namespaces: []string{"kcp-prod"}, Policy: "examples/production"},
	{Name: "Backup", Lane: LaneIndependent, Namespaces: []string{"kcp-backup"}, Policy: "examples/installation"},
	{Name: "SharedKCP", Lane: LaneIndependent, Namespaces: []string{"kcp-platform", "team-red", "team-blue"}, Policy: "examples/shared-kcp"},
	{Name: "Topology", Lane: LaneIndependent, Namespaces: []string{"kcp-dekker", "kcp-vespucci", "kcp-comer", "kcp-features", "kcp-auth", "kcp-dev", "dekker", "vespucci", "comer", "kcp-vw", "kcp-custom-ca"}, Policy: "the three topologies' merged"},
	{Name: "StandIn", Lane: LaneIndependent, Namespaces: []string{"standin"}},

	{Name: "Scale", Lane: LaneLast, Namespaces: []string{"scale-20"}},
}

// PlanScenario returns the scenario of Plan named name.
func PlanScenario(name string) (Scenario, bool) {
	for _, s := range Plan {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// PlanTable is Plan as the Markdown table test/e2e/README.md shows.
func PlanTable() string {
	var b strings.Builder
	b.WriteString("| Scenario | Runs | Needs | Namespaces | Issuer policy |\n|---|---|---|---|---|\n")
	cell := func(items []string) string {
		if len(items) == 0 {
			return "-"
		}
		return strings.Join(items, ", ")
	}
	for _, s := range Plan {
		policy := s.Policy
		if policy == "" {
			policy = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.Name, s.Lane, cell(s.Needs), cell(s.Namespaces), policy)
	}
	return b.String()
}
