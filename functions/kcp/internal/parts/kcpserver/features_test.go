package kcpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// featureFlags are the flags of the features kcp-operator does not have, and the batteries.
var featureFlags = []string{"--batteries-included=", "--enable-home-workspaces=", "--home-workspaces-", "--profiler-address=", "--audit-log-"}

func TestFeatureArgs(t *testing.T) {
	policy := &v1alpha1.AuditPolicySpec{ConfigMap: &v1alpha1.LocalDataKeyReference{Name: "audit", Key: "policy.yaml"}}
	cases := map[string]struct {
		reason string
		spec   func(*v1alpha1.CommonShardSpec)
		want   []string
	}{
		"Defaults": {
			reason: "Without the fields the server gets kcp-operator's workspace-types battery and nothing else: kcp's home workspaces stay on, no profiler, no audit file.",
			spec:   func(*v1alpha1.CommonShardSpec) {},
			want:   []string{"--batteries-included=workspace-types"},
		},
		"NoBatteries": {
			reason: "An empty list creates no battery: kcp reads the empty value as the list, not as its own default.",
			spec:   func(s *v1alpha1.CommonShardSpec) { s.Batteries = &[]v1alpha1.Battery{} },
			want:   []string{"--batteries-included="},
		},
		"TwoBatteries": {
			reason: "Batteries are passed in the spec's order.",
			spec: func(s *v1alpha1.CommonShardSpec) {
				s.Batteries = &[]v1alpha1.Battery{v1alpha1.BatteryMetricsViewer, v1alpha1.BatteryWorkspaceTypes}
			},
			want: []string{"--batteries-included=metrics-viewer,workspace-types"},
		},
		"HomeWorkspacesOff": {
			reason: "enabled: false is said to kcp, whose default is on.",
			spec:   func(s *v1alpha1.CommonShardSpec) { s.HomeWorkspaces = &v1alpha1.HomeWorkspaces{} },
			want:   []string{"--batteries-included=workspace-types", "--enable-home-workspaces=false"},
		},
		"HomeWorkspacesForGroups": {
			reason: "Creator groups are one comma-separated flag.",
			spec: func(s *v1alpha1.CommonShardSpec) {
				s.HomeWorkspaces = &v1alpha1.HomeWorkspaces{Enabled: true, CreatorGroups: []string{"developers", "oidc:admins"}}
			},
			want: []string{"--batteries-included=workspace-types", "--enable-home-workspaces=true", "--home-workspaces-home-creator-groups=developers,oidc:admins"},
		},
		"Profiling": {
			reason: "The profiler listens on the loopback address only, on 6060 unless a port is given.",
			spec:   func(s *v1alpha1.CommonShardSpec) { s.Profiling = &v1alpha1.Profiling{Enabled: true} },
			want:   []string{"--batteries-included=workspace-types", "--profiler-address=127.0.0.1:6060"},
		},
		"ProfilingOff": {
			reason: "A profiling block with enabled: false starts no profiler.",
			spec:   func(s *v1alpha1.CommonShardSpec) { s.Profiling = &v1alpha1.Profiling{Port: 7070} },
			want:   []string{"--batteries-included=workspace-types"},
		},
		"AuditLogDefaults": {
			reason: "An audit log writes JSON under the pod's own directory with the Helm chart's retention.",
			spec: func(s *v1alpha1.CommonShardSpec) {
				s.Audit = &v1alpha1.AuditSpec{Policy: policy, Log: &v1alpha1.AuditLogSpec{}}
			},
			want: []string{"--batteries-included=workspace-types",
				"--audit-log-path=/var/log/kcp/audit/$(POD_NAME)/audit.log", "--audit-log-format=json",
				"--audit-log-maxage=10", "--audit-log-maxbackup=1", "--audit-log-maxsize=250"},
		},
		"AuditLogRetention": {
			reason: "The spec's retention and compression reach kcp; a maxAge of 0 is kept, not defaulted.",
			spec: func(s *v1alpha1.CommonShardSpec) {
				s.Audit = &v1alpha1.AuditSpec{Policy: policy, Log: &v1alpha1.AuditLogSpec{MaxAge: ptr.To[int32](0), MaxBackups: ptr.To[int32](5), MaxSize: ptr.To[int32](100), Compress: true}}
			},
			want: []string{"--batteries-included=workspace-types",
				"--audit-log-path=/var/log/kcp/audit/$(POD_NAME)/audit.log", "--audit-log-format=json",
				"--audit-log-maxage=0", "--audit-log-maxbackup=5", "--audit-log-maxsize=100", "--audit-log-compress"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"https://etcd:2379"}}, ExtraArgs: []string{"--v=4"}}
			tc.spec(spec)
			args := Server{Name: "root", IsRoot: true, Spec: spec}.Args()
			var got []string
			for _, a := range args {
				for _, f := range featureFlags {
					if strings.HasPrefix(a, f) {
						got = append(got, a)
						break
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nArgs() feature flags: -want, +got:\n%s", tc.reason, diff)
			}
			if args[len(args)-1] != "--v=4" {
				t.Errorf("%s\nArgs() must end with the extra arguments, which may override any feature flag; ends with %q", tc.reason, args[len(args)-1])
			}
		})
	}
}

