package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestMergeResources(t *testing.T) {
	type args struct {
		defaults corev1.ResourceRequirements
		user     *corev1.ResourceRequirements
	}
	cases := map[string]struct {
		reason string
		args   args
		want   corev1.ResourceRequirements
	}{
		"NoUser": {
			reason: "Without user resources, kcp-operator's shard defaults: requests cpu 1 memory 1Gi, limits cpu 2 memory 2Gi.",
			args:   args{defaults: ShardResources()},
			want: corev1.ResourceRequirements{
				Requests: rl("cpu", "1", "memory", "1Gi"),
				Limits:   rl("cpu", "2", "memory", "2Gi"),
			},
		},
		"KeyByKey": {
			reason: "Each key the user sets overrides the default of that key only; new keys are added.",
			args: args{
				defaults: ShardResources(),
				user: &corev1.ResourceRequirements{
					Requests: rl("cpu", "500m"),
					Limits:   rl("memory", "4Gi", "ephemeral-storage", "1Gi"),
				},
			},
			want: corev1.ResourceRequirements{
				Requests: rl("cpu", "500m", "memory", "1Gi"),
				Limits:   rl("cpu", "2", "memory", "4Gi", "ephemeral-storage", "1Gi"),
			},
		},
		"NoDefaults": {
			reason: "With no defaults the user's requirements are taken as they are.",
			args: args{
				user: &corev1.ResourceRequirements{Requests: rl("cpu", "100m")},
			},
			want: corev1.ResourceRequirements{Requests: rl("cpu", "100m")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := MergeResources(tc.args.defaults, tc.args.user)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nMergeResources(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMergeResourcesDoesNotChangeDefaults(t *testing.T) {
	defaults := ShardResources()
	MergeResources(defaults, &corev1.ResourceRequirements{Requests: rl("cpu", "3"), Limits: rl("cpu", "4")})
	if diff := cmp.Diff(ShardResources(), defaults); diff != "" {
		t.Errorf("Merging must not write through to the defaults.\nMergeResources(...): -want, +got:\n%s", diff)
	}
}

func TestHTTPSProbeAndPort(t *testing.T) {
	want := &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/readyz", Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS,
		}},
		InitialDelaySeconds: 10, PeriodSeconds: 5, TimeoutSeconds: 10, SuccessThreshold: 1, FailureThreshold: 60,
	}
	if diff := cmp.Diff(want, HTTPSProbe("/readyz", 10, 5, 10, 60)); diff != "" {
		t.Errorf("A probe is an HTTPS GET on the named https port with success threshold 1.\nHTTPSProbe(...): -want, +got:\n%s", diff)
	}
	wantPorts := []corev1.ContainerPort{{Name: "https", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}}
	if diff := cmp.Diff(wantPorts, HTTPSPort()); diff != "" {
		t.Errorf("kcp servers listen on https/6443/TCP.\nHTTPSPort(): -want, +got:\n%s", diff)
	}
}

var testLabels = map[string]string{
	"app.kubernetes.io/managed-by": "configuration-kcp",
	"app.kubernetes.io/name":       "kcp",
	"app.kubernetes.io/instance":   "root",
	"app.kubernetes.io/component":  "rootshard",
}

func withLabels(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range testLabels {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func testContainer() corev1.Container {
	return corev1.Container{Name: "kcp", Image: "ghcr.io/kcp-dev/kcp:v0.32.3", Args: []string{"--a"}}
}

// built is the Deployment Build returns without a template.
func built() *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "root-kcp", Namespace: "kcp", Labels: testLabels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: testLabels},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromInt32(1)),
					MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      testLabels,
					Annotations: map[string]string{"kcp.crossplane.io/config-hash": "abc"},
				},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{testContainer()},
					Volumes: []corev1.Volume{{Name: "kcp-ca", VolumeSource: corev1.VolumeSource{
						Secret: &corev1.SecretVolumeSource{SecretName: "root-ca"},
					}}},
					ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &restricted,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					AutomountServiceAccountToken: &noToken,
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
						{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: testLabels}, MatchLabelKeys: []string{"pod-template-hash"}},
						{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: testLabels}, MatchLabelKeys: []string{"pod-template-hash"}},
					},
				},
			},
		},
	}
}

