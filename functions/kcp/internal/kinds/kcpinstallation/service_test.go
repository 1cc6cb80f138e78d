package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
)

// TestFrontProxyService: spec.frontProxies[].service reaches the FrontProxy's Service
// template beside the type, and a setting the Service's type does not take is refused
// naming the field, before anything is composed.
func TestFrontProxyService(t *testing.T) {
	lb := &v1alpha1.FrontProxyService{
		Annotations:    map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"},
		LoadBalancerIP: "203.0.113.7", LoadBalancerClass: "example.com/lb", NodePort: 30443,
		ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
	}
	type frontProxy struct {
		ServiceTemplate *v1alpha1.ServiceTemplate
	}
	cases := map[string]struct {
		reason string
		fp     v1alpha1.InstallationFrontProxy
		want   *v1alpha1.ServiceTemplate
		errs   []string // substrings, one per error, in order
	}{
		"None": {
			reason: "Without service the template holds the type alone, as before the field existed.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public"},
			want:   &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{Type: corev1.ServiceTypeLoadBalancer}},
		},
		"LoadBalancer": {
			reason: "Every setting reaches the template of the default LoadBalancer Service: annotations as metadata, the rest in spec.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", Service: lb},
			want: &v1alpha1.ServiceTemplate{
				Metadata: &v1alpha1.ServiceMetadataTemplate{Annotations: lb.Annotations},
				Spec: &v1alpha1.ServiceSpecTemplate{
					Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: "203.0.113.7", LoadBalancerClass: "example.com/lb",
					NodePort: 30443, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
				},
			},
		},
		"NodePort": {
			reason: "A NodePort Service takes a node port and a traffic policy.",
			fp: v1alpha1.InstallationFrontProxy{Name: "public", ServiceType: corev1.ServiceTypeNodePort, Service: &v1alpha1.FrontProxyService{
				NodePort: 30443, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
			}},
			want: &v1alpha1.ServiceTemplate{Spec: &v1alpha1.ServiceSpecTemplate{
				Type: corev1.ServiceTypeNodePort, NodePort: 30443, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
			}},
		},
		"LoadBalancerSettingsOnANodePort": {
			reason: "A load balancer's address and class mean nothing to a NodePort Service: refused naming each field.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", ServiceType: corev1.ServiceTypeNodePort, Service: lb},
			errs: []string{
				`spec.frontProxies[0].service.loadBalancerIP: Invalid value: "203.0.113.7": the front-proxy's Service is of type NodePort, which takes no loadBalancerIP`,
				`spec.frontProxies[0].service.loadBalancerClass: Invalid value: "example.com/lb": the front-proxy's Service is of type NodePort`,
			},
		},
		"EverythingOnAClusterIP": {
			reason: "A ClusterIP Service opens no node port and has no external traffic: every setting but annotations is refused.",
			fp:     v1alpha1.InstallationFrontProxy{Name: "public", ServiceType: corev1.ServiceTypeClusterIP, Service: lb},
			errs: []string{
				"spec.frontProxies[0].service.loadBalancerIP: Invalid value",
				"spec.frontProxies[0].service.loadBalancerClass: Invalid value",
				"spec.frontProxies[0].service.nodePort: Invalid value: 30443: the front-proxy's Service is of type ClusterIP, which takes no nodePort: set serviceType to [NodePort LoadBalancer] (without exposure), or remove nodePort",
				"spec.frontProxies[0].service.externalTrafficPolicy: Invalid value",
			},
		},
		"WithExposure": {
			reason: "Behind a Gateway or Ingress the Service is ClusterIP: a node port is refused, annotations are kept.",
			fp: v1alpha1.InstallationFrontProxy{Name: "public", Exposure: &v1alpha1.FrontProxyExposure{Gateway: &v1alpha1.GatewayExposure{Name: "gw"}},
				Service: &v1alpha1.FrontProxyService{Annotations: map[string]string{"a": "b"}, NodePort: 30443}},
			errs: []string{"spec.frontProxies[0].service.nodePort: Invalid value: 30443: the front-proxy's Service is of type ClusterIP"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			inst := external()
			inst.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{tc.fp}
			r, errs := Compose(inst, observed.New(nil), frontProxyNameLength)
			if len(errs) != len(tc.errs) {
				t.Fatalf("%s\nCompose(...): got %d errors %v, want %d", tc.reason, len(errs), errs.ToAggregate(), len(tc.errs))
			}
			for i, want := range tc.errs {
				if got := errs[i].Error(); !strings.Contains(got, want) {
					t.Errorf("%s\nerror %d: got %q, want it to contain %q", tc.reason, i, got, want)
				}
			}
			if len(tc.errs) > 0 {
				if n := len(r.Desired.Objects()); n != 0 {
					t.Errorf("%s\nCompose(...) desired %d objects with the spec refused, want none", tc.reason, n)
				}
				return
			}
			got := childSpec[frontProxy](t, r, "team-a-public")
			if diff := cmp.Diff(tc.want, got.ServiceTemplate); diff != "" {
				t.Errorf("%s\nthe FrontProxy's serviceTemplate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
