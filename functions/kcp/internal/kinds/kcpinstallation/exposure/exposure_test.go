package exposure

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestObject(t *testing.T) {
	r := Route{
		Name: "dev-public", Namespace: "team-a", Labels: map[string]string{"kcp.crossplane.io/installation": "dev"},
		Hostname: "kcp.team-a.example.com", Service: "dev-public-front-proxy", Port: 6443,
	}
	meta := metav1.ObjectMeta{Name: "dev-public", Namespace: "team-a", Labels: map[string]string{"kcp.crossplane.io/installation": "dev"}}
	route := func(parent gatewayv1.ParentReference) *gatewayv1.TLSRoute {
		return &gatewayv1.TLSRoute{
			TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "TLSRoute"},
			ObjectMeta: meta,
			Spec: gatewayv1.TLSRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
				Hostnames:       []gatewayv1.Hostname{"kcp.team-a.example.com"},
				Rules: []gatewayv1.TLSRouteRule{{BackendRefs: []gatewayv1.BackendRef{{
					BackendObjectReference: gatewayv1.BackendObjectReference{Name: "dev-public-front-proxy", Port: ptr.To[gatewayv1.PortNumber](6443)},
				}}}},
			},
		}
	}
	ingress := func(annotations map[string]string, class *string) *networkingv1.Ingress {
		return &networkingv1.Ingress{
			TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
			ObjectMeta: metav1.ObjectMeta{Name: meta.Name, Namespace: meta.Namespace, Labels: meta.Labels, Annotations: annotations},
			Spec: networkingv1.IngressSpec{
				IngressClassName: class,
				TLS:              []networkingv1.IngressTLS{{Hosts: []string{"kcp.team-a.example.com"}}},
				Rules: []networkingv1.IngressRule{{
					Host: "kcp.team-a.example.com",
					IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
						Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix),
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: "dev-public-front-proxy", Port: networkingv1.ServiceBackendPort{Number: 6443},
						}},
					}}}},
				}},
			},
		}
	}
	cases := map[string]struct {
		reason string
		e      v1alpha1.FrontProxyExposure
		want   runtime.Object
	}{
		"GatewayOfItsNamespace": {
			reason: "A TLSRoute for the hostname, to every listener of the Gateway that accepts it; the namespace is left out when it is the route's.",
			e:      v1alpha1.FrontProxyExposure{Gateway: &v1alpha1.GatewayExposure{Name: "kcp", Namespace: "team-a"}},
			want:   route(gatewayv1.ParentReference{Name: "kcp"}),
		},
		"SharedGatewayListener": {
			reason: "A Gateway of another namespace and one listener of it.",
			e:      v1alpha1.FrontProxyExposure{Gateway: &v1alpha1.GatewayExposure{Name: "shared", Namespace: "gateways", SectionName: "tls-passthrough"}},
			want: route(gatewayv1.ParentReference{
				Name: "shared", Namespace: ptr.To[gatewayv1.Namespace]("gateways"), SectionName: ptr.To[gatewayv1.SectionName]("tls-passthrough"),
			}),
		},
		"IngressNginx": {
			reason: "ingress-nginx passes TLS through with ssl-passthrough and dials the backend over TLS; no class means the default class.",
			e:      v1alpha1.FrontProxyExposure{Ingress: &v1alpha1.IngressExposure{Controller: v1alpha1.IngressNginx}},
			want: ingress(map[string]string{
				"nginx.ingress.kubernetes.io/ssl-passthrough": "true", "nginx.ingress.kubernetes.io/backend-protocol": "HTTPS",
			}, nil),
		},
		"HAProxy": {
			reason: "HAProxy's annotation and the named class.",
			e:      v1alpha1.FrontProxyExposure{Ingress: &v1alpha1.IngressExposure{Controller: v1alpha1.HAProxy, ClassName: "haproxy"}},
			want:   ingress(map[string]string{"haproxy.org/ssl-passthrough": "true"}, ptr.To("haproxy")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, r.Object(&tc.e)); diff != "" {
				t.Errorf("%s\nObject(): -want, +got:\n%s", tc.reason, diff)
			}
			if got, want := Kind(&tc.e)+" "+APIVersion(&tc.e), tc.want.GetObjectKind().GroupVersionKind().Kind+" "+tc.want.GetObjectKind().GroupVersionKind().GroupVersion().String(); got != want {
				t.Errorf("%s\nKind() APIVersion() = %s, want %s", tc.reason, got, want)
			}
		})
	}
}

func TestServiceType(t *testing.T) {
	exposed := &v1alpha1.FrontProxyExposure{Gateway: &v1alpha1.GatewayExposure{Name: "kcp"}}
	cases := map[string]struct {
		reason string
		e      *v1alpha1.FrontProxyExposure
		set    corev1.ServiceType
		want   corev1.ServiceType
	}{
		"Default":     {reason: "A front-proxy of its own is a LoadBalancer.", want: corev1.ServiceTypeLoadBalancer},
		"Exposed":     {reason: "Behind a Gateway or Ingress no address of its own is needed.", e: exposed, want: corev1.ServiceTypeClusterIP},
		"UserDecides": {reason: "The user's type wins.", e: exposed, set: corev1.ServiceTypeNodePort, want: corev1.ServiceTypeNodePort},
		"UserDefault": {reason: "The user's type wins without exposure too.", set: corev1.ServiceTypeClusterIP, want: corev1.ServiceTypeClusterIP},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ServiceType(tc.e, tc.set); got != tc.want {
				t.Errorf("%s\nServiceType() = %s, want %s", tc.reason, got, tc.want)
			}
		})
	}
}
