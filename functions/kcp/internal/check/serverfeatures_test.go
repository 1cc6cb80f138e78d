package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestServerFeatures: home workspaces, batteries, profiling and the audit log are refused
// where kcp would not start or would read them otherwise than asked. Who sets them: the owner
// of a RootShard or Shard, and a team on its own KcpInstallation, where the platform's policy
// decides profiling and the audit log (TestFeaturePolicy). A hostile value can reach only the
// team's own kcp; the hostile cases are a creator group smuggling a second group through the
// flag's commas (GroupWithComma) and a name that reads as another (GroupWithControl).
func TestServerFeatures(t *testing.T) {
	policy := &v1alpha1.AuditPolicySpec{ConfigMap: &v1alpha1.LocalDataKeyReference{Name: "audit", Key: "policy.yaml"}}
	cases := map[string]struct {
		reason string
		spec   v1alpha1.CommonShardSpec
		want   []string
	}{
		"None": {
			reason: "Without the fields nothing is checked.",
		},
		"Everything": {
			reason: "Every feature set as documented passes.",
			spec: v1alpha1.CommonShardSpec{
				HomeWorkspaces: &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"developers", "oidc:team a"}},
				Batteries:      &[]v1alpha1.Battery{v1alpha1.BatteryWorkspaceTypes, v1alpha1.BatteryMetricsViewer},
				Profiling:      &v1alpha1.Profiling{Enabled: true, Port: 7070},
				Audit:          &v1alpha1.AuditSpec{Policy: policy, Log: &v1alpha1.AuditLogSpec{}},
			},
		},
		"EncryptionKeysUnnamed": {
			reason: "Each key names its Secret and the Secret's key, and no two keys share a name: kcp writes it beside what it encrypts.",
			spec: v1alpha1.CommonShardSpec{Encryption: &v1alpha1.Encryption{Keys: []v1alpha1.EncryptionKey{
				{Name: "k", SecretRef: v1alpha1.LocalDataKeyReference{Name: "s", Key: "key"}},
				{Name: "k"},
			}}},
			want: []string{
				`spec.encryption.keys[1].name: Duplicate value: "k"`,
				"spec.encryption.keys[1].secretRef.name: Required value: name the Secret, in this namespace, that holds the key",
				"spec.encryption.keys[1].secretRef.key: Required value: name the Secret's key that holds the key's bytes, e.g. key",
			},
		},
		"EncryptionConfigInExtraArgs": {
			reason: "A second configuration through extraArgs would replace the composed one, and its rotation with it.",
			spec: v1alpha1.CommonShardSpec{
				Encryption: &v1alpha1.Encryption{Keys: []v1alpha1.EncryptionKey{{Name: "k", SecretRef: v1alpha1.LocalDataKeyReference{Name: "s", Key: "key"}}}},
				ExtraArgs:  []string{"--v=2", "--encryption-provider-config=/mine.yaml"},
			},
			want: []string{"spec.extraArgs[1]: Forbidden: --encryption-provider-config: spec.encryption composes kcp's encryption configuration and rolls its keys in order; another given here would replace it. Remove the argument (and the volume it reads), or remove spec.encryption"},
		},
		"EncryptionConfigInExtraArgsAlone": {
			reason: "Without spec.encryption, kcp-operator's way (extraArgs and extraVolumes) still works for those migrating.",
			spec:   v1alpha1.CommonShardSpec{ExtraArgs: []string{"--encryption-provider-config=/etc/enc/config.yaml"}},
		},
		"GroupsWhileOff": {
			reason: "Creator groups with home workspaces off would do nothing.",
			spec:   v1alpha1.CommonShardSpec{HomeWorkspaces: &v1alpha1.HomeWorkspaces{CreatorGroups: []string{"developers"}}},
			want:   []string{"spec.homeWorkspaces.creatorGroups: Forbidden: home workspaces are off (enabled: false), so no group gets one; set enabled: true, or remove creatorGroups"},
		},
		"GroupWithComma": {
			reason: "kcp splits its flag at commas: 'a,system:masters' would be two groups.",
			spec:   v1alpha1.CommonShardSpec{HomeWorkspaces: &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"developers,system:masters"}}},
			want:   []string{`spec.homeWorkspaces.creatorGroups[0]: Invalid value: "developers,system:masters": must not contain a comma or a double quote: kcp reads the groups as one comma-separated list; name the group without them`},
		},
		"GroupWithControl": {
			reason: "A group with a control character reads as another.",
			spec:   v1alpha1.CommonShardSpec{HomeWorkspaces: &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"dev\nops"}}},
			want:   []string{`spec.homeWorkspaces.creatorGroups[0]: Invalid value: "dev\nops": must hold only printable characters, and U+000A at byte 3 is not (a control, formatting or non-ASCII space character); remove it`},
		},
		"BatteryTwice": {
			reason: "A battery named twice is refused, as the schema's set does.",
			spec:   v1alpha1.CommonShardSpec{Batteries: &[]v1alpha1.Battery{v1alpha1.BatteryWorkspaceTypes, v1alpha1.BatteryWorkspaceTypes}},
			want:   []string{`spec.batteries[1]: Duplicate value: "workspace-types"`},
		},
		"AdminBattery": {
			reason: "kcp's admin battery, which the schema does not offer, and a change of kcp's default set are refused.",
			spec:   v1alpha1.CommonShardSpec{Batteries: &[]v1alpha1.Battery{"admin", "+user"}},
			want: []string{
				`spec.batteries[0]: Unsupported value: "admin": supported values: "workspace-types", "metrics-viewer"`,
				`spec.batteries[1]: Unsupported value: "+user": supported values: "workspace-types", "metrics-viewer"`,
			},
		},
		"ProfilerOnServingPort": {
			reason: "A profiler on 6443 would keep kcp from binding its own port.",
			spec:   v1alpha1.CommonShardSpec{Profiling: &v1alpha1.Profiling{Enabled: true, Port: 6443}},
			want:   []string{"spec.profiling.port: Invalid value: 6443: is a port kcp serves on ([6443 6444]); choose another, or remove port for 6060"},
		},
		"ProfilerOffOnServingPort": {
			reason: "A port with profiling off starts nothing and is not refused.",
			spec:   v1alpha1.CommonShardSpec{Profiling: &v1alpha1.Profiling{Port: 6443}},
		},
		"AuditLogWithoutPolicy": {
			reason: "kcp records nothing without an audit policy.",
			spec:   v1alpha1.CommonShardSpec{Audit: &v1alpha1.AuditSpec{Log: &v1alpha1.AuditLogSpec{}}},
			want:   []string{"spec.audit.policy.configMap: Required value: kcp records no audit event without an audit policy, so audit.log would stay empty; name a ConfigMap key holding an audit.k8s.io/v1 Policy (for example one rule, level: Metadata)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range ServerFeatures(field.NewPath("spec"), &tc.spec) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nServerFeatures(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
