package kcpinstallation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// setReplicas sets every "replicas" field of v, a spec as JSON, to n and returns their paths.
func setReplicas(v any, path string, n int) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if k == "replicas" {
				t[k] = n
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, setReplicas(e, path+"."+k, n)...)
		}
	case []any:
		for i, e := range t {
			out = append(out, setReplicas(e, path+"["+string(rune('0'+i))+"]", n)...)
		}
	}
	return out
}

// TestEveryReplicasBounded: every replicas field of a KcpInstallation, those added later
// included, is bounded by Validate. A spec with every field set has every replicas field;
// each set to 1000 must be refused at its own path.
func TestEveryReplicasBounded(t *testing.T) {
	raw, err := json.Marshal(workload.Everything[v1alpha1.KcpInstallationSpec]())
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	want := setReplicas(spec, "spec", 1000)
	t.Logf("replicas fields: %v", want)
	if len(want) < 6 {
		t.Fatalf("found only %v: the spec with every field set lacks replicas fields", want)
	}
	raw, _ = json.Marshal(spec)
	inst := smallest()
	inst.Spec = v1alpha1.KcpInstallationSpec{}
	if err := json.Unmarshal(raw, &inst.Spec); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range Validate(inst) {
		if strings.HasSuffix(e.Field, ".replicas") {
			got[e.Field] = true
		}
	}
	for _, p := range want {
		if !got[p] {
			t.Errorf("%s: 1000 replicas are not refused", p)
		}
	}
}

func TestReplicas(t *testing.T) {
	ten, eleven, negative := int32(10), int32(11), int32(-1)
	cases := map[string]struct {
		reason string
		inst   *v1alpha1.KcpInstallation
		want   []string
	}{
		"AtTheBound": {
			reason: "Ten replicas of each component are accepted.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Replicas: &ten}
				i.Spec.FrontProxies = []v1alpha1.InstallationFrontProxy{{Name: "public", Replicas: &ten}}
			}),
		},
		"OverTheBound": {
			reason: "Eleven are refused, naming the field and the bound.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.RootShard = &v1alpha1.InstallationRootShard{Replicas: &eleven}
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", Replicas: &negative}}
			}),
			want: []string{
				"spec.rootShard.replicas: Invalid value: 11: must be between 0 and 10: an installation shares the platform's nodes; ask the platform team for a per-kind XR if one component needs more",
				"spec.shards[0].replicas: Invalid value: -1: must be between 0 and 10",
			},
		},
		"AThousandEtcdMembers": {
			reason: "A managed etcd has 1 or 3 members.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{Replicas: 1000}}
			}),
			want: []string{`spec.etcd.managed.replicas: Unsupported value: 1000: supported values: "1", "3"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.inst) {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nValidate(): got %q, want %q", tc.reason, got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("%s\nValidate()[%d]: %s", tc.reason, i, cmp.Diff(tc.want[i], got[i]))
				}
			}
		})
	}
}
