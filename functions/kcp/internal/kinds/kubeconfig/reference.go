package kubeconfig

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// referenceRequirement reads spec.target.referenceSecretRef's Secret.
func referenceRequirement(ref *corev1.LocalObjectReference) result.Requirement {
	return result.Requirement{Kind: "Secret", Name: ref.Name}
}

// resolveReference returns kc with its target as its reference Secret names it. Until that
// Secret is read, or when it is not a usable reference, it returns the result to give
// instead: everything composed is kept, and InputsReady says why.
func resolveReference(kc *v1alpha1.Kubeconfig, st *observed.State) (*v1alpha1.Kubeconfig, *result.Result[v1alpha1.KubeconfigStatus]) {
	ref := kc.Spec.Target.ReferenceSecretRef
	req := referenceRequirement(ref)
	wait := func(reason, why string) (*v1alpha1.Kubeconfig, *result.Result[v1alpha1.KubeconfigStatus]) {
		b := builder.New(kc.GetName(), kc.GetNamespace(), st)
		if b.KeepAll() {
			why += "; everything composed so far is kept unchanged meanwhile"
		}
		return nil, &result.Result[v1alpha1.KubeconfigStatus]{
			Desired:      b.Set,
			Requirements: []result.Requirement{req},
			Status:       v1alpha1.KubeconfigStatus{Phase: v1alpha1.KubeconfigPhaseProvisioning, SecretName: kc.Spec.SecretRef.Name},
			Conditions:   []condition.Condition{{Type: condition.TypeInputsReady, Reason: reason, Message: why + "."}},
			NotReady:     true,
		}
	}
	if !st.Answered(req.Key()) {
		return wait(condition.ReasonMissing, "Reading Secret "+ref.Name+" (spec.target.referenceSecretRef.name)")
	}
	l := st.Secret(ref.Name)
	if !l.Found {
		return wait(condition.ReasonMissing, fmt.Sprintf("Secret %s (spec.target.referenceSecretRef.name) does not exist in namespace %s; copy the reference Secret of the installation's FrontProxy (<name>-reference) here", ref.Name, kc.GetNamespace()))
	}
	target, err := sharing.KubeconfigTarget(l.Data, kc.GetNamespace())
	if err != nil {
		return wait(ReasonInvalid, fmt.Sprintf("Secret %s (spec.target.referenceSecretRef.name): %v", ref.Name, err))
	}
	resolved := *kc
	resolved.Spec.Target = target
	return &resolved, nil
}
