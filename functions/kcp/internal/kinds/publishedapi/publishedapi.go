// Package publishedapi composes a PublishedAPI: an APIExport in a provider workspace of kcp
// and the api-syncagent that serves it from a service cluster.
//
// In kcp, through the RootShard's provider-kubernetes credentials for the provider
// workspace: the APIExport (created once, then the agent's: it writes the schemas and claims
// into it), and the agent's ClusterRole there. A Kubeconfig XR, composed here, issues the
// agent's client certificate and binds that role, and nothing else, to it.
//
// In the service cluster, through spec.serviceCluster's provider-kubernetes config: the
// agent's ServiceAccount, its RBAC (syncagent.ServiceRules: the published resources and
// their related kinds, no more), one PublishedResource per spec.resources entry, and the
// agent's Deployment, Service and PodDisruptionBudget with a copy of its kubeconfig, placed
// as every placed workload is (compose/placement).
//
// The recipe reads: policy, RootShard, kcp side, credentials, service side, workload,
// status. Nothing is deleted while an input is missing: the builder keeps what runs.
package publishedapi

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/placement"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/syncagent"
)

// composer holds what every step of one composition needs.
type composer struct {
	b      *builder.Builder
	pa     *v1alpha1.PublishedAPI
	name   names.PublishedAPI
	root   names.RootShard
	target *placement.Target
	agent  syncagent.Agent
}

// Compose composes a PublishedAPI. The XR must have passed Validate.
func Compose(pa *v1alpha1.PublishedAPI, st *observed.State) (result.Result[v1alpha1.PublishedAPIStatus], field.ErrorList) {
	c := newComposer(pa, st)
	status := c.status()
	c.b.Inputs.Require(policy.Requirement)
	p, known, err := policy.Read(st)
	switch {
	case err != nil:
		return result.Result[v1alpha1.PublishedAPIStatus]{}, field.ErrorList{field.Forbidden(field.NewPath("metadata", "namespace"), err.Error())}
	case !known:
		return builder.Waiting(c.b, status, fmt.Sprintf("Reading the platform's policy (%s %s), which decides whether namespace %s may publish APIs", policy.Kind, policy.Name, pa.GetNamespace())), nil
	}
	if errs := checkPolicy(pa, p); len(errs) > 0 {
		return result.Result[v1alpha1.PublishedAPIStatus]{}, errs
	}
	if err := placement.Check(st, c.b.Key("deployment", c.name.Deployment()), c.target, field.NewPath("spec", "serviceCluster"), v1alpha1.KindPublishedAPI); err != nil {
		return result.Result[v1alpha1.PublishedAPIStatus]{}, field.ErrorList{err}
	}
	c.b.Inputs.Require(required.Named(v1alpha1.KindRootShard, string(c.root)))
	if _, ok := required.RootShard(st, string(c.root)); !ok {
		return builder.Waiting(c.b, status, fmt.Sprintf("RootShard %s (spec.rootShard.name) does not exist in namespace %s; create it or fix the reference", c.root, pa.GetNamespace())), nil
	}

	exported := c.composeExport()
	c.composeKCPRole()
	credentials := c.composeKubeconfig()
	rbacWaiting := c.composeServiceRBAC()
	publishing := c.composePublishedResources()
	out := c.composeAgent(rbacWaiting)
	available := c.b.Report(out)
	// The agent mounts no certificate of this XR's (its Kubeconfig's is that XR's to
	// report), so the builder's CertificatesReady would only ever say "all 0 issued".
	var conds []condition.Condition
	for _, cond := range c.b.Conditions() {
		if cond.Type != condition.TypeCertificatesReady {
			conds = append(conds, cond)
		}
	}
	conds = append(conds, exportCondition(c, exported), credentialsCondition(c, credentials), publishedCondition(c, publishing))
	status.Phase = string(builder.Phase(available && exported))
	return result.Result[v1alpha1.PublishedAPIStatus]{
		Desired:      c.b.Set,
		Requirements: c.b.Inputs.Requirements(),
		Status:       status,
		Conditions:   conds,
		NotReady:     c.b.NotReady() || !exported || !credentials || len(publishing) > 0,
	}, nil
}

// newComposer names everything once.
func newComposer(pa *v1alpha1.PublishedAPI, st *observed.State) *composer {
	name := names.PublishedAPI(pa.GetName())
	target := placement.Of(&pa.Spec.ServiceCluster, pa.GetNamespace())
	return &composer{
		b:      builder.New(pa.GetName(), pa.GetNamespace(), st),
		pa:     pa,
		name:   name,
		root:   names.RootShard(pa.Spec.RootShard.Name),
		target: target,
		agent: syncagent.Agent{
			Name:      name.AgentName(pa.GetNamespace()),
			Namespace: target.Namespace,
			Export:    ExportName(pa),
			Selector:  names.LabelPublishedAPI + "=" + name.AgentName(pa.GetNamespace()),
		},
	}
}

// ExportName is spec.exportName, else the XR's name.
func ExportName(pa *v1alpha1.PublishedAPI) string {
	if pa.Spec.ExportName != "" {
		return pa.Spec.ExportName
	}
	return pa.GetName()
}

// status is what the XR reports whatever happens next: all of it follows from the spec.
func (c *composer) status() v1alpha1.PublishedAPIStatus {
	return v1alpha1.PublishedAPIStatus{
		Export:           c.pa.Spec.Workspace + ":" + ExportName(c.pa),
		AgentName:        c.agent.Name,
		PermissionClaims: syncagent.Claims(c.pa.Spec.Resources),
	}
}

// labels mark what the XR composes, here and in the service cluster.
func (c *composer) labels() map[string]string {
	l := names.Labels(string(c.name), names.ComponentSyncAgent)
	l[names.LabelName] = names.ComponentSyncAgent
	l[names.LabelPublishedAPI] = c.agent.Name
	return l
}
