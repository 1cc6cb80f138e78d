package builder

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/placement"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Workload is one Deployment and its Service.
type Workload struct {
	// Name is the Deployment's name, for messages.
	Name          string
	DeploymentKey resource.Name
	ServiceKey    resource.Name
	// Mounts are every volume the pods mount that the gate should check.
	Mounts workload.Mounts
	// Blockers are other missing inputs that keep the workload from being rendered, such as
	// a referenced XR that does not exist yet.
	Blockers []string
	// Build returns the Deployment and Service for the given pod annotations.
	Build func(podAnnotations map[string]string) (*appsv1.Deployment, *corev1.Service)
	// Placement runs the workload in another cluster; nil runs it here.
	Placement *placement.Target
	// CertificateOnly names the mounted Secrets a placed workload gets only the certificate
	// of: CAs and other components' certificates.
	CertificateOnly map[string]bool
	// DisruptionBudget is the user's setting of the PodDisruptionBudget; nil for the default.
	DisruptionBudget *v1alpha1.DisruptionBudget
}

// Outcome says what happened to one workload.
type Outcome struct {
	Name string
	Key  resource.Name
	// Composed is true when the Deployment is desired (built or kept).
	Composed bool
	Verdict  inputs.Verdict
	// Err is set when the workload could not be placed in its cluster (a bug: the composed
	// objects always convert).
	Err error
}

// Workload composes a Deployment and its Service when every mounted input is available.
// While one is missing an existing Deployment and Service are kept exactly as they are, and
// nothing new is created.
func (b *Builder) Workload(w Workload) Outcome {
	out := b.workload(w)
	if w.Placement != nil {
		out.Err = placement.Place(&b.Set, b.St, w.Placement, placement.Workload{
			Deployment: w.DeploymentKey, Service: w.ServiceKey, DisruptionBudget: disruptionBudgetKey(w.DeploymentKey),
			Own: b.Inputs.Own, CertificateOnly: w.CertificateOnly, Namespace: b.Namespace,
		})
	}
	return out
}

// workload composes or keeps the workload where it runs: here, or as the Objects of a
// placed one (which Place then rebuilds from it).
func (b *Builder) workload(w Workload) Outcome {
	v := b.Inputs.Check(w.Mounts, b.St, &b.Set)
	v.WaitingObjects = append(v.WaitingObjects, w.Blockers...)
	out := Outcome{Name: w.Name, Key: w.DeploymentKey, Verdict: v}
	pdbKey := disruptionBudgetKey(w.DeploymentKey)
	if v.Open() {
		dep, svc := w.Build(v.Rollout.Annotations())
		b.Set.Add(w.DeploymentKey, dep, Readiness(b.St.DeploymentAvailable(w.DeploymentKey)))
		b.Set.Add(w.ServiceKey, svc, Readiness(b.St.Exists(w.ServiceKey)))
		if pdb := workload.DisruptionBudget(dep.ObjectMeta, dep.Spec.Replicas, dep.Spec.Selector, w.DisruptionBudget); pdb != nil {
			b.Set.Add(pdbKey, pdb, Readiness(b.St.Exists(pdbKey)))
		}
		out.Composed = true
		return out
	}
	if u, ok := b.St.Get(w.DeploymentKey); ok {
		b.Set.Keep(w.DeploymentKey, u, Readiness(b.St.DeploymentAvailable(w.DeploymentKey)))
		out.Composed = true
	}
	for _, key := range []resource.Name{w.ServiceKey, pdbKey} {
		if u, ok := b.St.Get(key); ok {
			b.Set.Keep(key, u, resource.ReadyTrue)
		}
	}
	return out
}

// disruptionBudgetKey is the resource name of a Deployment's PodDisruptionBudget.
func disruptionBudgetKey(deployment resource.Name) resource.Name {
	return resource.Name("poddisruptionbudget-" + strings.TrimPrefix(string(deployment), "deployment-"))
}
