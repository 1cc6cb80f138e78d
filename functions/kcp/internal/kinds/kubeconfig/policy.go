package kubeconfig

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// holdTemplate holds spec.certificateTemplate to the platform's policy: a tenant writes
// Kubeconfigs, and the template reaches the Certificate (its issuer, names, subject, ...), so
// without it a tenant could have a platform ClusterIssuer sign any name or group into a key
// the tenant reads. The policy is read only when the template sets a field it decides, so a
// Kubeconfig without one composes as it always did. It reports whether the policy is known;
// a template the policy refuses is returned as errors: the Kubeconfig is refused and
// nothing it composed changes.
func (c *composer) holdTemplate() (bool, field.ErrorList) {
	t := c.kc.Spec.CertificateTemplate
	if !policy.TemplateNeedsPolicy(t) {
		return true, nil
	}
	c.b.Inputs.Require(policy.Requirement)
	p, known, err := policy.Read(c.b.St)
	path := field.NewPath("spec", "certificateTemplate")
	switch {
	case err != nil:
		return true, field.ErrorList{field.Forbidden(path, err.Error())}
	case !known:
		return false, nil
	}
	return true, p.CheckTemplate(path, c.b.Namespace, "Kubeconfigs", t)
}

// waitForPolicy keeps everything the Kubeconfig composed while Crossplane has not answered
// the policy: until it says whether the template may be used, a Certificate from it must not
// be composed, and nothing may be deleted. Crossplane answers before it applies anything.
func (c *composer) waitForPolicy() result.Result[v1alpha1.KubeconfigStatus] {
	return c.waitForTarget(fmt.Sprintf("the platform's policy (%s %s), which decides whether spec.certificateTemplate may be used in namespace %s", policy.Kind, policy.Name, c.b.Namespace))
}
