package kubeconfigfile

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// SecretKey is the key of the kubeconfig in the Secret a Kubeconfig XR writes.
const SecretKey = "kubeconfig"

// Secret is the Secret a Kubeconfig XR (owner) writes its kubeconfig file to, under
// SecretKey.
func Secret(name, namespace, owner string, kubeconfig []byte) *corev1.Secret {
	s := OwnedSecret(name, namespace, owner)
	s.Type = corev1.SecretTypeOpaque
	s.Data = map[string][]byte{SecretKey: kubeconfig}
	return s
}

// OwnedSecret is only the metadata of a Secret a Kubeconfig XR (owner) takes over, labelled
// as its own: no type, which cannot change, and no data, which cert-manager writes.
func OwnedSecret(name, namespace, owner string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{names.LabelOwnerKubeconfig: owner}},
	}
}
