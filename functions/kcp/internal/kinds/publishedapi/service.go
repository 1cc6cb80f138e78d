package publishedapi

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/placement"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/syncagent"
)

// DefaultReplicas of the agent: one leads, one waits to take over.
const DefaultReplicas = 2

// inService is an Object creating manifest in the service cluster.
func (c *composer) inService(name string, manifest map[string]any) *resource.Unstructured {
	return inkcp.Object{
		Name:               name,
		Namespace:          c.pa.GetNamespace(),
		Labels:             map[string]string{names.LabelPublishedAPI: c.agent.Name},
		ProviderConfigKind: c.target.ConfigKind,
		ProviderConfig:     c.target.Config,
		Policies:           inkcp.PoliciesAll,
		Manifest:           manifest,
	}.Unstructured()
}

// addInService composes one Object in the service cluster under key and reports whether
// provider-kubernetes has applied it.
func (c *composer) addInService(key resource.Name, name string, manifest map[string]any) bool {
	ok := c.b.St.ConditionTrue(key, "Ready")
	c.b.Set.Add(key, c.inService(name, manifest), readiness(ok))
	return ok
}

// rbacKey is the resource key of the agent's RBAC object of kind.
func rbacKey(kind string) resource.Name { return resource.Name("syncagent-" + strings.ToLower(kind)) }

// composeAgentNamespace composes the Object creating the agent's namespace in the service
// cluster, the one placement composes for a placed Deployment, but before the Deployment:
// the Deployment waits for the agent's ServiceAccount, Role and RoleBinding, which live in
// that namespace, and the service cluster refuses them while it does not exist
// (provider-kubernetes: namespaces "<namespace>" not found), so nothing would ever be
// created. Never deleted, as placement's: other agents and the platform's objects may live
// there.
func (c *composer) composeAgentNamespace() bool {
	return placement.Namespace(&c.b.Set, c.b.St, c.target, c.name.Deployment(), c.pa.GetNamespace())
}

// composeServiceRBAC composes the agent's namespace, ServiceAccount and RBAC in the service
// cluster: the cluster-wide ClusterRole of syncagent.ServiceRules, and a Role in its namespace
// for its Lease and events. It returns what the Deployment waits for on first creation.
func (c *composer) composeServiceRBAC() []string {
	ns, sa, role, l := c.target.Namespace, c.name.Deployment(), names.AgentRole(c.agent.Name), c.labels()
	var waiting []string
	nsReady := c.composeAgentNamespace()
	objects := []struct {
		kind     string
		manifest map[string]any
	}{
		{"ServiceAccount", syncagent.ServiceAccount(sa, ns, l)},
		{"ClusterRole", syncagent.ClusterRole(role, l, syncagent.ServiceRules(c.pa.Spec.Resources))},
		{"ClusterRoleBinding", syncagent.Binding(role, "", l, role, sa, ns)},
		{"Role", syncagent.Role(role, ns, l, syncagent.NamespaceRules())},
		{"RoleBinding", syncagent.Binding(role, ns, l, role, sa, ns)},
	}
	for _, o := range objects {
		if !c.addInService(rbacKey(o.kind), c.name.ServiceRBAC(o.kind), o.manifest) {
			waiting = append(waiting, "the agent's "+o.kind+" in "+c.target.String())
		}
	}
	if !nsReady {
		waiting = append(waiting, fmt.Sprintf("the agent's Namespace %s in the cluster %s %s reaches", ns, c.target.ConfigKind, c.target.Config))
	}
	return waiting
}

// composePublishedResources composes one PublishedResource per spec.resources entry,
// labelled for this agent alone. It returns why those not in the service cluster yet are not.
func (c *composer) composePublishedResources() []string {
	l := c.labels()
	var waiting []string
	for _, r := range c.pa.Spec.Resources {
		name := c.name.Resource(r.Name)
		key := resource.Name("publishedresource-" + r.Name)
		if !c.addInService(key, name, syncagent.PublishedResource(name, l, r)) {
			waiting = append(waiting, name+": "+c.notApplied(key))
		}
	}
	return waiting
}

// notApplied says why an Object is not applied in the service cluster yet.
func (c *composer) notApplied(key resource.Name) string {
	st := c.b.St
	if !st.Exists(key) {
		return "waiting for Crossplane to create its Object"
	}
	if ok, _, msg, found := st.Condition(key, "Synced"); found && !ok && msg != "" {
		if strings.Contains(msg, "no matches for kind") {
			// The one thing a platform must do first (docs/publishing-apis.md).
			return "the service cluster has no PublishedResource CRD; install api-syncagent's (docs/publishing-apis.md, \"Once per cluster\")"
		}
		return msg
	}
	return "waiting for provider-kubernetes"
}

// publishedCondition is Published.
func publishedCondition(c *composer, waiting []string) condition.Condition {
	if len(waiting) == 0 {
		return condition.Condition{Type: TypePublished, Status: true, Reason: ReasonPublished, Message: fmt.Sprintf("Every PublishedResource is in %s.", c.target)}
	}
	return condition.Condition{Type: TypePublished, Reason: ReasonPublishing, Message: fmt.Sprintf("Publishing in %s: %s.", c.target, strings.Join(waiting, "; "))}
}

// composeAgent composes the agent's Deployment, metrics Service and PodDisruptionBudget in
// the service cluster, with a copy of its kubeconfig, once the kubeconfig is written and its
// ServiceAccount and RBAC exist there. Until then a running agent is kept as it is.
func (c *composer) composeAgent(rbacWaiting []string) builder.Outcome {
	name := c.name.Deployment()
	mounts := syncagent.Mounts(c.name.KubeconfigSecret())
	w := syncagent.Workload{
		Agent: c.agent, Deployment: name, Labels: c.labels(),
		Replicas: DefaultReplicas, Image: names.AgentImage,
		Mounts: mounts,
	}
	if a := c.pa.Spec.Agent; a != nil {
		if a.Replicas != nil {
			w.Replicas = *a.Replicas
		}
		if a.Image != "" {
			w.Image = a.Image
		}
		w.Resources = a.Resources
	}
	return c.b.Workload(builder.Workload{
		Name:          name,
		DeploymentKey: c.b.Key("deployment", name),
		ServiceKey:    c.b.Key("service", name),
		Mounts:        mounts,
		Blockers:      rbacWaiting,
		Placement:     c.target,
		Build: func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service) {
			w.PodAnnotations = podAnnotations
			return w.Build()
		},
	})
}
