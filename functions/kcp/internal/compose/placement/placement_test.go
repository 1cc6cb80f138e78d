package placement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

var clusterB = &Target{ConfigKind: "ProviderConfig", Config: "cluster-b", Namespace: "kcp"}

// placedObject is an observed Object of a Deployment placed by config in namespace ns.
func placedObject(configKind, config, ns string) *resource.Unstructured {
	u := resource.NewUnstructured()
	u.SetAPIVersion("kubernetes.m.crossplane.io/v1alpha1")
	u.SetKind("Object")
	u.SetName("shard-1-shard-kcp.deployment")
	u.Object["spec"] = map[string]any{
		"providerConfigRef": map[string]any{"kind": configKind, "name": config},
		"forProvider": map[string]any{"manifest": map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "shard-1-shard-kcp", "namespace": ns},
		}},
	}
	return u
}

func localDeployment() *resource.Unstructured {
	u := resource.NewUnstructured()
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetName("shard-1-shard-kcp")
	return u
}

func TestOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		p      *v1alpha1.Placement
		want   *Target
	}{
		"Here":     {reason: "Without spec.placement the workload runs in this cluster."},
		"Defaults": {reason: "The kind defaults to ProviderConfig and the namespace to the XR's.", p: &v1alpha1.Placement{ProviderConfigRef: v1alpha1.PlacementProviderConfigRef{Name: "cluster-b"}}, want: clusterB},
		"Explicit": {
			reason: "A ClusterProviderConfig and another namespace are kept as given.",
			p:      &v1alpha1.Placement{ProviderConfigRef: v1alpha1.PlacementProviderConfigRef{Kind: "ClusterProviderConfig", Name: "eu"}, Namespace: "kcp-eu"},
			want:   &Target{ConfigKind: "ClusterProviderConfig", Config: "eu", Namespace: "kcp-eu"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Of(tc.p, "kcp")); diff != "" {
				t.Errorf("%s\nOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	const key = resource.Name("deployment-shard-kcp")
	fld := field.NewPath("spec", "placement")
	cases := map[string]struct {
		reason  string
		running *resource.Unstructured
		target  *Target
		want    string
	}{
		"NothingRuns":  {reason: "A workload not created yet may go anywhere.", target: clusterB},
		"StaysHere":    {reason: "A local workload without placement stays.", running: localDeployment()},
		"StaysThere":   {reason: "A placed workload with the same placement stays.", running: placedObject("ProviderConfig", "cluster-b", "kcp"), target: clusterB},
		"HereToThere":  {reason: "Moving a running workload away would delete it here first.", running: localDeployment(), target: clusterB, want: "spec.placement: Forbidden: the workload runs in this cluster and cannot move to namespace kcp of the cluster ProviderConfig cluster-b reaches: Crossplane would delete it where it runs first. Restore the placement, or create a new Shard placed where you want it and delete this one"},
		"ThereToHere":  {reason: "Removing the placement would delete the workload there first.", running: placedObject("ProviderConfig", "cluster-b", "kcp"), want: "spec.placement: Forbidden: the workload runs in namespace kcp of the cluster ProviderConfig cluster-b reaches and cannot move to this cluster: Crossplane would delete it where it runs first. Restore the placement, or create a new Shard placed where you want it and delete this one"},
		"OtherCluster": {reason: "Another config is another cluster.", running: placedObject("ClusterProviderConfig", "cluster-b", "kcp"), target: clusterB, want: "spec.placement: Forbidden: the workload runs in namespace kcp of the cluster ClusterProviderConfig cluster-b reaches and cannot move to namespace kcp of the cluster ProviderConfig cluster-b reaches: Crossplane would delete it where it runs first. Restore the placement, or create a new Shard placed where you want it and delete this one"},
		"OtherNamespace": {reason: "Another namespace would delete it in the old one.", running: placedObject("ProviderConfig", "cluster-b", "kcp-old"), target: clusterB,
			want: "spec.placement: Forbidden: the workload runs in namespace kcp-old of the cluster ProviderConfig cluster-b reaches and cannot move to namespace kcp of the cluster ProviderConfig cluster-b reaches: Crossplane would delete it where it runs first. Restore the placement, or create a new Shard placed where you want it and delete this one"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			oc := map[resource.Name]*resource.Unstructured{}
			if tc.running != nil {
				oc[key] = tc.running
			}
			got := ""
			if err := Check(observed.New(oc), key, tc.target, fld, "Shard"); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nCheck(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// deployment mounts: its own certificate, a CA, a user's Secret, its own ConfigMap, a
// projected Secret, and pulls with a user's Secret.
func deployment() *appsv1.Deployment {
	secret := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "shard-1-shard-kcp", Namespace: "kcp", Labels: map[string]string{"app": "kcp"}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				secret("shard-1-server"), secret("root-server-ca"), secret("etcd-client"), secret("shard-1-server"),
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "shard-1-config"}}}},
				{Name: "projected", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "audit-webhook"}}},
				}}}},
			},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "registry"}},
		}}},
	}
}

func service() *corev1.Service {
	return &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "shard-1-shard-kcp", Namespace: "kcp"}}
}

// workload is shard-1's: its own Secrets are its certificate and ConfigMap.
var workload = Workload{
	Deployment: "deployment-shard-kcp", Service: "service-shard-kcp", DisruptionBudget: "poddisruptionbudget-shard-kcp",
	Own: func(kind, name string) bool {
		return name == "shard-1-server" || name == "shard-1-config"
	},
	CertificateOnly: map[string]bool{"root-server-ca": true},
	Namespace:       "kcp",
}

