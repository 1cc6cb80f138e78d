package workload

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestService(t *testing.T) {
	ports := []corev1.ServicePort{
		HTTPSServicePort("https", 6443, 6443),
		HTTPSServicePort("https-virtual-workspaces", 6444, 6444),
	}
	wantPorts := []corev1.ServicePort{
		{Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443, TargetPort: intstr.FromInt32(6443), AppProtocol: ptr.To("https")},
		{Name: "https-virtual-workspaces", Protocol: corev1.ProtocolTCP, Port: 6444, TargetPort: intstr.FromInt32(6444), AppProtocol: ptr.To("https")},
	}
	base := func() *corev1.Service {
		return &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: "root-kcp", Namespace: "kcp", Labels: testLabels},
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Selector: testLabels,
				Ports:    wantPorts,
			},
		}
	}
	cases := map[string]struct {
		reason   string
		template *v1alpha1.ServiceTemplate
		want     func(*corev1.Service)
	}{
		"NoTemplate": {
			reason: "A ClusterIP Service labelled and selecting with the resource labels, https ports with appProtocol https.",
			want:   func(*corev1.Service) {},
		},
		"EmptyTemplate": {
			reason: "An empty template changes nothing.",
			template: &v1alpha1.ServiceTemplate{
				Metadata: &v1alpha1.ServiceMetadataTemplate{},
				Spec:     &v1alpha1.ServiceSpecTemplate{},
			},
			want: func(*corev1.Service) {},
		},
		"Everything": {
			reason: "The template sets type and clusterIP; its labels and annotations merge with generated keys winning; the selector is unchanged.",
			template: &v1alpha1.ServiceTemplate{
				Metadata: &v1alpha1.ServiceMetadataTemplate{
					Labels:      map[string]string{"expose": "yes", "app.kubernetes.io/name": "hijack"},
					Annotations: map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"},
				},
				Spec: &v1alpha1.ServiceSpecTemplate{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.42"},
			},
			want: func(s *corev1.Service) {
				s.Labels = withLabels(map[string]string{"expose": "yes"})
				s.Annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}
				s.Spec.Type = corev1.ServiceTypeLoadBalancer
				s.Spec.ClusterIP = "10.96.0.42"
			},
		},
		"LoadBalancer": {
			reason: "A load balancer's address, class, node port and traffic policy reach the Service; the node port goes to the first (https) port only.",
			template: &v1alpha1.ServiceTemplate{
				Spec: &v1alpha1.ServiceSpecTemplate{
					Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: "203.0.113.7", LoadBalancerClass: "example.com/lb",
					NodePort: 30443, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
				},
			},
			want: func(s *corev1.Service) {
				s.Spec.Type = corev1.ServiceTypeLoadBalancer
				s.Spec.LoadBalancerIP = "203.0.113.7"
				s.Spec.LoadBalancerClass = ptr.To("example.com/lb")
				s.Spec.Ports = slices.Clone(wantPorts)
				s.Spec.Ports[0].NodePort = 30443
				s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			},
		},
		"Headless": {
			reason: "clusterIP None alone makes a headless ClusterIP Service.",
			template: &v1alpha1.ServiceTemplate{
				Spec: &v1alpha1.ServiceSpecTemplate{ClusterIP: "None"},
			},
			want: func(s *corev1.Service) { s.Spec.ClusterIP = "None" },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := base()
			tc.want(want)
			got := Service("root-kcp", "kcp", testLabels, ports, tc.template)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nService(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestServiceDoesNotAliasLabels(t *testing.T) {
	labels := map[string]string{"app.kubernetes.io/instance": "root"}
	s := Service("x", "kcp", labels, nil, nil)
	s.Labels["a"] = "1"
	s.Spec.Selector["b"] = "2"
	if diff := cmp.Diff(map[string]string{"app.kubernetes.io/instance": "root"}, labels); diff != "" {
		t.Errorf("The Service's labels and selector are copies of the caller's map.\nService(...): -want, +got:\n%s", diff)
	}
}
