package sharing

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// KubeconfigTarget returns the FrontProxy or RootShard a reference Secret's content names, as the
// target a Kubeconfig of namespace ns would name it directly: a FrontProxy or RootShard of
// ns, or a FrontProxy of another namespace (a shared installation, reached through the
// FrontProxy its Tenant shares). It says why not when the Secret names neither.
func KubeconfigTarget(data map[string][]byte, ns string) (v1alpha1.KubeconfigTarget, error) {
	r, err := reference.Parse(data)
	if err != nil {
		return v1alpha1.KubeconfigTarget{}, fmt.Errorf("it is not a reference Secret: %w", err)
	}
	switch {
	case r.Kind == v1alpha1.KindFrontProxy && r.Namespace == ns:
		return v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: r.Name}}, nil
	case r.Kind == v1alpha1.KindRootShard && r.Namespace == ns:
		return v1alpha1.KubeconfigTarget{RootShardRef: &corev1.LocalObjectReference{Name: r.Name}}, nil
	case r.Kind == v1alpha1.KindFrontProxy:
		return v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: r.Name, Namespace: r.Namespace}}, nil
	case r.Kind == v1alpha1.KindRootShard:
		return v1alpha1.KubeconfigTarget{}, fmt.Errorf("it names RootShard %s/%s: a kcp installation of another namespace is reached through the FrontProxy its Tenant shares; use that FrontProxy's reference Secret", r.Namespace, r.Name)
	}
	return v1alpha1.KubeconfigTarget{}, fmt.Errorf("it names %s %s/%s: a kubeconfig reaches a RootShard or a FrontProxy", r.Kind, r.Namespace, r.Name)
}
