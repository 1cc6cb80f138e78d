package workload

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// HTTPSServicePort is a TCP port named name that forwards port to targetPort.
func HTTPSServicePort(name string, port, targetPort int32) corev1.ServicePort {
	appProtocol := "https"
	return corev1.ServicePort{
		Name:        name,
		Protocol:    corev1.ProtocolTCP,
		Port:        port,
		TargetPort:  intstr.FromInt32(targetPort),
		AppProtocol: &appProtocol,
	}
}

// Service returns a ClusterIP Service selecting labels, with the user's template applied.
func Service(name, namespace string, labels map[string]string, ports []corev1.ServicePort, t *v1alpha1.ServiceTemplate) *corev1.Service {
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: maps.Clone(labels)},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: maps.Clone(labels),
			Ports:    ports,
		},
	}
	if t == nil {
		return svc
	}
	if m := t.Metadata; m != nil {
		svc.Labels = mergeKeep(svc.Labels, m.Labels)
		svc.Annotations = mergeKeep(svc.Annotations, m.Annotations)
	}
	if s := t.Spec; s != nil {
		if s.Type != "" {
			svc.Spec.Type = s.Type
		}
		if s.ClusterIP != "" {
			svc.Spec.ClusterIP = s.ClusterIP
		}
		svc.Spec.LoadBalancerIP = s.LoadBalancerIP
		if s.LoadBalancerClass != "" {
			svc.Spec.LoadBalancerClass = &s.LoadBalancerClass
		}
		if s.NodePort != 0 && len(svc.Spec.Ports) > 0 {
			// The first port is the server's https port; the others are kcp-operator's.
			svc.Spec.Ports = slices.Clone(svc.Spec.Ports)
			svc.Spec.Ports[0].NodePort = s.NodePort
		}
		svc.Spec.ExternalTrafficPolicy = s.ExternalTrafficPolicy
	}
	return svc
}