// summary lists the desired objects as "<key> <kind> <name> -> <manifest kind> <namespace>/<name>
// <policies> <copied fields>".
func summary(set *desired.Set) []string {
	var out []string
	for _, o := range set.Objects() {
		u := o.Kept
		if u == nil {
			var err error
			if u, err = desired.ToComposed(o.Resource); err != nil {
				panic(err)
			}
		}
		line := fmt.Sprintf("%s %s %s", o.Name, u.GetKind(), u.GetName())
		if u.GetKind() == "Object" {
			spec := u.Object["spec"].(map[string]any)
			m := spec["forProvider"].(map[string]any)["manifest"].(map[string]any)
			md := m["metadata"].(map[string]any)
			ns, _ := md["namespace"].(string)
			var policies, paths []string
			policyList, _ := spec["managementPolicies"].([]any)
			for _, p := range policyList {
				policies = append(policies, p.(string))
			}
			refs, _ := spec["references"].([]any)
			for _, r := range refs {
				from := r.(map[string]any)["patchesFrom"].(map[string]any)
				paths = append(paths, from["namespace"].(string)+"/"+from["name"].(string)+":"+from["fieldPath"].(string))
			}
			cfg := spec["providerConfigRef"].(map[string]any)
			line += fmt.Sprintf(" -> %s %s/%s via %s/%s [%s] %s", m["kind"], ns, md["name"], cfg["kind"], cfg["name"], strings.Join(policies, ","), strings.Join(paths, " "))
		}
		out = append(out, line)
	}
	return out
}

func TestPlace(t *testing.T) {
	keptCopy := placedObject("ProviderConfig", "cluster-b", "kcp")
	keptCopy.SetName("shard-1-shard-kcp.etcd-client.secret")
	keptDeployment := placedObject("ProviderConfig", "cluster-b", "kcp")
	cases := map[string]struct {
		reason   string
		set      func(*desired.Set)
		observed map[resource.Name]*resource.Unstructured
		want     []string
	}{
		"NothingComposed": {
			reason: "A workload waiting for its first inputs has nothing to place.",
			set:    func(*desired.Set) {},
		},
		"Built": {
			reason: "The Deployment and Service become Objects in namespace kcp of cluster B; every Secret and ConfigMap the pods use is copied there once: the CA's certificate only, the component's own with deletion, others' never deleted.",
			set: func(s *desired.Set) {
				s.Add("deployment-shard-kcp", deployment(), resource.ReadyTrue)
				s.Add("service-shard-kcp", service(), resource.ReadyTrue)
			},
			want: []string{
				"deployment-shard-kcp Object shard-1-shard-kcp.deployment -> Deployment kcp/shard-1-shard-kcp via ProviderConfig/cluster-b [*] ",
				"service-shard-kcp Object shard-1-shard-kcp.service -> Service kcp/shard-1-shard-kcp via ProviderConfig/cluster-b [*] ",
				"placed-namespace Object shard-1-shard-kcp.namespace -> Namespace /kcp via ProviderConfig/cluster-b [Observe,Create,Update,LateInitialize] ",
				"placed-secret-shard-1-server Object shard-1-shard-kcp.shard-1-server.secret -> Secret kcp/shard-1-server via ProviderConfig/cluster-b [*] kcp/shard-1-server:type kcp/shard-1-server:data",
				"placed-secret-root-server-ca Object shard-1-shard-kcp.root-server-ca.secret -> Secret kcp/root-server-ca via ProviderConfig/cluster-b [Observe,Create,Update,LateInitialize] kcp/root-server-ca:data[tls.crt]",
				"placed-secret-etcd-client Object shard-1-shard-kcp.etcd-client.secret -> Secret kcp/etcd-client via ProviderConfig/cluster-b [Observe,Create,Update,LateInitialize] kcp/etcd-client:type kcp/etcd-client:data",
				"placed-configmap-shard-1-config Object shard-1-shard-kcp.shard-1-config.configmap -> ConfigMap kcp/shard-1-config via ProviderConfig/cluster-b [*] kcp/shard-1-config:data",
				"placed-secret-audit-webhook Object shard-1-shard-kcp.audit-webhook.secret -> Secret kcp/audit-webhook via ProviderConfig/cluster-b [Observe,Create,Update,LateInitialize] kcp/audit-webhook:type kcp/audit-webhook:data",
				"placed-secret-registry Object shard-1-shard-kcp.registry.secret -> Secret kcp/registry via ProviderConfig/cluster-b [Observe,Create,Update,LateInitialize] kcp/registry:type kcp/registry:data",
			},
		},
		"Kept": {
			reason: "While an input is missing the placed Deployment is kept as observed, and so is every copy: nothing there is touched.",
			set: func(s *desired.Set) {
				s.Keep("deployment-shard-kcp", keptDeployment, resource.ReadyTrue)
			},
			observed: map[resource.Name]*resource.Unstructured{
				"deployment-shard-kcp":      keptDeployment,
				"placed-secret-etcd-client": keptCopy,
			},
			want: []string{
				"deployment-shard-kcp Object shard-1-shard-kcp.deployment -> Deployment kcp/shard-1-shard-kcp via ProviderConfig/cluster-b [] ",
				"placed-namespace Object shard-1-shard-kcp.namespace -> Namespace /kcp via ProviderConfig/cluster-b [Observe,Create,Update,LateInitialize] ",
				"placed-secret-etcd-client Object shard-1-shard-kcp.etcd-client.secret -> Deployment kcp/shard-1-shard-kcp via ProviderConfig/cluster-b [] ",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var set desired.Set
			tc.set(&set)
			if err := Place(&set, observed.New(tc.observed), clusterB, workload); err != nil {
				t.Fatalf("Place: %v", err)
			}
			if diff := cmp.Diff(tc.want, summary(&set)); diff != "" {
				t.Errorf("%s\nPlace(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
