package kcpinstallation

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// frontProxyService is the Service template of a front-proxy whose Service is of type svc:
// the type, and what spec.frontProxies[].service adds to it.
func frontProxyService(svc corev1.ServiceType, s *v1alpha1.FrontProxyService) *v1alpha1.ServiceTemplate {
	t := &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{Type: svc}}
	if s == nil {
		return t
	}
	if len(s.Annotations) > 0 {
		t.Metadata = &v1alpha1.ServiceMetadataTemplate{Annotations: s.Annotations}
	}
	t.Spec.LoadBalancerIP, t.Spec.LoadBalancerClass = s.LoadBalancerIP, s.LoadBalancerClass
	t.Spec.NodePort, t.Spec.ExternalTrafficPolicy = s.NodePort, s.ExternalTrafficPolicy
	return t
}

// checkService refuses a front-proxy Service setting its type does not take, naming the
// field: Kubernetes would refuse the Service (a node port on a ClusterIP Service) or ignore
// the setting (a load balancer's address on a NodePort Service), and either way the
// front-proxy would not be reached where the user expects.
func checkService(path *field.Path, svc corev1.ServiceType, s *v1alpha1.FrontProxyService) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	needs := func(name string, value any, set bool, types ...corev1.ServiceType) {
		if !set {
			return
		}
		if slices.Contains(types, svc) {
			return
		}
		errs = append(errs, field.Invalid(path.Child(name), value, fmt.Sprintf(
			"the front-proxy's Service is of type %s, which takes no %s: set serviceType to %v (without exposure), or remove %s", svc, name, types, name)))
	}
	lb, np := corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort
	needs("loadBalancerIP", s.LoadBalancerIP, s.LoadBalancerIP != "", lb)
	needs("loadBalancerClass", s.LoadBalancerClass, s.LoadBalancerClass != "", lb)
	needs("nodePort", s.NodePort, s.NodePort != 0, np, lb)
	needs("externalTrafficPolicy", s.ExternalTrafficPolicy, s.ExternalTrafficPolicy != "", np, lb)
	return errs
}