func TestAuditLogVolume(t *testing.T) {
	policy := &v1alpha1.AuditPolicySpec{ConfigMap: &v1alpha1.LocalDataKeyReference{Name: "audit", Key: "policy.yaml"}}
	podName := []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}}
	cases := map[string]struct {
		reason  string
		log     *v1alpha1.AuditLogSpec
		want    *corev1.Volume
		wantEnv []corev1.EnvVar
		fsGroup *int64
	}{
		"None": {
			reason: "Without an audit log there is no volume and no environment.",
		},
		"EmptyDir": {
			reason: "By default the files go to an emptyDir just large enough for maxBackups+2 files of maxSize: the kubelet evicts a pod whose emptyDir outgrows its limit.",
			log:    &v1alpha1.AuditLogSpec{MaxBackups: ptr.To[int32](3), MaxSize: ptr.To[int32](100)},
			want: &corev1.Volume{Name: "audit-log", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				SizeLimit: ptr.To(resource.MustParse("500Mi")),
			}}},
			wantEnv: podName,
		},
		"Claim": {
			reason: "A claim replaces the emptyDir, made writable by kcp's group (a claim's volume may belong to root); the pod's name still separates replicas sharing it.",
			log:    &v1alpha1.AuditLogSpec{Volume: &v1alpha1.AuditLogVolume{ClaimName: "audit"}},
			want: &corev1.Volume{Name: "audit-log", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
				ClaimName: "audit",
			}}},
			wantEnv: podName,
			fsGroup: ptr.To[int64](65532),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"https://etcd:2379"}}}
			if tc.log != nil {
				spec.Audit = &v1alpha1.AuditSpec{Policy: policy, Log: tc.log}
			}
			d := Server{Name: "root", IsRoot: true, Spec: spec}.Deployment(1, nil)
			pod := d.Spec.Template.Spec
			var got *corev1.Volume
			for i, v := range pod.Volumes {
				if v.Name == "audit-log" {
					got = &pod.Volumes[i]
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\naudit-log volume: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantEnv, pod.Containers[0].Env); diff != "" {
				t.Errorf("%s\nkcp container's env: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.fsGroup, pod.SecurityContext.FSGroup); diff != "" {
				t.Errorf("%s\npod's fsGroup: -want, +got:\n%s", tc.reason, diff)
			}
			mounted := false
			for _, m := range pod.Containers[0].VolumeMounts {
				if m.Name == "audit-log" {
					mounted = m.MountPath == "/var/log/kcp/audit" && !m.ReadOnly
				}
			}
			if mounted != (tc.want != nil) {
				t.Errorf("%s\naudit-log writable at /var/log/kcp/audit: got %t, want %t", tc.reason, mounted, tc.want != nil)
			}
		})
	}
}

func TestExternalHostname(t *testing.T) {
	cases := map[string]struct {
		reason string
		tag    string
		want   bool
	}{
		"Default": {reason: "kcp v0.32.3 ignores --external-hostname (its external host comes from --shard-base-url): not written.", tag: "v0.32.3"},
		"Older":   {reason: "kcp before 0.31 reads it: written, as kcp-operator does.", tag: "v0.30.2", want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"https://etcd:2379"}}, Image: &v1alpha1.ImageSpec{Tag: tc.tag}}
			s := Server{Name: "alpha", Spec: spec, RootExternal: v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 443}}
			got := slices.Contains(s.Args(), "--external-hostname=api.example.com")
			if got != tc.want {
				t.Errorf("%s\n--external-hostname in a shard's args: got %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
