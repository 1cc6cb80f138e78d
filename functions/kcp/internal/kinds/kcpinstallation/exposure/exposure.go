// Package exposure composes what reaches a KcpInstallation's front-proxy from outside the
// cluster when it is not a Service of its own: a Gateway API TLSRoute or an Ingress, each
// passing TLS through to the front-proxy's Service. The front-proxy keeps terminating TLS,
// since kcp authenticates clients by their certificates.
package exposure

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// IngressPort is where Ingress controllers pass TLS through: clients use it.
const IngressPort = 443

// Route is one front-proxy's way in.
type Route struct {
	// Name of the TLSRoute or Ingress: the FrontProxy XR's.
	Name      string
	Namespace string
	Labels    map[string]string
	// Hostname clients use (the front-proxy's external hostname).
	Hostname string
	// Service and Port of the front-proxy: the port its Service listens on.
	Service string
	Port    int32
}

// Kind of what Compose returns for an exposure, for reading it back.
func Kind(e *v1alpha1.FrontProxyExposure) string {
	if e.Gateway != nil {
		return "TLSRoute"
	}
	return "Ingress"
}

// APIVersion of what Object returns for an exposure.
func APIVersion(e *v1alpha1.FrontProxyExposure) string {
	if e.Gateway != nil {
		return gatewayv1.GroupVersion.String()
	}
	return networkingv1.SchemeGroupVersion.String()
}

// Object is the TLSRoute or Ingress of the exposure.
func (r Route) Object(e *v1alpha1.FrontProxyExposure) runtime.Object {
	if e.Gateway != nil {
		return r.tlsRoute(*e.Gateway)
	}
	return r.ingress(*e.Ingress)
}

// tlsRoute attaches the hostname to the Gateway and sends its connections, TLS untouched, to
// the front-proxy's Service.
func (r Route) tlsRoute(g v1alpha1.GatewayExposure) *gatewayv1.TLSRoute {
	parent := gatewayv1.ParentReference{Name: gatewayv1.ObjectName(g.Name)}
	if g.Namespace != "" && g.Namespace != r.Namespace {
		ns := gatewayv1.Namespace(g.Namespace)
		parent.Namespace = &ns
	}
	if g.SectionName != "" {
		section := gatewayv1.SectionName(g.SectionName)
		parent.SectionName = &section
	}
	port := r.Port // a gatewayv1.PortNumber
	return &gatewayv1.TLSRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "TLSRoute"},
		ObjectMeta: metav1.ObjectMeta{Name: r.Name, Namespace: r.Namespace, Labels: maps.Clone(r.Labels)},
		Spec: gatewayv1.TLSRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(r.Hostname)},
			Rules: []gatewayv1.TLSRouteRule{{BackendRefs: []gatewayv1.BackendRef{{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(r.Service), Port: &port},
			}}}},
		},
	}
}

// passthrough are the annotations that make each controller pass TLS through on port 443
// and connect to the backend over TLS.
var passthrough = map[v1alpha1.IngressController]map[string]string{
	v1alpha1.IngressNginx: {
		"nginx.ingress.kubernetes.io/ssl-passthrough":  "true",
		"nginx.ingress.kubernetes.io/backend-protocol": "HTTPS",
	},
	v1alpha1.HAProxy: {
		"haproxy.org/ssl-passthrough": "true",
	},
}

// ingress routes the hostname to the front-proxy's Service. The tls entry names no Secret:
// with passthrough the controller never terminates TLS, and the entry only tells it the host
// is served over TLS.
func (r Route) ingress(i v1alpha1.IngressExposure) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	var class *string
	if i.ClassName != "" {
		class = &i.ClassName
	}
	return &networkingv1.Ingress{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{
			Name: r.Name, Namespace: r.Namespace, Labels: maps.Clone(r.Labels),
			Annotations: maps.Clone(passthrough[i.Controller]),
		},
		Spec: networkingv1.IngressSpec{
			IngressClassName: class,
			TLS:              []networkingv1.IngressTLS{{Hosts: []string{r.Hostname}}},
			Rules: []networkingv1.IngressRule{{
				Host: r.Hostname,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
					Path: "/", PathType: &prefix,
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: r.Service, Port: networkingv1.ServiceBackendPort{Number: r.Port},
					}},
				}}}},
			}},
		},
	}
}

// ServiceType is the front-proxy's Service type: the user's, else ClusterIP when something
// else exposes it, else LoadBalancer.
func ServiceType(e *v1alpha1.FrontProxyExposure, set corev1.ServiceType) corev1.ServiceType {
	switch {
	case set != "":
		return set
	case e != nil:
		return corev1.ServiceTypeClusterIP
	default:
		return corev1.ServiceTypeLoadBalancer
	}
}
