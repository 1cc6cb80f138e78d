package builder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
)

// Report sets the CertificatesReady, InputsReady and Available conditions. Available
// follows the primary workload, as kcp-operator's does. It reports whether the primary
// Deployment is available. The XR is forced not ready while any workload is not composed.
func (b *Builder) Report(primary Outcome, others ...Outcome) bool {
	var unissued []string
	for _, c := range b.certificates {
		if !b.St.CertificateIssued(c.key) {
			unissued = append(unissued, c.name)
		}
	}
	// The messages of conditions that are False while the XR is being created stay the same
	// until the condition turns True: every change is a write of the XR, and on Crossplane
	// v2.3 and v2.4 a write can be undone and redone by the next reconcile when it reads the
	// XR from a cache that has not seen it yet. Each such write is a watch event counted
	// against the XR's circuit breaker and a RunFunction call (docs/performance.md).
	if len(unissued) == 0 {
		b.condition(condition.TypeCertificatesReady, true, condition.ReasonIssued,
			fmt.Sprintf("All %d certificates are issued.", len(b.certificates)))
	} else {
		b.condition(condition.TypeCertificatesReady, false, condition.ReasonIssuing,
			fmt.Sprintf("Waiting for cert-manager to issue the %d certificates (kubectl get certificates -n %s shows each one's state).", len(b.certificates), b.Namespace))
	}

	workloads := append([]Outcome{primary}, others...)
	missing := append([]string{}, b.waiting...)
	for _, w := range workloads {
		missing = append(missing, w.Verdict.WaitingObjects...)
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	if len(missing) > 0 && b.issuing != "" {
		missing = []string{b.issuing + " to issue its certificates (its condition CertificatesReady); the Secrets it issues are checked after that"}
	}
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
		// What it waits for is in CertificatesReady and InputsReady; said here, the message
		// would change with every certificate and input that arrives.
		b.condition(condition.TypeAvailable, false, condition.ReasonWaitingForInputs,
			fmt.Sprintf("Deployment %s is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady).", ref))
	case b.unreachable(primary):
		// Say it rather than the last status seen there: nothing here knows whether it still
		// runs. Everything composed is kept, here and there.
		why, _ := b.St.Unreachable(primary.Key)
		b.condition(condition.TypeAvailable, false, condition.ReasonClusterUnreachable,
			fmt.Sprintf("Deployment %s runs in another cluster, and provider-kubernetes cannot keep it in step (%s). Everything composed is kept meanwhile, here and there.", ref, why))
		available = false
	case available:
		b.condition(condition.TypeAvailable, true, condition.ReasonReplicasUp,
			fmt.Sprintf("Deployment %s is fully up and running.", ref))
	default:
		if why, failed := b.St.DeploymentRolloutFailed(primary.Key); failed {
			// Kubernetes gave up on the rollout: the old pods keep serving, and an upgrade
			// that waits for this component stops here (status.image keeps the old image).
			b.condition(condition.TypeAvailable, false, condition.ReasonRolloutFailed,
				fmt.Sprintf("Deployment %s stopped rolling out: %s", ref, why))
			break
		}
		// Also while the Deployment is composed but not observed yet, which lasts one
		// reconcile: kcp-operator's DeploymentUnavailable ("does not exist") in between would
		// be one more change of the condition, and each change can start Crossplane's
		// stale-cache loop of writes (docs/performance.md).
		b.condition(condition.TypeAvailable, false, condition.ReasonReplicasUnavailable,
			fmt.Sprintf("Deployment %s is not in the desired replica state.", ref))
	}

	if b.upgraded != nil {
		b.conditions = append(b.conditions, *b.upgraded)
	}
	for _, w := range workloads {
		if !w.Composed {
			b.notReady = true
		}
	}
	return available
}

// unreachable reports whether a composed workload runs in a cluster provider-kubernetes
// cannot reach (its Object is not Synced).
func (b *Builder) unreachable(w Outcome) bool {
	_, ok := b.St.Unreachable(w.Key)
	return w.Composed && ok
}

// NotReady reports whether the XR must be forced not ready.
func (b *Builder) NotReady() bool { return b.notReady }

// Conditions returns the reported conditions.
func (b *Builder) Conditions() []condition.Condition { return b.conditions }

func (b *Builder) condition(t string, ok bool, reason, msg string) {
	b.conditions = append(b.conditions, condition.Condition{Type: t, Status: ok, Reason: reason, Message: msg})
}
