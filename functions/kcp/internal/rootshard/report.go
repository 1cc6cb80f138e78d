package rootshard

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/condition"
)

// report fills in status, conditions and explicit readiness.
func (c *composer) report(workloads ...workloadOutcome) {
	shard := workloads[0]
	c.out.Status = v1alpha1.RootShardStatus{
		Phase:       v1alpha1.PhaseProvisioning,
		BaseURL:     c.baseURL,
		ExternalURL: ExternalURL(c.rs),
	}
	if c.st.DeploymentAvailable(shard.key) {
		c.out.Status.Phase = v1alpha1.PhaseRunning
	}

	var unissued []string
	for _, key := range c.certificates {
		if !c.st.CertificateIssued(key) {
			o, _ := c.out.Desired.Get(key)
			unissued = append(unissued, objectName(o.Resource))
		}
	}
	if len(unissued) == 0 {
		c.condition(condition.TypeCertificatesReady, true, condition.ReasonIssued,
			fmt.Sprintf("All %d certificates are issued.", len(c.certificates)))
	} else {
		c.condition(condition.TypeCertificatesReady, false, condition.ReasonIssuing,
			fmt.Sprintf("Waiting for cert-manager to issue %d of %d certificates: %s.", len(unissued), len(c.certificates), strings.Join(unissued, ", ")))
	}

	missing := append([]string{}, c.waiting...)
	for _, w := range workloads {
		missing = append(missing, w.verdict.WaitingObjects...)
	}
	sort.Strings(missing)
	missing = dedupe(missing)
	if len(missing) == 0 {
		c.condition(condition.TypeInputsReady, true, condition.ReasonAllPresent, "Every Secret and ConfigMap the spec references exists.")
	} else {
		c.condition(condition.TypeInputsReady, false, condition.ReasonMissing, "Waiting for "+strings.Join(missing, "; ")+".")
	}

	ref := c.namespace + "/" + shard.name
	switch {
	case !shard.composed:
		c.condition(condition.TypeAvailable, false, condition.ReasonWaitingForInputs,
			fmt.Sprintf("Deployment %s is not created yet: %s.", ref, shard.verdict.Message()))
	case c.st.DeploymentAvailable(shard.key):
		c.condition(condition.TypeAvailable, true, condition.ReasonReplicasUp,
			fmt.Sprintf("Deployment %s is fully up and running.", ref))
	case !c.st.Exists(shard.key):
		c.condition(condition.TypeAvailable, false, condition.ReasonDeploymentUnavailable,
			fmt.Sprintf("Deployment %s does not exist yet.", ref))
	default:
		c.condition(condition.TypeAvailable, false, condition.ReasonReplicasUnavailable,
			fmt.Sprintf("Deployment %s is not in the desired replica state.", ref))
	}

	for _, w := range workloads {
		if !w.composed {
			c.out.NotReady = true
		}
	}
}

func (c *composer) condition(t string, ok bool, reason, msg string) {
	c.out.Conditions = append(c.out.Conditions, condition.Condition{Type: t, Status: ok, Reason: reason, Message: msg})
}

func objectName(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return ""
	}
	return m.GetName()
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
