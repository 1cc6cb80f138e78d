// Package compose holds what every kind's composer does the same way: composing
// Certificates, Issuers, Secrets and ConfigMaps with their readiness, gating workloads on
// their inputs, keeping what exists when an input goes missing, and reporting the
// CertificatesReady, InputsReady and Available conditions.
package builder

import (
	"fmt"
	"sort"
	"strings"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// DefaultReplicas of kcp Deployments when neither the spec nor a live Deployment says.
const DefaultReplicas = 2

// Builder accumulates the composition of one XR.
type Builder struct {
	// Namespace of the XR and everything it composes.
	Namespace string
	// Prefix is stripped from object names to form composition resource names, so that
	// certificate-server-ca is the key of <rs>-server-ca.
	Prefix string
	St     *observed.State
	Inputs inputs.Inputs
	Set    desired.Set

	certificates []resource.Name
	waiting      []string
	notReady     bool
	conditions   []condition.Condition
}

// New returns a builder for an XR named name in namespace.
func New(name, namespace string, st *observed.State) *Builder {
	return &Builder{Namespace: namespace, Prefix: name + "-", St: st}
}

// Key is the stable composition resource name of an object: <kind>-<name without prefix>.
func (b *Builder) Key(kind, objectName string) resource.Name {
	return resource.Name(kind + "-" + strings.TrimPrefix(objectName, b.Prefix))
}

// Readiness converts a boolean into a composed resource readiness.
func Readiness(ok bool) resource.Ready {
	if ok {
		return resource.ReadyTrue
	}
	return resource.ReadyFalse
}

// Certificate applies the user's template, registers the certificate's Secret as a workload
// input and composes it, ready once cert-manager reports it Ready.
func (b *Builder) Certificate(cert *cmv1.Certificate, tpl *v1alpha1.CertificateTemplate) {
	pki.ApplyTemplate(cert, tpl)
	key := b.Key("certificate", cert.Name)
	b.Inputs.Certificate(cert.Spec.SecretName, key)
	b.certificates = append(b.certificates, key)
	b.Set.Add(key, cert, Readiness(b.St.CertificateIssued(key)))
}

// Issuer composes an Issuer, ready once cert-manager reports it Ready.
func (b *Builder) Issuer(iss *cmv1.Issuer) {
	key := b.Key("issuer", iss.Name)
	b.Set.Add(key, iss, Readiness(b.St.ConditionTrue(key, "Ready")))
}

// Secret composes an Opaque Secret, ready once it exists.
func (b *Builder) Secret(name string, labels map[string]string, data map[string][]byte) {
	key := b.Key("secret", name)
	b.Inputs.Composed(inputs.KindSecret, name, key)
	b.Set.Add(key, &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}, Readiness(b.St.Exists(key)))
}

// ConfigMap composes a ConfigMap, ready once it exists.
func (b *Builder) ConfigMap(name string, labels, data map[string]string) {
	key := b.Key("configmap", name)
	b.Inputs.Composed(inputs.KindConfigMap, name, key)
	b.Set.Add(key, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels},
		Data:       data,
	}, Readiness(b.St.Exists(key)))
}

// MergedBundle composes Secret name whose tls.crt joins, with newlines as kcp-operator does,
// the tls.crt of each source Secret: an issued CA first, then the user's bundles. The sources
// are read as required resources; until all are readable an existing bundle is kept as it is.
func (b *Builder) MergedBundle(name string, labels map[string]string, sources ...string) {
	key := b.Key("secret", name)
	b.Inputs.Composed(inputs.KindSecret, name, key)
	parts := make([]string, 0, len(sources))
	var missing []string
	pending := false
	for _, src := range sources {
		b.Inputs.Read(inputs.KindSecret, src)
		l := b.St.Secret(src)
		crt := l.Data["tls.crt"]
		if !l.Found || len(crt) == 0 {
			if b.Inputs.Pending(src, b.St) {
				// Not issued yet: CertificatesReady already says so.
				pending = true
				continue
			}
			missing = append(missing, src)
			continue
		}
		parts = append(parts, string(crt))
	}
	if len(missing) > 0 || pending {
		b.KeepOrWait(key, len(missing) > 0, fmt.Sprintf("tls.crt of Secret %s (to build Secret %s)", strings.Join(missing, ", "), name))
		return
	}
	b.Secret(name, labels, map[string][]byte{"tls.crt": []byte(strings.Join(parts, "\n"))})
}

// KeepOrWait carries an observed object forward unchanged when it cannot be rebuilt now:
// never delete what exists because an input is momentarily unavailable. When report is set,
// why is reported as a missing input.
func (b *Builder) KeepOrWait(key resource.Name, report bool, why string) {
	if u, ok := b.St.Get(key); ok {
		b.Set.Keep(key, u, resource.ReadyTrue)
		why += ", kept unchanged meanwhile"
	}
	if report {
		b.Wait(why)
	}
}

// KeepAll carries every observed composed resource forward unchanged. Composers call it when
// the XR a reference names cannot be read: nothing can be rebuilt then, and nothing may be
// deleted. It reports whether anything was kept.
func (b *Builder) KeepAll() bool {
	for _, key := range b.St.ComposedNames() {
		u, _ := b.St.Get(key)
		ready := resource.ReadyTrue
		if u.GetKind() == "Deployment" {
			ready = Readiness(b.St.DeploymentAvailable(key))
		}
		b.Set.Keep(key, u, ready)
	}
	return len(b.Set.Objects()) > 0
}

