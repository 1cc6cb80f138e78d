package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// TestExposure: a front-proxy with exposure gets a TLSRoute or an Ingress next to its
// FrontProxy XR, and a ClusterIP Service unless the user chose a type; one without keeps its
// LoadBalancer and gets neither.
func TestExposure(t *testing.T) {
	type want struct {
		serviceType corev1.ServiceType
		routeKind   string // "" for none
		errs        []string
	}
	gw := &v1alpha1.FrontProxyExposure{Gateway: &v1alpha1.GatewayExposure{Name: "kcp"}}
	nginx := &v1alpha1.FrontProxyExposure{Ingress: &v1alpha1.IngressExposure{Controller: v1alpha1.IngressNginx}}
	cases := map[string]struct {
		reason string
		fp     v1alpha1.InstallationFrontProxy
		port   uint32
		want   want
	}{
		"Service": {
			reason: "Without exposure: a LoadBalancer Service and nothing else.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public"},
			want:   want{serviceType: corev1.ServiceTypeLoadBalancer},
		},
		"Gateway": {
			reason: "A TLSRoute, and a ClusterIP Service behind it.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", Exposure: gw},
			port:   443,
			want:   want{serviceType: corev1.ServiceTypeClusterIP, routeKind: "TLSRoute"},
		},
		"GatewayKeepsTheUsersServiceType": {
			reason: "A Service type the user set is kept.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", Exposure: gw, ServiceType: corev1.ServiceTypeNodePort},
			want:   want{serviceType: corev1.ServiceTypeNodePort, routeKind: "TLSRoute"},
		},
		"Ingress": {
			reason: "An Ingress on port 443.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", Exposure: nginx},
			port:   443,
			want:   want{serviceType: corev1.ServiceTypeClusterIP, routeKind: "Ingress"},
		},
		"IngressOnAnotherPort": {
			reason: "Ingress controllers pass TLS through on 443 only: a kubeconfig for 6443 would never connect.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", Exposure: nginx},
			want:   want{errs: []string{"spec.external.port: Invalid value: 6443: an Ingress controller passes TLS through on port 443 only"}},
		},
		"IngressOnItsOwnAddress": {
			reason: "The port is named where it is set: the front-proxy's own address.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", Exposure: nginx, External: &v1alpha1.InstallationExternal{Hostname: "kcp.corp.example.com", Port: 8443}},
			port:   443,
			want:   want{errs: []string{"spec.frontProxies[0].external.port: Invalid value: 8443"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.External.Port = tc.port
			inst.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{tc.fp}
			r, errs := Compose(inst, observed.New(nil), frontProxyNameLength)
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if len(gotErrs) != len(tc.want.errs) || (len(gotErrs) > 0 && !strings.HasPrefix(gotErrs[0], tc.want.errs[0])) {
				t.Fatalf("%s\nCompose(...) errors: got %q, want %q", tc.reason, gotErrs, tc.want.errs)
			}
			if len(errs) > 0 {
				return
			}
			svc := childSpec[v1alpha1.FrontProxySpec](t, r, "team-a-public").ServiceTemplate.Spec.Type
			routeKind := ""
			if o, ok := r.Desired.Get(resource.Name("exposure-team-a-public")); ok {
				routeKind = o.Resource.GetObjectKind().GroupVersionKind().Kind
				if o.Ready != resource.ReadyFalse {
					t.Errorf("%s\nthe %s is ready (%v) before it exists", tc.reason, routeKind, o.Ready)
				}
				// The FrontProxy's Service listens on the external port, 6443 when unset.
				wantPort := int32(6443)
				if tc.port > 0 {
					wantPort = int32(tc.port)
				}
				var gotPort int32
				switch r := o.Resource.(type) {
				case *gatewayv1.TLSRoute:
					gotPort = *r.Spec.Rules[0].BackendRefs[0].Port
				case *networkingv1.Ingress:
					gotPort = r.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port.Number
				}
				if gotPort != wantPort {
					t.Errorf("%s\nthe %s sends to port %d, want %d, the port the front-proxy's Service listens on", tc.reason, routeKind, gotPort, wantPort)
				}
			}
			if diff := cmp.Diff(tc.want, want{serviceType: svc, routeKind: routeKind}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nService type and route: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
