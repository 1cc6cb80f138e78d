package check

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestTemplates(t *testing.T) {
	d := func(s string) *metav1.Duration {
		v, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		return &metav1.Duration{Duration: v}
	}
	certs := func(key string, s v1alpha1.CertificateSpecTemplate) v1alpha1.FrontProxySpec {
		return v1alpha1.FrontProxySpec{CertificateTemplates: v1alpha1.CertificateTemplateMap{key: {Spec: &s}}}
	}
	cases := map[string]struct {
		reason string
		spec   v1alpha1.Spec
		want   []string
	}{
		"Valid": {
			reason: "Valid labels, annotations, lifetimes and key sizes pass.",
			spec: v1alpha1.FrontProxySpec{
				CertificateTemplates: v1alpha1.CertificateTemplateMap{"server": {
					Metadata: &v1alpha1.CertificateMetadataTemplate{Labels: map[string]string{"team": "a"}},
					Spec: &v1alpha1.CertificateSpecTemplate{
						DNSNames: []string{"kcp.example.com"}, Duration: d("24h"), RenewBefore: d("8h"),
						PrivateKey:     &v1alpha1.CertificatePrivateKeyTemplate{Algorithm: "ECDSA", Size: 384},
						SecretTemplate: &v1alpha1.CertificateSecretTemplate{Annotations: map[string]string{"cert-manager.io/allow-direct-injection": "true"}},
					},
				}},
				DeploymentTemplate: &v1alpha1.DeploymentTemplate{Metadata: &v1alpha1.DeploymentMetadataTemplate{Annotations: map[string]string{"example.com/owner": "team a"}}},
			},
		},
		"NamesAndAddresses": {
			reason: "A template's DNS names and IP addresses are checked where they are written.",
			spec:   certs("server", v1alpha1.CertificateSpecTemplate{DNSNames: []string{"-bad-"}, IPAddresses: []string{"10.0.0.300"}}),
			want: []string{
				`spec.certificateTemplates[server].spec.dnsNames[0]: Invalid value: "-bad-": must be a DNS name such as kcp.example.com or *.example.com`,
				`spec.certificateTemplates[server].spec.ipAddresses[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			},
		},
		"DurationUnderAnHour": {
			reason: "cert-manager refuses certificates shorter than an hour.",
			spec:   certs("server", v1alpha1.CertificateSpecTemplate{Duration: d("30m")}),
			want:   []string{`spec.certificateTemplates[server].spec.duration: Invalid value: "30m0s": must be at least 1h0m0s: cert-manager rejects shorter certificates`},
		},
		"RenewBeforeUnderFiveMinutes": {
			reason: "cert-manager refuses renewBefore under five minutes.",
			spec:   certs("root-ca", v1alpha1.CertificateSpecTemplate{RenewBefore: d("1m")}),
			want:   []string{`spec.certificateTemplates[root-ca].spec.renewBefore: Invalid value: "1m0s": must be at least 5m0s: cert-manager rejects shorter ones`},
		},
		"RenewBeforeNotShorterThanDuration": {
			reason: "A certificate renewed before it was issued: cert-manager refuses it.",
			spec:   certs("server", v1alpha1.CertificateSpecTemplate{Duration: d("24h"), RenewBefore: d("48h")}),
			want:   []string{`spec.certificateTemplates[server].spec.renewBefore: Invalid value: "48h0m0s": must be shorter than spec.duration (24h0m0s)`},
		},
		"KeySizes": {
			reason: "An RSA key (the default algorithm) of 1024 bits and an ECDSA key of 512 bits do not exist for cert-manager.",
			spec: v1alpha1.FrontProxySpec{CertificateTemplates: v1alpha1.CertificateTemplateMap{
				"kubeconfig": {Spec: &v1alpha1.CertificateSpecTemplate{PrivateKey: &v1alpha1.CertificatePrivateKeyTemplate{Size: 1024}}},
				"server":     {Spec: &v1alpha1.CertificateSpecTemplate{PrivateKey: &v1alpha1.CertificatePrivateKeyTemplate{Algorithm: "ECDSA", Size: 512}}},
			}},
			want: []string{
				`spec.certificateTemplates[kubeconfig].spec.privateKey.size: Invalid value: 1024: must be between 2048 and 8192 for an RSA key`,
				`spec.certificateTemplates[server].spec.privateKey.size: Unsupported value: 512: supported values: "256", "384", "521"`,
			},
		},
		"CertManagerAnnotationOnTheSecret": {
			reason: "cert-manager.io/ annotations on the Secret are cert-manager's own.",
			spec: certs("server", v1alpha1.CertificateSpecTemplate{SecretTemplate: &v1alpha1.CertificateSecretTemplate{
				Annotations: map[string]string{"cert-manager.io/issuer-name": "other"},
			}}),
			want: []string{`spec.certificateTemplates[server].spec.secretTemplate.annotations[cert-manager.io/issuer-name]: Invalid value: "cert-manager.io/issuer-name": cert-manager.io/ annotations are cert-manager's own`},
		},
		"CrossplaneAnnotationOnTheSecret": {
			reason: "A crossplane.io/composition-resource-name written onto a Secret could name it as another composed object of an XR that refers to it: Crossplane's own.",
			spec: certs("server", v1alpha1.CertificateSpecTemplate{SecretTemplate: &v1alpha1.CertificateSecretTemplate{
				Annotations: map[string]string{"crossplane.io/composition-resource-name": "secret-kubeconfig-cert-admin"},
			}}),
			want: []string{`spec.certificateTemplates[server].spec.secretTemplate.annotations[crossplane.io/composition-resource-name]: Invalid value: "crossplane.io/composition-resource-name": crossplane.io/ annotations are Crossplane's own: remove it`},
		},
		"InvalidLabelsEverywhere": {
			reason: "Label keys and values the API server refuses, in every metadata template and node selector, wherever it sits.",
			spec: v1alpha1.RootShardSpec{
				CommonShardSpec: v1alpha1.CommonShardSpec{
					ServiceTemplate: &v1alpha1.ServiceTemplate{Metadata: &v1alpha1.ServiceMetadataTemplate{Labels: map[string]string{"bad key!": "x"}}},
					DeploymentTemplate: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
						Metadata: &v1alpha1.PodMetadataTemplate{Labels: map[string]string{"tier": "not a value"}},
						Spec:     &v1alpha1.PodSpecTemplate{NodeSelector: map[string]string{"zone": "eu west"}},
					}}},
				},
				Proxy: &v1alpha1.RootShardProxySpec{CertificateTemplates: v1alpha1.CertificateTemplateMap{"server": {Metadata: &v1alpha1.CertificateMetadataTemplate{Annotations: map[string]string{"bad key": "x"}}}}},
			},
			want: []string{
				`spec.deploymentTemplate.spec.template.metadata.labels: Invalid value: "not a value"`,
				`spec.deploymentTemplate.spec.template.spec.nodeSelector: Invalid value: "eu west"`,
				`spec.proxy.certificateTemplates[server].metadata.annotations: Invalid value: "bad key"`,
				`spec.serviceTemplate.metadata.labels: Invalid value: "bad key!"`,
			},
		},
		"ExtraPodMetadataAndServiceAnnotations": {
			reason: "A component's extra pod labels and annotations and a front-proxy's Service annotations are refused where they are written, naming the key, not when the API server refuses the Deployment or Service.",
			spec: v1alpha1.KcpInstallationSpec{
				RootShard: &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{
					PodLabels:      map[string]string{"team": "a b"},
					PodAnnotations: map[string]string{"not/a/key": "x"},
				}},
				FrontProxies: []v1alpha1.InstallationFrontProxy{{
					Name:    "public",
					Service: &v1alpha1.FrontProxyService{Annotations: map[string]string{"lb key": "x"}},
					Extra:   &v1alpha1.ComponentExtra{PodLabels: map[string]string{"ok.example.com/team": "a", "-bad": "x"}},
				}},
			},
			want: []string{
				`spec.frontProxies[0].extra.podLabels: Invalid value: "-bad"`,
				`spec.frontProxies[0].service.annotations: Invalid value: "lb key"`,
				`spec.rootShard.extra.podAnnotations: Invalid value: "not/a/key"`,
				`spec.rootShard.extra.podLabels: Invalid value: "a b"`,
			},
		},
		"PodUserAndGroups": {
			reason: "Root's user or group, an ID Kubernetes refuses and a supplemental group listed twice are refused where they are written, for a per-kind XR's template and an installation's extra alike; IDs above 0 pass.",
			spec: v1alpha1.KcpInstallationSpec{
				RootShard: &v1alpha1.InstallationRootShard{Extra: &v1alpha1.ComponentExtra{
					SecurityContext: &v1alpha1.PodSecurity{RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](2147483648)},
				}},
				FrontProxies: []v1alpha1.InstallationFrontProxy{{
					Name:  "public",
					Extra: &v1alpha1.ComponentExtra{SecurityContext: &v1alpha1.PodSecurity{RunAsUser: ptr.To[int64](1000), SupplementalGroups: []int64{5000, 0, 5000}}},
				}},
			},
			want: []string{
				`spec.frontProxies[0].extra.securityContext.supplementalGroups[1]: Invalid value: 0: must be between 1 and 2147483647`,
				`spec.frontProxies[0].extra.securityContext.supplementalGroups[2]: Duplicate value: 5000`,
				`spec.rootShard.extra.securityContext.runAsUser: Invalid value: 0: must be between 1 and 2147483647: 0 is root's`,
				`spec.rootShard.extra.securityContext.fsGroup: Invalid value: 2147483648: must be between 1`,
			},
		},
		"PodUserOfAPerKindXR": {
			reason: "A RootShard's deployment template is checked the same way.",
			spec: v1alpha1.RootShardSpec{DeploymentTemplate: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
				Spec: &v1alpha1.PodSpecTemplate{SecurityContext: &v1alpha1.PodSecurity{RunAsGroup: ptr.To[int64](0)}},
			}}}},
			want: []string{`spec.deploymentTemplate.spec.template.spec.securityContext.runAsGroup: Invalid value: 0`},
		},
		"Scheduling": {
			reason: "Tolerations, spread constraints and a priority class the API server would refuse on the Deployment are refused where they are written, in a KcpInstallation's scheduling blocks too.",
			spec: v1alpha1.KcpInstallationSpec{
				Scheduling: &v1alpha1.Scheduling{
					PriorityClassName: "Critical_Class",
					Tolerations: []corev1.Toleration{
						{Operator: corev1.TolerationOpEqual, Value: "x"},
						{Key: "dedicated", Operator: corev1.TolerationOpExists, Value: "kcp", Effect: "Sometimes"},
					},
				},
				RootShard: &v1alpha1.InstallationRootShard{Scheduling: &v1alpha1.Scheduling{
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew: 0, TopologyKey: "zone", WhenUnsatisfiable: "Maybe",
						LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"app": "kcp"}},
						MatchLabelKeys: []string{"app"},
					}},
				}},
			},
			want: []string{
				`spec.rootShard.scheduling.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be at least 1`,
				`spec.rootShard.scheduling.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe"`,
				`spec.rootShard.scheduling.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "app": exists in labelSelector.matchLabels too`,
				`spec.scheduling.priorityClassName: Invalid value: "Critical_Class"`,
				`spec.scheduling.tolerations[0].operator: Invalid value: "Equal": must be Exists when key is empty`,
				`spec.scheduling.tolerations[1].value: Invalid value: "kcp": must be empty when operator is Exists`,
				`spec.scheduling.tolerations[1].effect: Unsupported value: "Sometimes"`,
			},
		},
		"ValidScheduling": {
			reason: "What the docs show passes.",
			spec: v1alpha1.KcpInstallationSpec{Scheduling: &v1alpha1.Scheduling{
				NodeSelector:      map[string]string{"node-pool": "kcp"},
				PriorityClassName: "kcp-critical",
				Tolerations:       []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "kcp", Effect: corev1.TaintEffectNoSchedule}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": "etcd"}},
				}},
			}},
		},
		"Monitoring": {
			reason: "A PodMonitor's labels and scrape interval are refused where they are written, not on the PodMonitor.",
			spec: v1alpha1.KcpInstallationSpec{Monitoring: &v1alpha1.Monitoring{
				Enabled: true, Interval: "30 seconds", Labels: map[string]string{"release": "-bad-"},
			}},
			want: []string{
				`spec.monitoring.labels: Invalid value: "-bad-"`,
				`spec.monitoring.interval: Invalid value: "30 seconds": must be a Prometheus duration such as 30s, 1m or 1h30m`,
			},
		},
		"MonitoringValid": {
			reason: "Prometheus durations and valid labels pass.",
			spec:   v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{Monitoring: &v1alpha1.Monitoring{Enabled: true, Interval: "1m30s", Labels: map[string]string{"release": "prometheus"}}}},
		},
		"KubeconfigTemplate": {
			reason: "A Kubeconfig's single certificateTemplate is checked like a map's.",
			spec:   v1alpha1.KubeconfigSpec{CertificateTemplate: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{RenewBefore: d("1m")}}, SecretRef: corev1.LocalObjectReference{Name: "k"}},
			want:   []string{`spec.certificateTemplate.spec.renewBefore: Invalid value: "1m0s": must be at least 5m0s`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := messages(Templates(tc.spec))
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nTemplates(...): got %d errors, want %d:\n%s", tc.reason, len(got), len(tc.want), cmp.Diff(tc.want, got))
			}
			for i := range got {
				if len(got[i]) < len(tc.want[i]) || got[i][:len(tc.want[i])] != tc.want[i] {
					t.Errorf("%s\nTemplates(...): error %d\n got: %s\nwant: %s...", tc.reason, i, got[i], tc.want[i])
				}
			}
		})
	}
}