// Wait records a missing input for InputsReady, e.g. a referenced XR that does not exist.
func (b *Builder) Wait(why string) { b.waiting = append(b.waiting, why) }

// Replicas is the spec's value, else the live Deployment's (so an autoscaler's choice
// survives), else def.
func (b *Builder) Replicas(key resource.Name, spec *int32, def int32) int32 {
	if spec != nil {
		return *spec
	}
	if r, ok := b.St.DeploymentReplicas(key); ok {
		return r
	}
	return def
}

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
}

// Outcome says what happened to one workload.
type Outcome struct {
	Name string
	Key  resource.Name
	// Composed is true when the Deployment is desired (built or kept).
	Composed bool
	Verdict  inputs.Verdict
}

// Workload composes a Deployment and its Service when every mounted input is available.
// While one is missing an existing Deployment and Service are kept exactly as they are, and
// nothing new is created.
func (b *Builder) Workload(w Workload) Outcome {
	v := b.Inputs.Check(w.Mounts, b.St, &b.Set)
	v.WaitingObjects = append(v.WaitingObjects, w.Blockers...)
	out := Outcome{Name: w.Name, Key: w.DeploymentKey, Verdict: v}
	pdbKey := disruptionBudgetKey(w.DeploymentKey)
	if v.Open() {
		dep, svc := w.Build(v.Rollout.Annotations())
		b.Set.Add(w.DeploymentKey, dep, Readiness(b.St.DeploymentAvailable(w.DeploymentKey)))
		b.Set.Add(w.ServiceKey, svc, Readiness(b.St.Exists(w.ServiceKey)))
		if pdb := workload.DisruptionBudget(dep.ObjectMeta, dep.Spec.Replicas, dep.Spec.Selector); pdb != nil {
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

// Report sets the CertificatesReady, InputsReady and Available conditions. Available
// follows the primary workload, as kcp-operator's does. It reports whether the primary
// Deployment is available. The XR is forced not ready while any workload is not composed.
func (b *Builder) Report(primary Outcome, others ...Outcome) bool {
	var unissued []string
	for _, key := range b.certificates {
		if !b.St.CertificateIssued(key) {
			o, _ := b.Set.Get(key)
			unissued = append(unissued, o.Resource.(*cmv1.Certificate).Name)
		}
	}
	if len(unissued) == 0 {
		b.condition(condition.TypeCertificatesReady, true, condition.ReasonIssued,
			fmt.Sprintf("All %d certificates are issued.", len(b.certificates)))
	} else {
		b.condition(condition.TypeCertificatesReady, false, condition.ReasonIssuing,
			fmt.Sprintf("Waiting for cert-manager to issue %d of %d certificates: %s.", len(unissued), len(b.certificates), strings.Join(unissued, ", ")))
	}

	workloads := append([]Outcome{primary}, others...)
	missing := append([]string{}, b.waiting...)
	for _, w := range workloads {
		missing = append(missing, w.Verdict.WaitingObjects...)
	}
	sort.Strings(missing)
	missing = dedupe(missing)
	if len(missing) == 0 {
		b.condition(condition.TypeInputsReady, true, condition.ReasonAllPresent, "Every Secret and ConfigMap the spec references exists.")
	} else {
		msg := "Waiting for " + strings.Join(missing, "; ") + "."
		var kept []string
		for _, w := range workloads {
			if w.Composed && !w.Verdict.Open() {
				kept = append(kept, b.Namespace+"/"+w.Name)
			}
		}
		if len(kept) > 0 {
			// Say so: a reader seeing an input missing under a running kcp wants to know
			// that nothing was touched.
			msg += fmt.Sprintf(" Deployment %s is kept unchanged meanwhile.", strings.Join(kept, ", "))
		}
		b.condition(condition.TypeInputsReady, false, condition.ReasonMissing, msg)
	}

	ref := b.Namespace + "/" + primary.Name
	available := b.St.DeploymentAvailable(primary.Key)
	switch {
	case !primary.Composed:
		msg := primary.Verdict.Message()
		if msg == "" {
			msg = "waiting for its inputs"
		}
		b.condition(condition.TypeAvailable, false, condition.ReasonWaitingForInputs,
			fmt.Sprintf("Deployment %s is not created yet: %s.", ref, msg))
	case available:
		b.condition(condition.TypeAvailable, true, condition.ReasonReplicasUp,
			fmt.Sprintf("Deployment %s is fully up and running.", ref))
	case !b.St.Exists(primary.Key):
		b.condition(condition.TypeAvailable, false, condition.ReasonDeploymentUnavailable,
			fmt.Sprintf("Deployment %s does not exist yet.", ref))
	default:
		b.condition(condition.TypeAvailable, false, condition.ReasonReplicasUnavailable,
			fmt.Sprintf("Deployment %s is not in the desired replica state.", ref))
	}

	for _, w := range workloads {
		if !w.Composed {
			b.notReady = true
		}
	}
	return available
}

// NotReady reports whether the XR must be forced not ready.
func (b *Builder) NotReady() bool { return b.notReady }

// Conditions returns the reported conditions.
func (b *Builder) Conditions() []condition.Condition { return b.conditions }

func (b *Builder) condition(t string, ok bool, reason, msg string) {
	b.conditions = append(b.conditions, condition.Condition{Type: t, Status: ok, Reason: reason, Message: msg})
}

// Phase is Running when available, else Provisioning.
func Phase(available bool) v1alpha1.Phase {
	if available {
		return v1alpha1.PhaseRunning
	}
	return v1alpha1.PhaseProvisioning
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
