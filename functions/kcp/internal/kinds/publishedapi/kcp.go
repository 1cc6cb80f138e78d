package publishedapi

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/syncagent"
)

// Conditions of a PublishedAPI beside the workload's.
const (
	// TypeExported says whether the APIExport exists in kcp.
	TypeExported = "Exported"
	// TypeCredentialsReady says whether the agent's kubeconfig is written.
	TypeCredentialsReady = "CredentialsReady"
	// TypePublished says whether every PublishedResource is in the service cluster.
	TypePublished = "Published"

	ReasonExported   = "Exported"
	ReasonExporting  = "Exporting"
	ReasonIssued     = "Issued"
	ReasonIssuing    = "Issuing"
	ReasonPublished  = "Published"
	ReasonPublishing = "Publishing"
)

// DefaultValidity of the agent's client certificate.
const DefaultValidity = 8760 * time.Hour

// Resource keys of what the XR composes in kcp.
const (
	keyExport     resource.Name = "apiexport"
	keyKCPRole    resource.Name = "syncagent-kcp-role"
	keyKubeconfig resource.Name = "kubeconfig-syncagent"
)

// inKCP is an Object acting in the provider workspace through the RootShard's credentials
// for it; the RootShard composes those when it sees the Object's label and annotation.
func (c *composer) inKCP(name string, policies []string, manifest map[string]any) *resource.Unstructured {
	return inkcp.Object{
		Name:           name,
		Namespace:      c.pa.GetNamespace(),
		Labels:         map[string]string{names.LabelInKCPRootShard: string(c.root), names.LabelPublishedAPI: c.agent.Name},
		Annotations:    map[string]string{names.AnnotationWorkspace: c.pa.Spec.Workspace},
		ProviderConfig: c.root.ProviderConfig(c.pa.Spec.Workspace),
		Policies:       policies,
		Manifest:       manifest,
	}.Unstructured()
}

// composeExport composes the APIExport and reports whether kcp has it. It is never deleted
// with the XR: teams' APIBindings and the objects they created rest on it, and a new
// PublishedAPI of the same workspace and name takes it over.
func (c *composer) composeExport() bool {
	ok := c.b.St.ConditionTrue(keyExport, "Ready")
	c.b.Set.Add(keyExport, c.inKCP(c.name.Export(), inkcp.PoliciesKeep, inkcp.APIExport(c.agent.Export, nil)), readiness(ok))
	return ok
}

// composeKCPRole composes the agent's ClusterRole in the provider workspace: rights on its
// own export only (syncagent.KCPRules).
func (c *composer) composeKCPRole() {
	ok := c.b.St.ConditionTrue(keyKCPRole, "Ready")
	role := syncagent.ClusterRole(names.AgentRole(c.agent.Name), nil, syncagent.KCPRules(c.agent.Export))
	c.b.Set.Add(keyKCPRole, c.inKCP(c.name.KCPRole(), inkcp.PoliciesAll, role), readiness(ok))
}

// composeKubeconfig composes the Kubeconfig the agent reaches kcp with: a client
// certificate of the RootShard's client CA in group kubeconfig:<name>, opening the provider
// workspace, where the Kubeconfig binds the agent's ClusterRole to that group and nothing
// else. It reports whether the kubeconfig Secret exists.
func (c *composer) composeKubeconfig() bool {
	validity := DefaultValidity
	if a := c.pa.Spec.Agent; a != nil && a.Validity != nil {
		validity = a.Validity.Duration
	}
	root := string(c.root)
	spec := v1alpha1.KubeconfigSpec{
		Target:          v1alpha1.KubeconfigTarget{RootShardRef: &corev1.LocalObjectReference{Name: root}},
		TargetWorkspace: c.pa.Spec.Workspace,
		Username:        c.agent.Name,
		Validity:        metav1.Duration{Duration: validity},
		SecretRef:       corev1.LocalObjectReference{Name: c.name.KubeconfigSecret()},
		Authorization: &v1alpha1.KubeconfigAuthorization{ClusterRoleBindings: v1alpha1.KubeconfigClusterRoleBindings{
			ClusterRoles: []string{names.AgentRole(c.agent.Name)},
		}},
	}
	_, _ = c.b.XR(keyKubeconfig, v1alpha1.KindKubeconfig, c.name.Kubeconfig(), c.labels(), spec) // a KubeconfigSpec always encodes
	secret := c.name.KubeconfigSecret()
	c.b.Inputs.Child("Secret", secret, "written by Kubeconfig "+c.name.Kubeconfig())
	return c.b.St.Secret(secret).Found
}

// exportCondition is Exported.
func exportCondition(c *composer, ok bool) condition.Condition {
	export := c.pa.Spec.Workspace + ":" + c.agent.Export
	if ok {
		return condition.Condition{Type: TypeExported, Status: true, Reason: ReasonExported, Message: fmt.Sprintf("APIExport %s exists in kcp; teams bind it by path %s and name %s.", export, c.pa.Spec.Workspace, c.agent.Export)}
	}
	return condition.Condition{Type: TypeExported, Reason: ReasonExporting, Message: fmt.Sprintf("Creating APIExport %s in kcp through provider-kubernetes (Object %s); workspace %s must exist.", export, c.name.Export(), c.pa.Spec.Workspace)}
}

// credentialsCondition is CredentialsReady.
func credentialsCondition(c *composer, ok bool) condition.Condition {
	if ok {
		return condition.Condition{Type: TypeCredentialsReady, Status: true, Reason: ReasonIssued, Message: fmt.Sprintf("Kubeconfig %s wrote the agent's kubeconfig, Secret %s.", c.name.Kubeconfig(), c.name.KubeconfigSecret())}
	}
	return condition.Condition{Type: TypeCredentialsReady, Reason: ReasonIssuing, Message: fmt.Sprintf("Waiting for Kubeconfig %s to write the agent's kubeconfig, Secret %s.", c.name.Kubeconfig(), c.name.KubeconfigSecret())}
}

// readiness of an Object: Ready once provider-kubernetes applied its manifest.
func readiness(ok bool) resource.Ready {
	if ok {
		return resource.ReadyTrue
	}
	return resource.ReadyFalse
}