func TestDeploymentBuild(t *testing.T) {
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
			Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"},
		}}}},
	}}}
	tolerations := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "kcp", Effect: corev1.TaintEffectNoSchedule}}
	hostAliases := []corev1.HostAlias{{IP: "10.0.0.1", Hostnames: []string{"etcd"}}}
	spread := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule}}

	cases := map[string]struct {
		reason   string
		template *v1alpha1.DeploymentTemplate
		want     func(*appsv1.Deployment)
	}{
		"NoTemplate": {
			reason: "RollingUpdate with maxSurge 1 and maxUnavailable 0; the labels on the Deployment, its selector and its pods; RuntimeDefault seccomp on the pod; pull secrets from the image; the pods spread across nodes and zones where the scheduler can.",
			want:   func(*appsv1.Deployment) {},
		},
		"EmptyTemplate": {
			reason: "An empty template changes nothing.",
			template: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
				Spec: &v1alpha1.PodSpecTemplate{},
			}}},
			want: func(*appsv1.Deployment) {},
		},
		"Metadata": {
			reason: "Template labels and annotations merge onto the Deployment and the pods; generated keys win; the selector never changes.",
			template: &v1alpha1.DeploymentTemplate{
				Metadata: &v1alpha1.DeploymentMetadataTemplate{
					Labels:      map[string]string{"team": "platform", "app.kubernetes.io/instance": "hijack"},
					Annotations: map[string]string{"owner": "me"},
				},
				Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
					Metadata: &v1alpha1.PodMetadataTemplate{
						Labels:      map[string]string{"sidecar": "off", "app.kubernetes.io/component": "hijack"},
						Annotations: map[string]string{"prometheus.io/scrape": "true", "kcp.crossplane.io/config-hash": "hijack"},
					},
				}},
			},
			want: func(d *appsv1.Deployment) {
				d.Labels = withLabels(map[string]string{"team": "platform"})
				d.Annotations = map[string]string{"owner": "me"}
				d.Spec.Template.Labels = withLabels(map[string]string{"sidecar": "off"})
				d.Spec.Template.Annotations = map[string]string{"prometheus.io/scrape": "true", "kcp.crossplane.io/config-hash": "abc"}
			},
		},
		"NodeSelectorKeepsPullSecrets": {
			reason: "Setting only a nodeSelector keeps the image pull secrets (quirk 3 fixed).",
			template: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
				Spec: &v1alpha1.PodSpecTemplate{NodeSelector: map[string]string{"role": "kcp"}},
			}}},
			want: func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.NodeSelector = map[string]string{"role": "kcp"}
			},
		},
		"PriorityClassKeepsSpread": {
			reason: "A priority class is added; the default spread stays while no constraint is set.",
			template: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
				Spec: &v1alpha1.PodSpecTemplate{PriorityClassName: "kcp-critical"},
			}}},
			want: func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.PriorityClassName = "kcp-critical"
			},
		},
		"PodUserAndGroups": {
			reason: "The user and groups the template sets join the pod's context; runAsNonRoot, the seccomp profile and the container's context stay as they are.",
			template: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
				Spec: &v1alpha1.PodSpecTemplate{SecurityContext: &v1alpha1.PodSecurity{
					RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](2000), FSGroup: ptr.To[int64](3000), SupplementalGroups: []int64{4000},
				}},
			}}},
			want: func(d *appsv1.Deployment) {
				sc := d.Spec.Template.Spec.SecurityContext
				sc.RunAsUser, sc.RunAsGroup, sc.FSGroup, sc.SupplementalGroups = ptr.To[int64](1000), ptr.To[int64](2000), ptr.To[int64](3000), []int64{4000}
			},
		},
		"AllPodFields": {
			reason: "All seven scheduling fields replace the generated ones when set: pull secrets, and the default spread by the user's constraints.",
			template: &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
				Spec: &v1alpha1.PodSpecTemplate{
					NodeSelector:              map[string]string{"role": "kcp"},
					Affinity:                  affinity,
					Tolerations:               tolerations,
					HostAliases:               hostAliases,
					ImagePullSecrets:          []corev1.LocalObjectReference{{Name: "other"}},
					TopologySpreadConstraints: spread,
					PriorityClassName:         "kcp-critical",
				},
			}}},
			want: func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.PriorityClassName = "kcp-critical"
				s := &d.Spec.Template.Spec
				s.NodeSelector = map[string]string{"role": "kcp"}
				s.Affinity = affinity
				s.Tolerations = tolerations
				s.HostAliases = hostAliases
				s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "other"}}
				s.TopologySpreadConstraints = spread
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := built()
			tc.want(want)
			got := Deployment{
				Name: "root-kcp", Namespace: "kcp", Labels: testLabels, Replicas: 2,
				Container:      testContainer(),
				Volumes:        built().Spec.Template.Spec.Volumes,
				PullSecrets:    []corev1.LocalObjectReference{{Name: "pull"}},
				PodAnnotations: map[string]string{"kcp.crossplane.io/config-hash": "abc"},
				Template:       tc.template,
			}.Build()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nDeployment.Build(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestTemplateFSGroupReplacesTheAuditLogs: an audit log on a claim gives the pod the image's
// group as fsGroup; a template's fsGroup replaces it, and an unset one keeps it.
func TestTemplateFSGroupReplacesTheAuditLogs(t *testing.T) {
	withFSGroup := func(g *int64) *v1alpha1.DeploymentTemplate {
		return &v1alpha1.DeploymentTemplate{Spec: &v1alpha1.DeploymentSpecTemplate{Template: &v1alpha1.PodTemplateSpec{
			Spec: &v1alpha1.PodSpecTemplate{SecurityContext: &v1alpha1.PodSecurity{FSGroup: g, RunAsUser: ptr.To[int64](1000)}},
		}}}
	}
	cases := map[string]struct {
		reason   string
		template *v1alpha1.DeploymentTemplate
		want     *int64
	}{
		"TemplateSetsIt":   {reason: "The template's group owns the volumes.", template: withFSGroup(ptr.To[int64](3000)), want: ptr.To[int64](3000)},
		"TemplateLeavesIt": {reason: "A template that sets only the user keeps the audit log's group.", template: withFSGroup(nil), want: ptr.To[int64](65532)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Deployment{Name: "root-kcp", Labels: testLabels, Container: testContainer(), FSGroup: ptr.To[int64](65532), Template: tc.template}.Build()
			if diff := cmp.Diff(tc.want, got.Spec.Template.Spec.SecurityContext.FSGroup); diff != "" {
				t.Errorf("%s\nDeployment.Build() fsGroup: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDeploymentBuildDoesNotAliasLabels(t *testing.T) {
	labels := map[string]string{"app.kubernetes.io/instance": "root"}
	d := Deployment{Name: "x", Labels: labels, Container: testContainer()}.Build()
	d.Labels["a"] = "1"
	d.Spec.Selector.MatchLabels["b"] = "2"
	d.Spec.Template.Labels["c"] = "3"
	want := map[string]string{"app.kubernetes.io/instance": "root"}
	if diff := cmp.Diff(want, labels); diff != "" {
		t.Errorf("The Deployment, selector and pod labels are copies: changing one must not change the caller's map.\nDeployment.Build(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"app.kubernetes.io/instance": "root", "b": "2"}, d.Spec.Selector.MatchLabels); diff != "" {
		t.Errorf("Selector labels must be independent of the Deployment and pod labels.\nDeployment.Build(): -want, +got:\n%s", diff)
	}
}

func TestContainerSecurityContext(t *testing.T) {
	want := &corev1.SecurityContext{
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		ReadOnlyRootFilesystem:   ptr.To(true),
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	if diff := cmp.Diff(want, ContainerSecurityContext()); diff != "" {
		t.Errorf("kcp containers run with RuntimeDefault seccomp, a read-only root, no privilege escalation and no capabilities.\nContainerSecurityContext(): -want, +got:\n%s", diff)
	}
}

func TestDisruptionBudget(t *testing.T) {
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/instance": "root"}}
	dep := func(replicas *int32) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "root-kcp", Namespace: "kcp", Labels: map[string]string{"app": "kcp"}},
			Spec:       appsv1.DeploymentSpec{Replicas: replicas, Selector: selector},
		}
	}
	one := intstr.FromInt32(1)
	two := intstr.FromString("50%")
	cases := map[string]struct {
		reason string
		dep    *appsv1.Deployment
		budget *v1alpha1.DisruptionBudget
		want   *policyv1.PodDisruptionBudget
	}{
		"OneReplica": {
			reason: "A budget for a single replica would either allow nothing, blocking every drain, or protect nothing.",
			dep:    dep(ptr.To[int32](1)),
		},
		"ReplicasUnset": {
			reason: "Kubernetes defaults an unset replica count to one.",
			dep:    dep(nil),
		},
		"TwoReplicas": {
			reason: "At most one of two replicas may be disrupted at a time, selected as the Deployment selects its pods.",
			dep:    dep(ptr.To[int32](2)),
			want: &policyv1.PodDisruptionBudget{
				TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: "root-kcp", Namespace: "kcp", Labels: map[string]string{"app": "kcp"}},
				Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: selector},
			},
		},
		"MinAvailable": {
			reason: "The user's minAvailable replaces maxUnavailable: the disruption controller reads one or the other.",
			dep:    dep(ptr.To[int32](4)),
			budget: &v1alpha1.DisruptionBudget{MinAvailable: &two},
			want: &policyv1.PodDisruptionBudget{
				TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: "root-kcp", Namespace: "kcp", Labels: map[string]string{"app": "kcp"}},
				Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: selector},
			},
		},
		"MinAvailableOfOneReplica": {
			reason: "One replica gets no budget, whatever the user sets.",
			dep:    dep(ptr.To[int32](1)),
			budget: &v1alpha1.DisruptionBudget{MinAvailable: &two},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DisruptionBudget(tc.dep.ObjectMeta, tc.dep.Spec.Replicas, tc.dep.Spec.Selector, tc.budget)); diff != "" {
				t.Errorf("\n%s\nDisruptionBudget(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// Pod Security "restricted": pods run as non-root and carry no service account token.
var restricted, noToken = true, false
